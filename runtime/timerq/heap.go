package timerq

import (
	"fmt"
	"math/bits"
	"slices"
)

// shrinkFloor is the capacity, in slots, below which the slot array is
// never shrunk: reallocating tiny arrays costs more than it frees.
const shrinkFloor = 64

// Heap is an exact min-queue ordered by (when, seq): a 4-ary heap with the
// keys stored inline in the slot array. The zero value is an empty heap
// ready to use. A Heap must not be copied after first use.
type Heap[T Elem] struct {
	_     noCopy
	s     []slot[T]
	floor int // capacity the slot array never shrinks below
}

// slot keeps the key next to the value, so sift compares never chase a
// pointer.
type slot[T Elem] struct {
	when int64
	seq  uint64
	x    T
}

// maxLen is the most values a heap holds: positions are int32.
const maxLen = 1<<31 - 1

var _ Queue[*Node] = (*Heap[*Node])(nil)

// NewHeap returns an empty heap with room for capacity values before it
// grows. The slot array never shrinks below capacity. NewHeap panics if
// capacity is negative.
func NewHeap[T Elem](capacity int) *Heap[T] {
	if capacity < 0 {
		panic(fmt.Sprintf("timerq.NewHeap: capacity %d is negative", capacity))
	}
	return &Heap[T]{s: make([]slot[T], 0, capacity), floor: capacity}
}

// before reports whether key (w1, s1) sorts before key (w2, s2).
func before(w1 int64, s1 uint64, w2 int64, s2 uint64) bool {
	return less(w1, s1, w2, s2) != 0
}

// less is before as 0 or 1, computed without branches: it is the borrow of
// the 128-bit subtraction (w1, s1) - (w2, s2), with when's sign bit flipped
// so that signed order becomes unsigned order. Which of two random keys is
// smaller is unpredictable, and a mispredicted branch costs more than the
// whole compare.
func less(w1 int64, s1 uint64, w2 int64, s2 uint64) uint {
	const sign = 1 << 63
	_, b := bits.Sub64(s1, s2, 0)
	_, b = bits.Sub64(uint64(w1)^sign, uint64(w2)^sign, b)
	return uint(b)
}

// Len returns the number of queued values.
func (h *Heap[T]) Len() int { return len(h.s) }

// Push queues x with key (when, seq) in O(log n); it allocates only when
// the slot array grows. It panics if x is already queued, in h or in
// another queue, and if x is nil.
func (h *Heap[T]) Push(x T, when int64, seq uint64) {
	n := x.QueueNode()
	if n.pos != 0 {
		panic("timerq: Push of a value that is already queued; use Update to re-key it")
	}
	h.push(x, n, when, seq)
}

// push adds x, whose Node n is not queued, at the end and sifts it up.
func (h *Heap[T]) push(x T, n *Node, when int64, seq uint64) {
	i := len(h.s)
	if i == cap(h.s) {
		h.grow()
	}
	h.s = h.s[:i+1] // slots past the end are zero: up writes the new one once
	if p := (i - 1) >> 2; i == 0 || !before(when, seq, h.s[p].when, h.s[p].seq) {
		// Later than its parent, the usual case for a new deadline: no
		// sift, no call.
		h.s[i] = slot[T]{when, seq, x}
		n.pos = int32(i + 1)
		return
	}
	h.up(i, when, seq, x, n)
}

// grow makes room for one more slot: the floor on first use, else by
// append's amortized doubling. It is rare, so it is kept out of line.
//
//go:noinline
func (h *Heap[T]) grow() {
	if cap(h.s) == 0 {
		h.s = make([]slot[T], 0, max(h.floor, shrinkFloor))
		return
	}
	if len(h.s) >= maxLen {
		panic("timerq: more than 2^31-1 values queued")
	}
	h.s = slices.Grow(h.s, 1)
}

// Peek returns the value with the smallest key, leaving it queued.
// ok is false, and the other results are zero, if h is empty.
func (h *Heap[T]) Peek() (x T, when int64, seq uint64, ok bool) {
	if len(h.s) == 0 {
		return x, 0, 0, false
	}
	top := &h.s[0]
	return top.x, top.when, top.seq, true
}

// Pop removes and returns the value with the smallest key, in O(log n).
// Among equal keys the one returned is unspecified. ok is false, and the
// other results are zero, if h is empty.
func (h *Heap[T]) Pop() (x T, when int64, seq uint64, ok bool) {
	if len(h.s) == 0 {
		return x, 0, 0, false
	}
	top := h.s[0]
	top.x.QueueNode().pos = 0
	if e := h.dropLast(); len(h.s) > 0 {
		h.down(0, e.when, e.seq, e.x, e.x.QueueNode()) // e sorts after top: no need to look up
	}
	h.maybeShrink()
	return top.x, top.when, top.seq, true
}

// Remove takes x out of h in O(log n) and reports true. It reports false,
// and changes nothing, if x is not queued in h: never pushed, already
// popped or removed, or queued in another queue. The vacated slot is
// zeroed, so h keeps no reference to x.
func (h *Heap[T]) Remove(x T) bool {
	n := x.QueueNode()
	i, ok := h.index(x, n)
	if !ok {
		return false
	}
	n.pos = 0
	h.removeAt(i, h.s[i].when, h.s[i].seq)
	return true
}

// index returns x's slot if x is queued in h. A value queued elsewhere has
// a position too, but the slot there holds another value (or none).
func (h *Heap[T]) index(x T, n *Node) (int, bool) {
	i := int(n.pos) - 1
	if i < 0 || i >= len(h.s) || h.s[i].x != x {
		return 0, false
	}
	return i, true
}

// Update re-keys x to (when, seq) in O(log n) if x is queued in h, and
// pushes it otherwise. Re-keying to the same key changes nothing. It panics
// if x is queued in another queue.
func (h *Heap[T]) Update(x T, when int64, seq uint64) {
	n := x.QueueNode()
	i, ok := h.index(x, n)
	if !ok {
		if n.pos != 0 {
			panic("timerq: Update of a value that is queued in another queue")
		}
		h.push(x, n, when, seq)
		return
	}
	if before(when, seq, h.s[i].when, h.s[i].seq) {
		h.up(i, when, seq, x, n)
	} else {
		h.down(i, when, seq, x, n)
	}
}

// Clear unqueues every value in O(n): each Node reads not queued and h
// keeps no reference to any value. A slot array larger than the NewHeap
// capacity (or 64 slots) is released.
func (h *Heap[T]) Clear() {
	for i := range h.s {
		h.s[i].x.QueueNode().pos = 0
	}
	if cap(h.s) > max(h.floor, shrinkFloor) {
		h.s = nil
		return
	}
	clear(h.s)
	h.s = h.s[:0]
}

// Each calls fn for every queued value, in slot order (unspecified, and
// not key order), until fn returns false. fn must not change h; if it
// does, every value passed to fn is still queued when passed, but some may
// be skipped or passed twice.
func (h *Heap[T]) Each(fn func(x T, when int64, seq uint64) bool) {
	for i := 0; i < len(h.s); i++ {
		e := h.s[i]
		if !fn(e.x, e.when, e.seq) {
			return
		}
	}
}

// removeAt fills slot i, whose key is (when, seq), with the last slot and
// restores the heap order. The caller has already unqueued the value at i.
func (h *Heap[T]) removeAt(i int, when int64, seq uint64) {
	e := h.dropLast()
	if i < len(h.s) {
		if n := e.x.QueueNode(); before(e.when, e.seq, when, seq) {
			h.up(i, e.when, e.seq, e.x, n)
		} else {
			h.down(i, e.when, e.seq, e.x, n)
		}
	}
	h.maybeShrink()
}

// dropLast takes the last slot off the array and returns it. The vacated
// slot is zeroed, so the array keeps no reference to its value.
func (h *Heap[T]) dropLast() slot[T] {
	last := len(h.s) - 1
	e := h.s[last]
	h.s[last] = slot[T]{}
	h.s = h.s[:last]
	return e
}

// maybeShrink shrinks the slot array if fewer than a quarter of its slots
// are in use.
func (h *Heap[T]) maybeShrink() {
	if len(h.s) < cap(h.s)/4 {
		h.shrink()
	}
}

// shrink halves the slot array, down to the floor, so memory follows
// pending work. Halving at a quarter full keeps resizing amortized O(1):
// the array must double in use, or lose half its use again, before the next
// resize. It is kept out of line because it is rare and, inlined, it would
// enlarge the frame of every removal.
//
//go:noinline
func (h *Heap[T]) shrink() {
	floor := max(h.floor, shrinkFloor)
	c := cap(h.s)
	if c <= floor {
		return
	}
	s := make([]slot[T], len(h.s), max(c/2, floor))
	copy(s, h.s)
	h.s = s
}

// up moves the hole at i toward the root until key (when, seq) fits, then
// stores x there. Each value moved down gets its new position.
func (h *Heap[T]) up(i int, when int64, seq uint64, x T, n *Node) {
	s := h.s
	for i > 0 {
		p := (i - 1) >> 2
		ps := &s[p]
		if !before(when, seq, ps.when, ps.seq) {
			break
		}
		s[i] = *ps
		ps.x.QueueNode().pos = int32(i + 1)
		i = p
	}
	s[i] = slot[T]{when, seq, x}
	n.pos = int32(i + 1)
}

// down moves the hole at i toward the leaves, pulling up the smallest
// child while it sorts before key (when, seq), then stores x there.
func (h *Heap[T]) down(i int, when int64, seq uint64, x T, n *Node) {
	s := h.s
	for {
		c := 4*i + 1
		if c >= len(s) {
			break
		}
		m := c
		if c+3 < len(s) {
			// Full family: a two-round tournament with the winners picked
			// by index arithmetic, not branches; one bounds check.
			cs := s[c : c+4 : c+4]
			a := less(cs[1].when, cs[1].seq, cs[0].when, cs[0].seq)
			b := 2 + less(cs[3].when, cs[3].seq, cs[2].when, cs[2].seq)
			a += (b - a) * less(cs[b&3].when, cs[b&3].seq, cs[a&3].when, cs[a&3].seq)
			m += int(a & 3)
		} else {
			for j := c + 1; j < len(s); j++ {
				if before(s[j].when, s[j].seq, s[m].when, s[m].seq) {
					m = j
				}
			}
		}
		ms := &s[m]
		if !before(ms.when, ms.seq, when, seq) {
			break
		}
		s[i] = *ms
		ms.x.QueueNode().pos = int32(i + 1)
		i = m
	}
	s[i] = slot[T]{when, seq, x}
	n.pos = int32(i + 1)
}

// noCopy makes go vet's copylocks check report copies of a Heap, which
// would share its slots, and of a Node, which would claim its slot.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

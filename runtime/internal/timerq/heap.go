package timerq

import (
	"fmt"
	"math/bits"
	"slices"
)

// shrinkFloor is the capacity, in slots, below which the slot array is
// never shrunk: reallocating tiny arrays costs more than it frees.
const shrinkFloor = 64

// Heap is an exact min-queue ordered by (when, seq): a 4-ary heap whose
// slots hold the key, the value and the ID inline, with a dense table of
// positions by ID. The zero value is an empty heap ready to use. A Heap must
// not be copied after first use.
type Heap[V any] struct {
	_      noCopy
	s      []slot[V]
	hot    slot[V] // the entry pushed last, while hasHot: see Push
	hasHot bool
	pos    []loc  // by ID: where the entry is (loc.go)
	free   int32  // first free ID + 1, 0 when none (see freeLoc)
	run    run[V] // entries moved out of the heap by sortDue, in key order
	floor  int    // capacity the slot array never shrinks below

	// The far ring (far.go): entries re-keyed past farBase wait there, in
	// buckets, instead of in the heap.
	far      *farRing[V]
	farN     int   // entries in the ring
	farBase  int64 // start of the ring's first bucket
	farMax   int64 // the last deadline the ring takes
	farShift uint  // log2 of the bucket width in ns
	farOn    bool  // the ring is started: farBase, farMax and farShift are set
	farMiss  int   // see farTune

	tune *tuning // nil: the package's constants (drain.go)
}

// slot keeps the key next to the value and the ID, so sift compares never
// chase a pointer and a moved entry's position is written by ID, not
// through the value.
type slot[V any] struct {
	when int64
	seq  uint64
	v    V
	id   ID
}

// ID names a queued entry. The heap hands one out on Push and takes it
// back when the entry leaves (Pop, Remove, Clear); a later Push may hand out
// the same ID again. IDs are small non-negative integers, dense from zero,
// so a caller can index its own tables with them. A caller that keeps an ID
// past its entry's life pairs it with the entry's seq, which it chose unique,
// and checks both with Get.
type ID int32

// NewHeap returns an empty heap with room for capacity entries before it
// grows. The slot array never shrinks below capacity. NewHeap panics if
// capacity is negative or above 2^30-1.
func NewHeap[V any](capacity int) *Heap[V] {
	if capacity < 0 || capacity > maxLen {
		panic(fmt.Sprintf("timerq.NewHeap: capacity %d is out of range [0, 2^30-1]", capacity))
	}
	return &Heap[V]{s: make([]slot[V], 0, capacity), floor: capacity}
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

// Len returns the number of queued entries.
func (h *Heap[V]) Len() int {
	n := len(h.s) + h.run.len() + h.farN
	if h.hasHot {
		n++
	}
	return n
}

// Push queues v with key (when, seq) in O(log n) and returns its ID. It
// allocates only when the slot array or the ID table grows. It panics if
// the heap already holds 2^30-1 entries.
//
// The entry pushed last is kept beside the heap, and enters it only when
// the next Push comes or Update re-keys it: a timeout cancelled before
// anything else is scheduled, or a job that is the next to fire, costs no
// sift at all.
func (h *Heap[V]) Push(when int64, seq uint64, v V) ID {
	if f := h.free; f > 0 && !h.hasHot {
		// A free ID and no hot entry to move: no call, no sift.
		id, pos := ID(f-1), h.pos
		h.free = pos[id].nextFree()
		pos[id] = hotLoc
		h.hot, h.hasHot = slot[V]{when, seq, v, id}, true
		return id
	}
	return h.pushSlow(when, seq, v)
}

// pushSlow is Push when the hot entry must enter the heap or the ID table
// must grow.
func (h *Heap[V]) pushSlow(when int64, seq uint64, v V) ID {
	var id ID
	if f := h.free; f > 0 {
		id = ID(f - 1)
		h.free = h.pos[id].nextFree()
	} else {
		id = h.newID()
	}
	if h.hasHot {
		h.push(h.hot)
	}
	h.hot, h.hasHot = slot[V]{when, seq, v, id}, true
	h.pos[id] = hotLoc
	return id
}

// top returns the entry with the smallest key, nil if h is empty. It moves
// entries out of the far ring if the smallest is there.
func (h *Heap[V]) top() *slot[V] {
	e := h.nearTop()
	// The ring's entries come after farBase: while the smallest outside it
	// is not before, the ring's first bucket comes out.
	for h.farN > 0 && (e == nil || e.when >= h.farBase) {
		h.spill()
		e = h.nearTop()
	}
	return e
}

// nearTop returns the entry with the smallest key outside the far ring.
func (h *Heap[V]) nearTop() *slot[V] {
	var e *slot[V]
	if len(h.s) > 0 {
		e = &h.s[0]
	}
	if h.run.live > 0 {
		if r := &h.run.s[h.run.head]; e == nil || before(r.when, r.seq, e.when, e.seq) {
			e = r
		}
	}
	if h.hasHot && (e == nil || before(h.hot.when, h.hot.seq, e.when, e.seq)) {
		e = &h.hot
	}
	return e
}

// dropHot empties the hot entry and releases its ID.
func (h *Heap[V]) dropHot() {
	h.freeID(h.hot.id)
	h.hot, h.hasHot = slot[V]{}, false
	h.afterRemove()
}

// newID adds an ID to the table; Push takes free ones first. It is out of
// line: the table grows rarely.
//
//go:noinline
func (h *Heap[V]) newID() ID {
	if h.Len() >= maxLen {
		panic("timerq: more than 2^30-1 entries queued")
	}
	h.pos = append(h.pos, 0)
	return ID(len(h.pos) - 1)
}

// freeID returns id to the free list.
func (h *Heap[V]) freeID(id ID) {
	h.pos[id] = freeLoc(h.free)
	h.free = int32(id) + 1
}

// push adds e at the end and sifts it up.
func (h *Heap[V]) push(e slot[V]) {
	i := len(h.s)
	if i == cap(h.s) {
		h.grow()
	}
	h.s = h.s[:i+1]
	if p := (i - 1) >> 2; i == 0 || !before(e.when, e.seq, h.s[p].when, h.s[p].seq) {
		// Later than its parent, the usual case for a new deadline: no
		// sift, no call.
		h.s[i] = e
		h.pos[e.id] = heapLoc(i)
		return
	}
	h.up(i, e)
}

// grow makes room for one more slot: the floor on first use, else by
// append's amortized growth. It is rare, so it is kept out of line.
//
//go:noinline
func (h *Heap[V]) grow() {
	if cap(h.s) == 0 {
		h.s = make([]slot[V], 0, max(h.floor, shrinkFloor))
		return
	}
	h.s = slices.Grow(h.s, 1)
}

// Get returns the key and value of the entry id. ok is false, and the
// other results are zero, if id is not queued.
func (h *Heap[V]) Get(id ID) (when int64, seq uint64, v V, ok bool) {
	if uint(id) >= uint(len(h.pos)) {
		return 0, 0, v, false
	}
	e := h.at(h.pos[id])
	if e == nil {
		return 0, 0, v, false
	}
	return e.when, e.seq, e.v, true
}

// at returns the entry at p, nil if p is a free ID's.
func (h *Heap[V]) at(p loc) *slot[V] {
	switch {
	case p.inFar():
		c, off := p.chunk()
		return &h.far.chunks[c].s[off]
	case p.isFree():
		return nil
	case p.inHeap():
		return &h.s[p.heapIndex()]
	case p == hotLoc:
		return &h.hot
	}
	return &h.run.s[p.runIndex()]
}

// Peek returns the entry with the smallest key, leaving it queued. ok is
// false, and the other results are zero, if h is empty. It may first take
// the far ring's next bucket out (see the package doc).
func (h *Heap[V]) Peek() (id ID, when int64, seq uint64, v V, ok bool) {
	e := h.quickTop()
	if e == nil {
		if e = h.top(); e == nil {
			return 0, 0, 0, v, false
		}
	}
	return e.id, e.when, e.seq, e.v, true
}

// quickTop is top for the usual case of a drain of intervals, where only
// the heap, or only the run, holds entries outside the far ring: it returns
// the smallest entry without a call, or nil if top must find it.
func (h *Heap[V]) quickTop() *slot[V] {
	if h.hasHot {
		return nil
	}
	var e *slot[V]
	if h.run.live == 0 {
		if len(h.s) > 0 {
			e = &h.s[0]
		}
	} else if len(h.s) == 0 {
		e = &h.run.s[h.run.head]
	}
	if e != nil && h.farN != 0 && e.when >= h.farBase {
		return nil
	}
	return e
}

// Pop removes and returns the entry with the smallest key, in O(log n),
// and releases its ID. Among equal keys the one returned is unspecified.
// ok is false, and the other results are zero, if h is empty.
func (h *Heap[V]) Pop() (id ID, when int64, seq uint64, v V, ok bool) {
	e := h.top()
	if e == nil {
		return 0, 0, 0, v, false
	}
	if len(h.s) == 0 || e != &h.s[0] {
		id, when, seq, v = e.id, e.when, e.seq, e.v
		if e == &h.hot {
			h.dropHot()
		} else {
			h.run.remove(h.run.head)
			h.freeID(id)
			h.afterRemove()
		}
		return id, when, seq, v, true
	}
	top := *e
	h.freeID(top.id)
	if e := h.dropLast(); len(h.s) > 0 {
		h.up(h.descend(0), e) // the last slot: likely a leaf's key
	}
	h.afterRemove()
	return top.id, top.when, top.seq, top.v, true
}

// Remove takes the entry id out of h in O(log n), releases the ID and
// returns the entry's value. ok is false, and nothing changes, if id is not
// queued. The vacated slot is zeroed, so h keeps no reference to the value.
func (h *Heap[V]) Remove(id ID) (v V, ok bool) { return h.remove(id, 0, false) }

// RemoveSeq is Remove for a caller that keeps an ID past its entry's life:
// it removes the entry id only if its seq is seq, so a stale ID whose slot
// now holds a later entry changes nothing.
func (h *Heap[V]) RemoveSeq(id ID, seq uint64) (v V, ok bool) { return h.remove(id, seq, true) }

// remove is Remove, and RemoveSeq when bySeq is set. The hot entry and an
// entry in the heap, the usual cases, are handled here without further
// calls unless the filler must sift; an entry in the run goes to
// removeOther.
func (h *Heap[V]) remove(id ID, seq uint64, bySeq bool) (v V, ok bool) {
	if uint(id) >= uint(len(h.pos)) {
		return v, false
	}
	p := h.pos[id]
	if !p.inHeap() { // free, hot, in the run or in the far ring
		if p != hotLoc {
			return h.removeOther(id, p, seq, bySeq)
		}
		// The hot entry: a job cancelled before the next one was
		// scheduled, the usual fate of a timeout. Nothing moves.
		if bySeq && h.hot.seq != seq {
			return v, false
		}
		v = h.hot.v
		h.freeID(id)
		h.hot, h.hasHot = slot[V]{}, false
		if len(h.s) == 0 {
			h.afterRemove()
		}
		return v, true
	}
	s := h.s
	i := p.heapIndex()
	e := &s[i]
	// The parent's key is loaded before the seq check so that its cache
	// miss overlaps the slot's in a large heap; the root is its own parent.
	par := &s[max(i-1, 0)>>2]
	pw, ps := par.when, par.seq
	if bySeq && e.seq != seq {
		return v, false
	}
	v = e.v
	h.freeID(id)
	// Fill the hole with the hot entry if there is one, which spares the
	// sift it would need to enter the heap at the next Push; else with the
	// last slot.
	var f slot[V]
	if h.hasHot {
		f = h.hot
		h.hot, h.hasHot = slot[V]{}, false
	} else {
		last := len(s) - 1
		f = s[last]
		s[last] = slot[V]{}
		s = s[:last]
		h.s = s
		if i == last {
			h.afterRemove()
			return v, true
		}
	}
	// The filler goes up if it sorts before the parent (which sorts before
	// or with the removed key), else down if the hole has children. At the
	// root, "up" stores the filler in place.
	switch {
	case before(f.when, f.seq, pw, ps):
		h.up(i, f)
	case 4*i+1 < len(s):
		h.down(i, f)
	default: // a leaf, the usual case: no sift
		s[i] = f
		h.pos[f.id] = heapLoc(i)
	}
	if n := len(s); n < cap(s)>>2 || n == 0 {
		h.afterRemove()
	}
	return v, true
}

// removeOther is remove for an entry in the run or the far ring, at p, or
// for a free ID.
func (h *Heap[V]) removeOther(id ID, p loc, seq uint64, bySeq bool) (v V, ok bool) {
	e := h.at(p)
	if e == nil || bySeq && e.seq != seq {
		return v, false
	}
	v = e.v
	if p.inFar() {
		h.farCut(p)
	} else {
		h.run.remove(p.runIndex())
	}
	h.freeID(id)
	h.afterRemove()
	return v, true
}

// Update re-keys the entry id to (when, seq) in O(log n), keeping its ID
// and value, and reports true. It reports false, and changes nothing, if
// id is not queued. Re-keying to the same key changes nothing. An entry
// re-keyed to a deadline the far ring covers goes into the ring (see the
// package doc); the first Update to a later key in a large heap may start
// the ring.
func (h *Heap[V]) Update(id ID, when int64, seq uint64) bool {
	if uint(id) >= uint(len(h.pos)) {
		return false
	}
	p := h.pos[id]
	if p.inHeap() { // the usual case
		i := p.heapIndex()
		e := slot[V]{when, seq, h.s[i].v, id}
		switch {
		case before(when, seq, h.s[i].when, h.s[i].seq):
			h.up(i, e)
		case when == h.s[i].when && seq == h.s[i].seq:
			// The same key: nothing to move.
		case h.farFits(when) || len(h.s) >= h.farMinOf() && h.farTune(when):
			// Far past the heap's earliest: into the ring.
			h.cutHeap(i)
			h.farAdd(e)
			h.afterRemove()
		default:
			h.up(h.descend(i), e) // a later deadline: usually near the leaves
		}
		return true
	}
	if p.isFree() {
		return false
	}
	if e := h.at(p); e.when == when && e.seq == seq {
		return true // the same key: an entry in the ring or the run stays
	}
	var e slot[V]
	switch {
	case p.inFar():
		e = h.farCut(p)
	case p == hotLoc:
		// Out of the hot place: a re-keyed entry is not about to be
		// cancelled, and while one waits beside the heap every Peek
		// compares it.
		e = h.hot
		h.hot, h.hasHot = slot[V]{}, false
	default:
		// Out of the sorted run.
		e.v = h.run.remove(p.runIndex())
	}
	e = slot[V]{when, seq, e.v, id}
	if h.farFits(when) {
		h.farAdd(e)
	} else {
		h.push(e)
	}
	return true
}

// cutHeap takes slot i out of the heap and fills the hole with the last
// slot. The ID is not released.
func (h *Heap[V]) cutHeap(i int) {
	f := h.dropLast()
	if i == len(h.s) {
		return
	}
	if p := (i - 1) >> 2; i > 0 && before(f.when, f.seq, h.s[p].when, h.s[p].seq) {
		h.up(i, f)
	} else {
		h.up(h.descend(i), f) // f sorts after i's parent: it stays at or below i
	}
}

// Clear takes every entry out in O(n) and releases every ID: the next Push
// starts again from ID 0. A slot array larger than the NewHeap capacity (or
// 64 slots) is released, as is the ID table.
func (h *Heap[V]) Clear() {
	h.farReset()
	h.run = run[V]{}
	h.hot, h.hasHot = slot[V]{}, false
	h.pos, h.free = nil, 0
	if cap(h.s) > max(h.floor, shrinkFloor) {
		h.s = nil
		return
	}
	clear(h.s)
	h.s = h.s[:0]
}

// Each calls fn for every queued entry, in no particular order (and not
// key order), until fn returns false. fn must not change h; if it does,
// every entry passed to fn is still queued when passed, but some may be
// skipped or passed twice.
func (h *Heap[V]) Each(fn func(id ID, when int64, seq uint64, v V) bool) {
	for i := 0; i < len(h.s); i++ {
		e := h.s[i]
		if !fn(e.id, e.when, e.seq, e.v) {
			return
		}
	}
	for i := h.run.head; i < len(h.run.s); i++ {
		if e := h.run.s[i]; e.id >= 0 {
			if !fn(e.id, e.when, e.seq, e.v) {
				return
			}
		}
	}
	if !h.farEach(func(e *slot[V]) bool { return fn(e.id, e.when, e.seq, e.v) }) {
		return
	}
	if h.hasHot {
		e := h.hot
		fn(e.id, e.when, e.seq, e.v)
	}
}

// dropLast takes the last slot off the array and returns it. The vacated
// slot is zeroed, so the array keeps no reference to its value.
func (h *Heap[V]) dropLast() slot[V] {
	last := len(h.s) - 1
	e := h.s[last]
	h.s[last] = slot[V]{}
	h.s = h.s[:last]
	return e
}

// afterRemove shrinks the slot array if fewer than a quarter of its slots
// are in use, and resets the ID table once the heap is empty.
func (h *Heap[V]) afterRemove() {
	if len(h.s) < cap(h.s)/4 && cap(h.s) > shrinkFloor {
		h.shrink()
	}
	if len(h.s) == 0 && h.run.len() == 0 && !h.hasHot && h.farN == 0 {
		h.reset()
	}
}

// reset forgets every ID of an empty heap, so the table starts again from
// ID 0 and a burst's table is not kept for ever. It is out of line: it is
// rare and would enlarge the frame of every removal.
//
//go:noinline
func (h *Heap[V]) reset() {
	h.run = run[V]{}
	h.farReset()
	if cap(h.pos) > max(h.floor, shrinkFloor) {
		h.pos = nil
	} else {
		h.pos = h.pos[:0]
	}
	h.free = 0
}

// shrink reallocates a slot array less than a quarter full at twice its
// use, down to the floor, so memory follows pending work. Shrinking to half
// full keeps resizing amortized O(1): the array must double in use, or lose
// half its use again, before the next resize. It is kept out of line
// because it is rare and, inlined, it would enlarge the frame of every
// removal.
//
//go:noinline
func (h *Heap[V]) shrink() {
	floor := max(h.floor, shrinkFloor)
	c := cap(h.s)
	if c <= floor {
		return
	}
	s := make([]slot[V], len(h.s), max(2*len(h.s), floor))
	copy(s, h.s)
	h.s = s
}

// up moves the hole at i toward the root until e's key fits, then stores e
// there. Each entry moved down gets its new position.
func (h *Heap[V]) up(i int, e slot[V]) { h.climb(i, 0, e) }

// climb is up that stops at slot top.
func (h *Heap[V]) climb(i, top int, e slot[V]) {
	s, pos := h.s, h.pos
	for i > top {
		p := (i - 1) >> 2
		ps := &s[p]
		if !before(e.when, e.seq, ps.when, ps.seq) {
			break
		}
		s[i] = *ps
		pos[ps.id] = heapLoc(i)
		i = p
	}
	s[i] = e
	pos[e.id] = heapLoc(i)
}

// down stores e in the hole at i or below it: the hole goes down to a leaf
// (descend) and e climbs back, never above i. i's parent, if it has one,
// must sort before or with e, or be outside the part being built.
func (h *Heap[V]) down(i int, e slot[V]) { h.climb(h.descend(i), i, e) }

// descend moves the hole at i down to a leaf along the smallest children,
// pulling each one up, and returns the leaf. With up, it places an entry
// that likely belongs near the leaves (the last slot after a Pop, an entry
// re-keyed later, the filler of a removal): h.up(h.descend(i), e) compares
// one key per level fewer than a sift down that compares e at every level,
// and its loop exit is predictable (Floyd's bottom-up sift). e never climbs
// above i: what is above i sorts before the key e replaces, which sorts
// before e. descend is a function of its own so that e is not held in
// registers through the loop.
//
// It is the heap's only selection of the smallest of four children: a
// two-round tournament with the winners picked by index arithmetic, not
// branches (which key is smaller is unpredictable); one bounds check. The
// last round selects with a mask, whose latency is shorter than a
// multiply's. It is written out here, not in a function of its own, because
// three key compares are beyond the compiler's inlining budget.
//
//go:noinline
func (h *Heap[V]) descend(i int) int {
	s, pos := h.s, h.pos
	hole := &s[i]
	for {
		c := 4*i + 1
		if c+4 > len(s) {
			if c < len(s) {
				// A partial family: its children are leaves.
				m := minFrom(s, c)
				*hole = s[m]
				pos[hole.id] = heapLoc(i)
				i = m
			}
			return i
		}
		cs := s[c : c+4 : c+4]
		a := less(cs[1].when, cs[1].seq, cs[0].when, cs[0].seq)
		b := 2 + less(cs[3].when, cs[3].seq, cs[2].when, cs[2].seq)
		a ^= (a ^ b) & -less(cs[b&3].when, cs[b&3].seq, cs[a&3].when, cs[a&3].seq)
		m := &cs[a&3]
		*hole = *m
		pos[hole.id] = heapLoc(i)
		hole, i = m, c+int(a&3)
	}
}

// minFrom returns the index of the smallest key in s[c:], a partial family.
func minFrom[V any](s []slot[V], c int) int {
	m := c
	for j := c + 1; j < len(s); j++ {
		if before(s[j].when, s[j].seq, s[m].when, s[m].seq) {
			m = j
		}
	}
	return m
}

// noCopy makes go vet's copylocks check report copies of a Heap, which
// would share its slots.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

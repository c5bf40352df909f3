package timerq

import (
	"math"
	"math/bits"
)

// The far ring keeps entries re-keyed well past the heap's earliest
// deadlines out of the heap, in buckets by deadline, so the re-key of an
// interval in a long drain is an append instead of a sift through a large
// heap whose slots miss the cache. When nothing outside the ring is due
// before the first bucket, that bucket comes out (spill): sorted into the
// run when there is none, so its entries are taken and re-keyed into the
// ring again without a sift, else pushed into the heap. Each entry is moved
// twice, and only the next bucket's worth is ever sorted or sifted.
//
// The ring has farBuckets buckets of 2^shift ns. Bucket b covers
// [base + b*2^shift, base + (b+1)*2^shift) relative to the first one, and
// lives at index (when >> shift) mod farBuckets. Every far entry has
// base <= when < base + farBuckets*2^shift: the heap, the hot entry and the
// run hold everything before base, and the smallest of them is the
// queue's smallest as long as it is before base (see Heap.top).
//
// A bucket is a list of chunks of farChunk slots, newest first, drawn from
// one arena and returned to its free list when emptied, so the ring grows
// with the entries it holds, not with its widest bucket, and allocates
// nothing once grown.
const (
	farBuckets = 256
	farChunk   = 16
	// farShiftMax bounds the bucket width at 2^50 ns (13 days), so the ring
	// (2^58 ns) and the bucket ends stay clear of int64 overflow.
	farShiftMax = 50
	// farMaxN bounds the ring's entries, so that its chunks' locs (below
	// farLoc0) stay within int32.
	farMaxN = 1 << 29
)

// farMin is the heap length at which an Update to a later key starts the
// ring. Below it the heap fits in cache and a sift costs less than moving
// an entry twice. A heap's tuning may set another (tests run small heaps
// through the ring).
const farMin = 4096

// farMinOf returns h's farMin.
func (h *Heap[V]) farMinOf() int {
	if t := h.tune; t != nil {
		return t.farMin
	}
	return farMin
}

type farRing[V any] struct {
	tail   [farBuckets]int32 // each bucket's newest chunk, -1 when empty
	chunks []farChunkOf[V]
	free   int32 // first free chunk, -1 when none; chained through prev

	// A spilled bucket is sorted from spare into sorted, which then serves
	// as the run: both are kept for the next bucket.
	spare, sorted []slot[V]
}

type farChunkOf[V any] struct {
	s    [farChunk]slot[V]
	n    int32 // slots in use, from 0
	prev int32 // the bucket's older chunk, or the next free one; -1 at the end
}

// farStart turns the ring on, if the heap's spread allows, with buckets
// sized so that the ring spans about twice the keys now in the heap: the
// root's key to the largest of the last leaves, a sample of the largest.
// A heap whose sample shares one deadline, as timers started together do,
// is sized by the deadline when being re-keyed instead. The ring must be
// empty.
func (h *Heap[V]) farStart(when int64) {
	s := h.s
	lo, hi := s[0].when, s[0].when
	for i := max(len(s)-farChunk, 0); i < len(s); i++ {
		hi = max(hi, s[i].when)
	}
	if hi == lo {
		hi = max(hi, when)
	}
	spread := uint64(hi) - uint64(lo) // hi >= lo
	h.farOn = false
	if hi <= lo || spread > math.MaxInt64 {
		return
	}
	shift := uint(bits.Len64(spread / (farBuckets / 2)))
	if shift > farShiftMax || lo > math.MaxInt64-3*(farBuckets<<shift) {
		return
	}
	if h.far == nil {
		h.far = &farRing[V]{free: -1}
		for b := range h.far.tail {
			h.far.tail[b] = -1
		}
	}
	h.farShift = shift
	h.farBase = (lo>>shift + 1) << shift
	h.farMax = math.MaxInt64 - 1<<shift
	h.farOn = true
}

// farFits reports whether an entry with deadline when belongs in the ring.
func (h *Heap[V]) farFits(when int64) bool {
	return h.farOn && when >= h.farBase && when <= h.farMax &&
		uint64(when)-uint64(h.farBase) < farBuckets<<h.farShift && h.farN < farMaxN
}

// farAdd appends e to its bucket.
func (h *Heap[V]) farAdd(e slot[V]) {
	r := h.far
	b := (e.when >> h.farShift) & (farBuckets - 1)
	t := r.tail[b]
	if t < 0 || r.chunks[t].n == farChunk {
		c := r.newChunk()
		r.chunks[c].prev = t
		r.tail[b] = c
		t = c
	}
	ch := &r.chunks[t]
	off := ch.n
	ch.s[off] = e
	ch.n++
	h.pos[e.id] = farLoc(t, off)
	h.farN++
}

func (r *farRing[V]) newChunk() int32 {
	if c := r.free; c >= 0 {
		r.free = r.chunks[c].prev
		return c
	}
	r.chunks = append(r.chunks, farChunkOf[V]{})
	return int32(len(r.chunks) - 1)
}

func (r *farRing[V]) freeChunk(c int32) {
	r.chunks[c].n, r.chunks[c].prev = 0, r.free
	r.free = c
}

// farCut takes the entry at far loc p out of its bucket and returns it; the
// bucket's newest entry fills the hole. The ID is not released.
func (h *Heap[V]) farCut(p loc) slot[V] {
	r := h.far
	c, off := p.chunk()
	e := r.chunks[c].s[off]
	b := (e.when >> h.farShift) & (farBuckets - 1)
	t := r.tail[b]
	tc := &r.chunks[t]
	last := tc.n - 1
	if t != c || last != off {
		m := tc.s[last]
		r.chunks[c].s[off] = m
		h.pos[m.id] = farLoc(c, off)
	}
	tc.s[last] = slot[V]{}
	tc.n = last
	if last == 0 {
		r.tail[b] = tc.prev
		r.freeChunk(t)
	}
	h.farN--
	return e
}

// spill moves the ring's first non-empty bucket out of the ring and the
// ring's base past it. The bucket becomes the sorted run if there is none,
// so that its entries are taken, and re-keyed back into the ring, without a
// sift; else its entries are pushed into the heap. Its chunks are read
// oldest first, so a bucket filled in key order, as a drain of intervals
// re-keyed by one period fills it, comes out sorted and is not sorted
// again.
//
//go:noinline
func (h *Heap[V]) spill() {
	r := h.far
	w := int64(1) << h.farShift
	b := (h.farBase >> h.farShift) & (farBuckets - 1)
	for r.tail[b] < 0 {
		h.farBase += w
		b = (b + 1) & (farBuckets - 1)
	}
	// Reverse the bucket's chain, newest first, into oldest first.
	first := int32(-1)
	for t := r.tail[b]; t >= 0; {
		prev := r.chunks[t].prev
		r.chunks[t].prev = first
		first, t = t, prev
	}
	toRun := h.run.live == 0
	a := r.spare[:0]
	inOrder := true
	for t := first; t >= 0; {
		ch := &r.chunks[t]
		for i := range ch.s[:ch.n] {
			if toRun {
				if n := len(a); n > 0 && inOrder {
					inOrder = before(a[n-1].when, a[n-1].seq, ch.s[i].when, ch.s[i].seq)
				}
				a = append(a, ch.s[i])
			} else {
				h.push(ch.s[i])
			}
			ch.s[i] = slot[V]{}
		}
		h.farN -= int(ch.n)
		next := ch.prev
		r.freeChunk(t)
		t = next
	}
	r.tail[b] = -1
	h.farBase += w
	h.farMiss = 1 // the ring is in use: count its misses afresh
	if !toRun {
		return
	}
	var out []slot[V]
	if inOrder {
		// Already sorted: a becomes the run and the last run's array,
		// emptied, the next bucket's scratch.
		out, r.spare, r.sorted = a, r.sorted[:0], a
	} else {
		k := len(a)
		if cap(r.sorted) < k {
			r.sorted = make([]slot[V], k, cap(a))
		}
		out = r.sorted[:k]
		sortSlots(a, out)
		clear(a) // scratch: it must not keep the values alive
		r.spare = a
	}
	for i := range out {
		h.pos[out[i].id] = runLoc(i)
	}
	h.run = run[V]{s: out, live: len(out)}
}

// farEach calls fn for every entry in the ring until it returns false.
func (h *Heap[V]) farEach(fn func(e *slot[V]) bool) bool {
	if h.farN == 0 {
		return true
	}
	r := h.far
	for _, t := range r.tail {
		for ; t >= 0; t = r.chunks[t].prev {
			ch := &r.chunks[t]
			for i := range ch.s[:ch.n] {
				if !fn(&ch.s[i]) {
					return false
				}
			}
		}
	}
	return true
}

// farReset forgets the ring of an emptied or cleared heap, arena included:
// the next Update to a later key in a large heap may start it again, with
// parameters chosen then.
func (h *Heap[V]) farReset() {
	h.far = nil
	h.farOn, h.farMiss, h.farN, h.farBase, h.farShift, h.farMax = false, 0, 0, 0, 0, 0
}

// farTune is Update's way into the ring for a later deadline the ring does
// not take, in a heap of farMin entries or more. The first such Update
// starts the ring. Later, while the ring is empty, they are counted, and
// once as many as the heap holds have missed it, the deadlines have moved
// out of its window: it starts again with parameters chosen from the heap
// as it is then. A ring with entries keeps its parameters. It reports
// whether when belongs in the ring. It is out of line: Update calls it
// only for a deadline the ring does not take.
//
//go:noinline
func (h *Heap[V]) farTune(when int64) bool {
	if h.farN > 0 {
		return false
	}
	if h.farMiss > 0 && h.farMiss < len(h.s) {
		h.farMiss++
		return false
	}
	h.farMiss = 1
	h.farStart(when)
	return h.farFits(when)
}

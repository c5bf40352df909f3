package timerq

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// run holds the entries sortDue took out of the heap, sorted by key. Taken
// and removed entries leave a dead slot (id -1) behind; head skips them.
// Popping from a run is a read of the next slot instead of a sift through
// a heap that no longer fits in cache.
type run[V any] struct {
	s    []slot[V]
	head int // first live slot
	live int
}

func (r *run[V]) len() int { return r.live }

// remove kills slot i and returns its value.
func (r *run[V]) remove(i int) V {
	v := r.s[i].v
	r.s[i] = slot[V]{id: -1}
	r.live--
	if r.live == 0 {
		*r = run[V]{}
		return v
	}
	for r.s[r.head].id < 0 {
		r.head++
	}
	return v
}

// sortDue moves every entry with when <= upTo out of the heap into a
// sorted run, in O(n + k) for n queued and k moved: one pass splits the
// slot array, a radix sort orders the k moved entries, and the heap is
// rebuilt from the rest. It changes no observable behaviour: IDs, keys,
// Peek and Pop order stay the same, and Push, Remove and Update work on
// entries in the run too (an updated entry goes back into the heap).
//
// It pays when most of a large heap is about to be popped, as in a long
// Drain, which calls it: each later Pop of a moved entry reads the
// next slot of the run instead of sifting through a heap whose slots miss
// the cache at every level. The run is one new array of k slots; the slot
// array's vacated part serves as the sort's scratch space, and the run is
// released once it empties.
func (h *Heap[V]) sortDue(upTo int64) {
	if h.hasHot {
		h.push(h.hot)
		h.hot, h.hasHot = slot[V]{}, false
	}
	// Partition in place: what stays to the front, what is due to the back.
	// The same pass finds the range of the due whens, for the sort.
	n := len(h.s)
	k := 0
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range h.s {
		if w := h.s[i].when; w > upTo {
			h.s[k], h.s[i] = h.s[i], h.s[k]
			k++
		} else {
			lo, hi = min(lo, w), max(hi, w)
		}
	}
	if k == n {
		return
	}
	due := h.s[k:n]
	r := make([]slot[V], len(due), len(due)+h.run.len())
	sortRange(due, r, lo, hi)
	// Merge with a run left by an earlier call.
	if h.run.len() > 0 {
		for i := h.run.head; i < len(h.run.s); i++ {
			if e := h.run.s[i]; e.id >= 0 {
				r = append(r, e)
			}
		}
		// The old run's array may be the far ring's, kept for its next
		// bucket: it must not keep the values alive.
		clear(h.run.s)
		merged := make([]slot[V], len(r))
		sortSlots(r, merged) // the result is in merged; r is scratch
		r = merged
	}
	for i := range r {
		h.pos[r[i].id] = runLoc(i)
	}
	h.run = run[V]{s: r, live: len(r)}

	// The vacated slots must not keep the values alive; when the array is
	// reallocated below (a drain leaves it mostly empty) they go with it,
	// and clearing them would be one more pass over the whole array.
	c := cap(h.s)
	h.s = h.s[:k]
	if len(h.s) < cap(h.s)/4 {
		h.shrink()
	}
	if cap(h.s) == c {
		clear(due)
	}
	for i := range h.s {
		h.pos[h.s[i].id] = heapLoc(i)
	}
	// Floyd's heap construction: sift down every parent, last first.
	for i := (k - 2) >> 2; i >= 0; i-- {
		h.down(i, h.s[i])
	}
}

// sortSlots sorts s by (when, seq) and leaves the result in out, which is
// as long as s; s is scratch space afterwards. It is a most-significant-
// digit radix sort on when minus the smallest when: the first pass splits
// the slots into 256 buckets small enough to stay in cache, and each bucket
// is split again by about log2 of its size in bits, so that a sub-bucket
// holds one or two entries, until the pieces are small enough for an
// insertion sort, which also orders equal whens by seq. A piece whose whens
// are all equal is sorted by seq in O(k log k). s must not be empty.
func sortSlots[V any](s, out []slot[V]) {
	lo, hi := s[0].when, s[0].when
	for i := range s {
		lo, hi = min(lo, s[i].when), max(hi, s[i].when)
	}
	sortRange(s, out, lo, hi)
}

// sortRange is sortSlots for a caller that knows the smallest and largest
// when in s.
func sortRange[V any](s, out []slot[V], lo, hi int64) {
	if len(s) <= smallSort {
		copy(out, s)
		insertionSort(out)
		return
	}
	width := uint(bits.Len64(uint64(hi - lo)))
	if width == 0 {
		copy(out, s)
		slices.SortFunc(out, compareSlots)
		return
	}
	digit := min(width, 8)
	var counts [1 << 8]int32
	splitRadix(s, out, lo, width-digit, counts[:1<<digit])
}

// Radix sort tuning: pieces of at most smallSort entries get an insertion
// sort; a split uses at most maxDigit bits (a 16 KB count table).
const (
	smallSort = 16
	maxDigit  = 12
)

// sortRadix sorts a, whose keys (when minus lo) agree above bit width, with
// scratch as long as a, splitting it by about log2(len(a)) bits at a time.
func sortRadix[V any](a, scratch []slot[V], lo int64, width uint) {
	switch {
	case len(a) <= smallSort:
		insertionSort(a)
		return
	case width == 0: // one when: order by seq
		slices.SortFunc(a, compareSlots)
		return
	}
	digit := min(uint(bits.Len(uint(len(a)))), width, maxDigit)
	// Small pieces get a small count table: it is zeroed at every call.
	if digit <= 8 {
		var counts [1 << 8]int32
		splitRadix(a, scratch, lo, width-digit, counts[:1<<digit])
	} else {
		var counts [1 << maxDigit]int32
		splitRadix(a, scratch, lo, width-digit, counts[:1<<digit])
	}
	copy(a, scratch)
}

// splitRadix moves src into dst ordered by the bits of (when minus lo)
// from shift up, as many as counts has entries (a power of two), then sorts
// each part of dst below shift, with src as scratch.
func splitRadix[V any](src, dst []slot[V], lo int64, shift uint, counts []int32) {
	mask := uint64(len(counts) - 1)
	for i := range src {
		counts[(uint64(src[i].when-lo)>>shift)&mask]++
	}
	var sum int32
	for b, c := range counts {
		counts[b], sum = sum, sum+c // the part's start
	}
	for i := range src {
		b := (uint64(src[i].when-lo) >> shift) & mask
		dst[counts[b]] = src[i]
		counts[b]++ // ends as the part's end
	}
	var start int32
	for _, end := range counts {
		if end-start > 1 {
			sortRadix(dst[start:end], src[start:end], lo, shift)
		}
		start = end
	}
}

// insertionSort sorts a short piece by (when, seq).
func insertionSort[V any](a []slot[V]) {
	for i := 1; i < len(a); i++ {
		if !before(a[i].when, a[i].seq, a[i-1].when, a[i-1].seq) {
			continue
		}
		e := a[i]
		j := i
		for ; j > 0 && before(e.when, e.seq, a[j-1].when, a[j-1].seq); j-- {
			a[j] = a[j-1]
		}
		a[j] = e
	}
}

func compareSlots[V any](a, b slot[V]) int {
	if c := cmp.Compare(a.when, b.when); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

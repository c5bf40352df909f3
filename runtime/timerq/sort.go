package timerq

import (
	"cmp"
	"math/bits"
	"slices"
)

// run holds the entries SortDue took out of the heap, sorted by key. Taken
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

// SortDue moves every entry with when <= upTo out of the heap into a
// sorted run, in O(n + k) for n queued and k moved: one pass splits the
// slot array, a radix sort orders the k moved entries, and the heap is
// rebuilt from the rest. It changes no observable behaviour: IDs, keys,
// Peek and Pop order stay the same, and Push, Remove and Update work on
// entries in the run too (an updated entry goes back into the heap).
//
// It pays when most of a large heap is about to be popped, as a scheduler
// draining a long advance does: each later Pop of a moved entry reads the
// next slot of the run instead of sifting through a heap whose slots miss
// the cache at every level. The run is one new array of k slots; the slot
// array's vacated part serves as the sort's scratch space, and the run is
// released once it empties.
func (h *Heap[V]) SortDue(upTo int64) {
	if h.hasHot {
		h.push(h.hot)
		h.hot, h.hasHot = slot[V]{}, false
	}
	// Partition in place: what stays to the front, what is due to the back.
	n := len(h.s)
	k := 0
	for i := range h.s {
		if h.s[i].when > upTo {
			h.s[k], h.s[i] = h.s[i], h.s[k]
			k++
		}
	}
	if k == n {
		return
	}
	due := h.s[k:n]
	r := make([]slot[V], len(due), len(due)+h.run.len())
	sortSlots(due, r)
	// Merge with a run left by an earlier call.
	if h.run.len() > 0 {
		for i := h.run.head; i < len(h.run.s); i++ {
			if e := h.run.s[i]; e.id >= 0 {
				r = append(r, e)
			}
		}
		merged := make([]slot[V], len(r))
		sortSlots(r, merged) // the result is in merged; r is scratch
		r = merged
	}
	for i := range r {
		h.pos[r[i].id] = int32(hotPos + 1 + i)
	}
	h.run = run[V]{s: r, live: len(r)}

	clear(due)
	h.s = h.s[:k]
	for i := range h.s {
		h.pos[h.s[i].id] = int32(i + 1)
	}
	// Floyd's heap construction: sift down every parent, last first.
	for i := (k - 2) >> 2; i >= 0; i-- {
		h.down(i, h.s[i])
	}
	if len(h.s) < cap(h.s)/4 {
		h.shrink()
	}
}

// sortSlots sorts s by (when, seq) and leaves the result in out, which is
// as long as s; s is scratch space afterwards. It is a radix sort on when
// minus the smallest when: one most-significant-byte pass splits the slots
// into 256 buckets small enough to stay in cache, and each bucket is sorted
// by its remaining bytes, least significant first, skipping the bytes all
// its keys share. Each run of equal whens is then sorted by seq: deadlines
// that tie are few in most loads, and when many do, that sort is
// O(k log k).
func sortSlots[V any](s, out []slot[V]) {
	if len(s) < 256 {
		copy(out, s)
		slices.SortFunc(out, compareSlots)
		return
	}
	lo, hi := s[0].when, s[0].when
	for i := range s {
		lo, hi = min(lo, s[i].when), max(hi, s[i].when)
	}
	shift := uint(max(bits.Len64(uint64(hi-lo)), 8) - 8)
	var starts [257]int
	for i := range s {
		starts[1+(uint64(s[i].when-lo)>>shift)]++
	}
	for b := 1; b <= 256; b++ {
		starts[b] += starts[b-1]
	}
	next := starts
	for i := range s {
		b := uint64(s[i].when-lo) >> shift
		out[next[b]] = s[i]
		next[b]++
	}
	for b := range 256 {
		if i, j := starts[b], starts[b+1]; j-i > 1 {
			sortLow(out[i:j], s[i:j], lo, shift)
		}
	}
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && out[j].when == out[i].when {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(out[i:j], compareSlots)
		}
		i = j
	}
}

// sortLow sorts a, whose keys (when minus lo) agree above bit width, by
// their low width bits, least significant byte first, with scratch as long
// as a; the result is left in a.
func sortLow[V any](a, scratch []slot[V], lo int64, width uint) {
	if len(a) < 32 {
		slices.SortFunc(a, compareSlots) // also orders ties by seq
		return
	}
	digits := int(width+7) / 8
	var counts [8][256]int
	for i := range a {
		k := uint64(a[i].when - lo)
		for d := range digits {
			counts[d][byte(k>>(8*d))]++
		}
	}
	src, dst := a, scratch
	for d := range digits {
		c := &counts[d]
		if c[byte(uint64(a[0].when-lo)>>(8*d))] == len(a) {
			continue // every key has this byte
		}
		sum := 0
		for b := range c {
			c[b], sum = sum, sum+c[b]
		}
		shift := uint(8 * d)
		for i := range src {
			b := byte(uint64(src[i].when-lo) >> shift)
			dst[c[b]] = src[i]
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

func compareSlots[V any](a, b slot[V]) int {
	if c := cmp.Compare(a.when, b.when); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

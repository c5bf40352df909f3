package timerq

// A drain that starts over at least sortMin entries sorts what is still due
// (sortDue) once it has taken 1/2^sortAfterShift of them: such a drain is
// likely to take much more, and a pop from the sorted run costs a few ns
// where a sift through a heap that misses the cache costs hundreds. Below
// sortMin the heap fits in cache and sorting does not pay. A heap may set
// its own values (SetSortPolicy).
const (
	sortAfterShift = 7
	sortMin        = 1 << 15
)

// tuning is a heap's own tuning values, where they differ from the
// package's constants: drains that sort while still small, or a far ring
// that starts in a small heap, take the paths a large heap takes.
type tuning struct {
	sortMin, sortAfterShift int
	farMin                  int
}

// tuned returns h's tuning, made from the constants on first use.
func (h *Heap[V]) tuned() *tuning {
	if h.tune == nil {
		h.tune = &tuning{sortMin: sortMin, sortAfterShift: sortAfterShift, farMin: farMin}
	}
	return h.tune
}

// SetSortPolicy makes h's drains that start over at least minLen entries
// sort what is still due once 1/2^shift of them have been taken (by
// default 2^15 entries and 1/128). Nothing observable changes but the
// cost; a scheduler's tests use it to run small drains through the sorted
// run. It must not be called while a drain of h runs.
func (h *Heap[V]) SetSortPolicy(minLen, shift int) {
	t := h.tuned()
	t.sortMin, t.sortAfterShift = minLen, shift
}

// Drain is a pass over the entries due by a deadline, smallest key first,
// for a caller that takes each one out (Pop, Remove, or Update to a later
// key) before it asks for the next, as a scheduler firing its due jobs
// does. The heap decides on the way whether sorting what is due pays (see
// the package doc); nothing observable changes when it does.
type Drain[V any] struct {
	h      *Heap[V]
	upTo   int64
	sortIn int // due entries to go before the sort; negative once done or when none is planned
}

// Drain starts a pass over the entries with when <= upTo. Entries pushed
// or re-keyed during the pass take part in it if they are due by upTo.
func (h *Heap[V]) Drain(upTo int64) Drain[V] {
	d := Drain[V]{h: h, upTo: upTo, sortIn: -1}
	minLen, shift := sortMin, sortAfterShift
	if t := h.tune; t != nil {
		minLen, shift = t.sortMin, t.sortAfterShift
	}
	if n := h.Len(); n >= minLen {
		d.sortIn = n >> shift
	}
	return d
}

// Peek returns the entry with the smallest key if it is due (when <=
// upTo), leaving it queued. ok is false, and the other results are zero,
// if nothing queued is due. Like Heap.Peek, it may first take the far
// ring's next bucket out; once the drain has taken its share, it sorts
// what is still due into the run.
func (d *Drain[V]) Peek() (id ID, when int64, seq uint64, v V, ok bool) {
	h := d.h
	e := h.quickTop()
	if e == nil {
		if e = h.top(); e == nil {
			return 0, 0, 0, v, false
		}
	}
	if e.when > d.upTo {
		return 0, 0, 0, v, false
	}
	if d.sortIn == 0 {
		// Sort first and read the top after: among entries with equal
		// keys the sort may put another one first, and the caller's Pop
		// must take the entry this Peek returns.
		h.sortDue(d.upTo)
		if e = h.quickTop(); e == nil {
			e = h.top()
		}
	}
	d.sortIn--
	return e.id, e.when, e.seq, e.v, true
}

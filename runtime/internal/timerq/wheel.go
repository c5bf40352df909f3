package timerq

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/bits"
	"slices"
)

// Geometry is the shape of a [Wheel]: the width of its finest slot and the
// number of slots on each level, finest first. Level i's slots are as wide
// as all of level i-1, so the wheel spans Tick times the product of Slots:
// its horizon.
type Geometry struct {
	Tick  int64 // width of a finest slot, in ns (> 0)
	Slots []int // slots per level, finest first (each >= 2)
}

// DefaultGeometry is 50 x 1 ms, 10 x 50 ms, 36 x 500 ms and 4800 x 18 s:
// 24 hours at 1 ms.
func DefaultGeometry() Geometry {
	return Geometry{Tick: 1e6, Slots: []int{50, 10, 36, 4800}}
}

// Horizon returns the span of the wheel's levels in ns, or 0 for a
// geometry that Validate rejects.
func (g Geometry) Horizon() int64 {
	if g.Validate() != nil {
		return 0
	}
	h := g.Tick
	for _, n := range g.Slots {
		h *= int64(n)
	}
	return h
}

// Validate reports why g cannot shape a wheel, or nil.
func (g Geometry) Validate() error {
	if g.Tick <= 0 {
		return fmt.Errorf("timerq.Geometry: Tick is %d ns, want > 0", g.Tick)
	}
	if len(g.Slots) == 0 || len(g.Slots) > 8 {
		return fmt.Errorf("timerq.Geometry: %d levels, want 1 to 8", len(g.Slots))
	}
	span, total := uint64(g.Tick), 0
	for i, n := range g.Slots {
		if n < 2 || n > 1<<20 {
			return fmt.Errorf("timerq.Geometry: Slots[%d] is %d, want 2 to 2^20", i, n)
		}
		hi, lo := bits.Mul64(span, uint64(n))
		if hi != 0 || lo > math.MaxInt64 {
			return fmt.Errorf("timerq.Geometry: the horizon overflows int64 ns at level %d", i)
		}
		span, total = lo, total+n
	}
	if total > 1<<22 {
		return fmt.Errorf("timerq.Geometry: %d slots in all, want at most 2^22", total)
	}
	return nil
}

// Lists an entry can be on, after the level slots (numbered flat, finest
// level first): the overflow level and the ready run.
const (
	noEntry   = -1                // an empty list, the end of a list
	freeEntry = math.MinInt32     // prev of a free entry
	pageBits  = 10                // entries per arena page: 1024
	pageMask  = 1<<pageBits - 1   //
	maxWheel  = 1<<30 - 1         // entries a wheel holds at most
	listBase  = math.MinInt32 + 1 // prev = listBase + list for a list's first entry
	hotEntry  = -2                // prev of the hot entry, on no list yet
)

// wentry is one pending timer: its key, its value and its links on the one
// list it is on. 32 bytes for a pointer-sized V.
type wentry[V any] struct {
	when int64
	seq  uint64
	v    V
	next int32 // next entry on the list, or noEntry; next free entry when free
	prev int32 // previous entry, or listBase+list for the first; freeEntry when free
}

// Wheel is a hierarchical timer wheel ordered by (when, seq): it pops
// exactly what a [Heap] pops, in the same order, with O(1) Push and Remove.
// It is not safe for concurrent use; [Sharded] is. See the package doc.
type Wheel[V any] struct {
	_ noCopy

	pages []*[1 << pageBits]wentry[V] // the arena, by ID: page id>>pageBits (fixed-size: one bounds check)
	free  int32                       // first free ID, or noEntry
	size  int32                       // IDs handed out so far (the arena's high water)
	n     int                         // pending entries

	heads []int32   // first entry of each list, by list (levels, overflow, ready)
	occ   []uint64  // a bit per level slot: its list is not empty
	off   []int     // first list of each level
	slots []int     // slots per level
	unit  []uint64  // slot width per level, ns
	udiv  []divider // divides by unit
	span  []uint64  // level width, ns (unit * slots)
	end   []uint64  // end of the current rotation of each level (relative ns)
	idx   []int     // the slot of each level that cur is in
	sEnd  []uint64  // the end of that slot (relative ns)

	overflow, ready int // list numbers
	readyTail       int32
	hot             int32  // the entry pushed last, on no list until settle; noEntry if none
	ovMin           uint64 // at or below the earliest overflow deadline (relative)

	origin int64  // deadlines are kept relative to origin, as uint64
	cur    uint64 // start of the current finest slot (relative)
	done   int64  // every entry with when <= done is in the ready run
	fresh  bool   // done is below origin: nothing advanced yet

	scratch []wkey // Advance's sort buffer
	log     *slog.Logger
}

// wkey is a key and an ID, for sorting a batch of due entries.
type wkey struct {
	when int64
	seq  uint64
	id   int32
}

// NewWheel returns an empty wheel of geometry g whose time starts at start
// (ns): what is due is decided by [Wheel.PopDue], never by a clock.
func NewWheel[V any](g Geometry, start int64) (*Wheel[V], error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	w := &Wheel[V]{free: noEntry}
	levels := len(g.Slots)
	w.off = make([]int, levels)
	w.slots = slices.Clone(g.Slots)
	w.unit = make([]uint64, levels)
	w.udiv = make([]divider, levels)
	w.span = make([]uint64, levels)
	w.end = make([]uint64, levels)
	w.idx = make([]int, levels)
	w.sEnd = make([]uint64, levels)
	u, total := uint64(g.Tick), 0
	for i, n := range g.Slots {
		w.off[i] = total
		w.unit[i] = u
		w.udiv[i] = newDivider(u)
		u *= uint64(n)
		w.span[i] = u
		total += n
	}
	w.overflow, w.ready = total, total+1
	w.heads = make([]int32, total+2)
	for i := range w.heads {
		w.heads[i] = noEntry
	}
	w.readyTail, w.hot = noEntry, noEntry
	w.occ = make([]uint64, (total+63)/64)
	// The origin is start rounded down to a tick, so slots stay aligned.
	w.origin = start - start%g.Tick
	if start%g.Tick < 0 {
		w.origin -= g.Tick
	}
	w.done, w.fresh = start, true
	for l := range w.idx { // before the first slot of the first rotation
		w.idx[l], w.end[l] = -1, w.span[l]
	}
	w.setCur(0)
	return w, nil
}

// SetLogger makes the wheel report its rare decisions (overflow, refill)
// to l at debug level; nil, the default, reports nothing at no cost. An
// entry is reported when it is placed, so one removed while hot is not.
func (w *Wheel[V]) SetLogger(l *slog.Logger) { w.log = l }

// Len returns the number of pending entries.
func (w *Wheel[V]) Len() int { return w.n }

func (w *Wheel[V]) at(id int32) *wentry[V] {
	return &w.pages[id>>pageBits][id&pageMask]
}

// valid reports whether id names a live entry.
func (w *Wheel[V]) valid(id ID) bool {
	return id >= 0 && int32(id) < w.size && w.at(int32(id)).prev != freeEntry
}

// setCur moves cur to n, at or after it, and returns the highest level
// whose current slot changed (-1 if none). A level's slot, and its
// rotation, are computed again only when n leaves them, and one step to
// the next slot is an increment: a drain that walks the finest level
// slot by slot divides only when it enters a slot of a coarser one.
func (w *Wheel[V]) setCur(n uint64) int {
	w.cur = n
	top := -1
	for l, u := range w.unit {
		if n < w.sEnd[l] {
			break // the slots above contain this one
		}
		top = l
		if n == w.sEnd[l] && w.idx[l]+1 < w.slots[l] {
			w.idx[l]++
			w.sEnd[l] += u
			continue
		}
		if n >= w.end[l] {
			s := w.span[l]
			e := (n/s + 1) * s
			if e < n { // past 2^64: everything later fits
				e = math.MaxUint64
			}
			w.end[l] = e
		}
		start := w.end[l] - w.span[l]
		w.idx[l] = int(w.udiv[l].div(n - start))
		w.sEnd[l] = start + uint64(w.idx[l]+1)*u
	}
	return top
}

// rel returns when relative to the origin. Only deadlines after done, so
// at or after the origin, are ever made relative.
func (w *Wheel[V]) rel(when int64) uint64 { return uint64(when) - uint64(w.origin) }

// Push queues v at key (when, seq) and returns its ID. A deadline at or
// before the last PopDue's goes straight to the ready run; one beyond the
// horizon to the overflow level. O(1) but for the first (an insertion by
// key into the ready run, from its end). It panics when the wheel already
// holds 2^30-1 entries.
//
// The entry waits off the lists, hot, until the next call that reads them
// or moves time (settle): one removed before that, as a timer cancelled
// right after it was set, never touches a list.
func (w *Wheel[V]) Push(when int64, seq uint64, v V) ID {
	id := w.free
	if id == noEntry {
		id = w.grow()
	}
	e := w.at(id)
	w.free = e.next
	e.when, e.seq, e.v = when, seq, v
	e.prev = hotEntry
	w.n++
	// Settle the previous hot entry, inline and last: taking a free entry
	// changes nothing its place depends on.
	if h := w.hot; h != noEntry {
		w.place(h, w.at(h))
	}
	w.hot = id
	return ID(id)
}

// settle places the hot entry, if any, where Push would have placed it.
// Every call that reads the lists or moves time settles first, and nothing
// changes the placement in between: the levels' rotations, done and the
// origin move only after a settle, and a Remove of another entry, the one
// call that does not settle, only unlinks (the ready run stays sorted by
// key, so an entry due at once lands where it would have then).
func (w *Wheel[V]) settle() {
	if h := w.hot; h != noEntry {
		w.hot = noEntry
		w.place(h, w.at(h))
	}
}

// roomy reports whether a Push would allocate nothing: an ID is free, or
// the last arena page has room.
// freed returns how many IDs wait on the free list: handed out, not pending.
func (w *Wheel[V]) freed() int { return int(w.size) - w.n }

func (w *Wheel[V]) roomy() bool {
	return w.free != noEntry || w.size&pageMask != 0 && w.size < maxWheel
}

func (w *Wheel[V]) grow() int32 {
	if w.size >= maxWheel {
		panic("timerq.Wheel.Push: the wheel holds 2^30-1 entries")
	}
	if int(w.size)>>pageBits == len(w.pages) {
		w.pages = append(w.pages, new([1 << pageBits]wentry[V]))
	}
	id := w.size
	w.size++
	w.at(id).next = noEntry
	return id
}

// place links entry id onto the list its deadline belongs to.
func (w *Wheel[V]) place(id int32, e *wentry[V]) {
	if !w.fresh && e.when <= w.done || e.when < w.origin {
		w.readyInsert(id, e)
		return
	}
	r := w.rel(e.when)
	for l, end := range w.end {
		if r < end {
			start := end - w.span[l]
			w.link(w.off[l]+int(w.udiv[l].div(r-start)), id, e)
			return
		}
	}
	w.ovMin = min(w.ovMin, r)
	if w.heads[w.overflow] == noEntry {
		w.ovMin = r
	}
	w.link(w.overflow, id, e)
	if w.log != nil {
		w.trace("wheel: overflow", slog.Int64("when", e.when), slog.Int64("horizon-end", int64(w.end[len(w.end)-1])+w.origin))
	}
}

// link puts entry id first on list.
func (w *Wheel[V]) link(list int, id int32, e *wentry[V]) {
	h := w.heads[list]
	e.next, e.prev = h, listBase+int32(list)
	if h != noEntry {
		w.at(h).prev = id
	} else if list < w.overflow {
		w.occ[list>>6] |= 1 << (list & 63)
	}
	w.heads[list] = id
}

// unlink takes entry id off its list.
func (w *Wheel[V]) unlink(id int32, e *wentry[V]) {
	if e.next != noEntry {
		w.at(e.next).prev = e.prev
	}
	if e.prev >= 0 {
		w.at(e.prev).next = e.next
		if e.next == noEntry && id == w.readyTail {
			w.readyTail = e.prev
		}
		return
	}
	list := int(e.prev - listBase)
	w.heads[list] = e.next
	if e.next == noEntry {
		if list < w.overflow {
			w.occ[list>>6] &^= 1 << (list & 63)
		} else if list == w.ready {
			w.readyTail = noEntry
		}
	}
}

// readyInsert puts entry id into the ready run by key, searching from the
// end: a deadline of now, the usual late one, lands there at once.
func (w *Wheel[V]) readyInsert(id int32, e *wentry[V]) {
	p := w.readyTail
	for p != noEntry {
		q := w.at(p)
		if !before(e.when, e.seq, q.when, q.seq) {
			break
		}
		p = q.prev
		if p < 0 {
			p = noEntry
		}
	}
	if p == noEntry {
		w.link(w.ready, id, e)
		if e.next == noEntry {
			w.readyTail = id
		}
		return
	}
	q := w.at(p)
	e.prev, e.next = p, q.next
	if q.next != noEntry {
		w.at(q.next).prev = id
	} else {
		w.readyTail = id
	}
	q.next = id
}

// release frees entry id and returns its value.
func (w *Wheel[V]) release(id int32, e *wentry[V]) V {
	v := e.v
	var zero V
	e.v = zero
	e.prev, e.next = freeEntry, w.free
	w.free = id
	w.n--
	return v
}

// Get returns the key and value of entry id.
func (w *Wheel[V]) Get(id ID) (when int64, seq uint64, v V, ok bool) {
	if !w.valid(id) {
		return 0, 0, v, false
	}
	e := w.at(int32(id))
	return e.when, e.seq, e.v, true
}

// Remove takes entry id out at once, O(1), and returns its value; false
// if id is not pending.
func (w *Wheel[V]) Remove(id ID) (v V, ok bool) {
	if int32(id) == w.hot && id >= 0 { // live, on no list: the timer just set
		w.hot = noEntry
		return w.release(int32(id), w.at(int32(id))), true
	}
	if !w.valid(id) {
		return v, false
	}
	e := w.at(int32(id))
	w.unlink(int32(id), e)
	return w.release(int32(id), e), true
}

// RemoveSeq is Remove if entry id has the given seq, and false otherwise:
// a stale ID whose number was handed out again removes nothing.
func (w *Wheel[V]) RemoveSeq(id ID, seq uint64) (v V, ok bool) {
	if int32(id) == w.hot && id >= 0 {
		if e := w.at(int32(id)); e.seq == seq {
			w.hot = noEntry
			return w.release(int32(id), e), true
		}
		return v, false
	}
	if !w.valid(id) {
		return v, false
	}
	e := w.at(int32(id))
	if e.seq != seq {
		return v, false
	}
	w.unlink(int32(id), e)
	return w.release(int32(id), e), true
}

// Update re-keys entry id to (when, seq), keeping its ID and value.
func (w *Wheel[V]) Update(id ID, when int64, seq uint64) bool {
	if !w.valid(id) {
		return false
	}
	e := w.at(int32(id))
	if int32(id) == w.hot { // placed later, as its new key
		e.when, e.seq = when, seq
		return true
	}
	// Settled first, the hot entry keeps its place before this one among
	// equal keys in the ready run.
	w.settle()
	w.unlink(int32(id), e)
	e.when, e.seq = when, seq
	w.place(int32(id), e)
	return true
}

// PopDue takes out the entry with the smallest key among those due by upTo
// (when <= upTo), first moving the wheel to upTo. Time only moves forward:
// an upTo below an earlier one moves nothing, and what the earlier one made
// due stays due.
func (w *Wheel[V]) PopDue(upTo int64) (id ID, when int64, seq uint64, v V, ok bool) {
	w.settle()
	if w.fresh || upTo > w.done {
		w.advance(upTo)
	}
	h := w.heads[w.ready]
	if h == noEntry {
		return -1, 0, 0, v, false
	}
	e := w.at(h)
	if e.when > upTo {
		return -1, 0, 0, v, false
	}
	when, seq = e.when, e.seq
	w.unlink(h, e)
	return ID(h), when, seq, w.release(h, e), true
}

// Next returns the earliest pending deadline. It reads one slot's list (or
// the overflow level's, when the levels are empty), so a caller that sleeps
// until it should call it once per wake-up.
func (w *Wheel[V]) Next() (when int64, ok bool) {
	w.settle()
	if h := w.heads[w.ready]; h != noEntry {
		return w.at(h).when, true
	}
	list := w.firstSlot(true)
	if list < 0 {
		if w.heads[w.overflow] == noEntry {
			return 0, false
		}
		list = w.overflow
	}
	best := int64(math.MaxInt64)
	for p := w.heads[list]; p != noEntry; {
		e := w.at(p)
		best = min(best, e.when)
		p = e.next
	}
	return best, true
}

// firstSlot returns the first non-empty slot list after the current one on
// the lowest level that has one (the current finest slot included when
// withCur): the one holding the earliest entry. -1 if the levels are empty.
func (w *Wheel[V]) firstSlot(withCur bool) int {
	for l := range w.slots {
		i := w.idx[l]
		if l > 0 || !withCur {
			i++
		}
		if j := w.nextOcc(w.off[l]+i, w.off[l]+w.slots[l]); j >= 0 {
			return j
		}
	}
	return -1
}

// nextOcc returns the first occupied slot list in [from, to), or -1.
func (w *Wheel[V]) nextOcc(from, to int) int {
	for from < to {
		word := w.occ[from>>6] >> (from & 63)
		if word != 0 {
			j := from + bits.TrailingZeros64(word)
			if j < to {
				return j
			}
			return -1
		}
		from = (from | 63) + 1
	}
	return -1
}

// slotStart returns the relative start of list, a slot after the current
// one on its level.
func (w *Wheel[V]) slotStart(list int) uint64 {
	l := len(w.off) - 1
	for w.off[l] > list {
		l--
	}
	return w.end[l] - w.span[l] + uint64(list-w.off[l])*w.unit[l]
}

// advance moves every entry due by upTo into the ready run, in key order,
// and the wheel's time to upTo.
func (w *Wheel[V]) advance(upTo int64) {
	w.fresh = false
	if upTo < w.origin {
		w.done = upTo
		return
	}
	u := w.rel(upTo)
	last := u - u%w.unit[0] // the finest slot upTo falls in
	w.scratch = w.scratch[:0]
	for {
		w.take(w.idx[0], u)
		if w.cur == last {
			break
		}
		n := last
		if j := w.firstSlot(false); j >= 0 {
			n = min(n, w.slotStart(j))
		} else if w.heads[w.overflow] != noEntry {
			m := w.overflowMin()
			n = min(n, m-m%w.span[len(w.span)-1])
		}
		w.moveTo(max(n, w.cur+w.unit[0]), u)
	}
	w.done = upTo
	if len(w.scratch) == 0 {
		return
	}
	// Everything taken is later than everything already ready.
	for _, k := range w.scratch {
		e := w.at(k.id)
		if t := w.readyTail; t == noEntry {
			w.link(w.ready, k.id, e)
		} else {
			e.prev, e.next = t, noEntry
			w.at(t).next = k.id
		}
		w.readyTail = k.id
	}
}

// take moves the entries of finest slot i due by u into scratch.
func (w *Wheel[V]) take(i int, u uint64) {
	list := w.off[0] + i
	from := len(w.scratch)
	for p := w.heads[list]; p != noEntry; {
		e := w.at(p)
		next := e.next
		if w.rel(e.when) <= u {
			w.unlink(p, e)
			w.scratch = append(w.scratch, wkey{e.when, e.seq, p})
		}
		p = next
	}
	sortKeys(w.scratch[from:]) // slots come in order: sort each alone
}

// cmpKey compares key (w1, s1) with key (w2, s2).
func cmpKey(w1 int64, s1 uint64, w2 int64, s2 uint64) int {
	switch {
	case before(w1, s1, w2, s2):
		return -1
	case before(w2, s2, w1, s1):
		return 1
	}
	return 0
}

// sortKeys sorts a slot's due entries by key: a quicksort (median of
// three) down to runs of 16, finished by insertion, with the comparisons
// inline; a slot of a coarse level taken whole holds hundreds.
func sortKeys(s []wkey) {
	for len(s) > 16 {
		m := len(s) / 2
		if s[m].less(s[0]) {
			s[0], s[m] = s[m], s[0]
		}
		if s[len(s)-1].less(s[m]) {
			s[m], s[len(s)-1] = s[len(s)-1], s[m]
			if s[m].less(s[0]) {
				s[0], s[m] = s[m], s[0]
			}
		}
		p := s[m]
		i, j := 0, len(s)-1
		for i <= j {
			for s[i].less(p) {
				i++
			}
			for p.less(s[j]) {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		// Recurse into the smaller side, loop on the larger.
		if j+1 < len(s)-i {
			sortKeys(s[:j+1])
			s = s[i:]
		} else {
			sortKeys(s[i:])
			s = s[:j+1]
		}
	}
	for i := 1; i < len(s); i++ {
		k := s[i]
		j := i
		for ; j > 0 && k.less(s[j-1]); j-- {
			s[j] = s[j-1]
		}
		s[j] = k
	}
}

func (a wkey) less(b wkey) bool {
	return a.when < b.when || a.when == b.when && a.seq < b.seq
}

// overflowMin returns the earliest relative deadline on the overflow level,
// which must not be empty. ovMin is a lower bound (a Remove leaves it);
// below the top level's end it is stale, and the list is read again.
func (w *Wheel[V]) overflowMin() uint64 {
	if w.ovMin < w.end[len(w.end)-1] {
		w.ovMin = math.MaxUint64
		for p := w.heads[w.overflow]; p != noEntry; {
			e := w.at(p)
			w.ovMin = min(w.ovMin, w.rel(e.when))
			p = e.next
		}
	}
	return w.ovMin
}

// moveTo moves the current time forward to n, a finest slot's start, with
// no pending entry in between: entries of the slots n enters on the upper
// levels (and of the overflow level, when n enters a new rotation of the
// top) are placed again, top level first, each straight onto its level.
// When the highest slot entered is due by u as a whole, and nothing was
// placed below it first, its entries go straight to scratch instead: the
// levels below hold nothing of its span, and a long drain moves each
// entry down fewer times.
func (w *Wheel[V]) moveTo(n, u uint64) {
	top := len(w.span) - 1
	newRotation := n >= w.end[top]
	crossed := w.setCur(n)
	refilled := false
	if newRotation && w.heads[w.overflow] != noEntry && w.ovMin < w.end[top] {
		w.refill()
		refilled = true
	}
	for l := crossed; l >= 1; l-- {
		list := w.off[l] + w.idx[l]
		if l == crossed && !refilled && w.sEnd[l]-1 <= u {
			w.takeAll(list)
			return
		}
		w.cascade(list)
	}
}

// takeAll moves every entry of list into scratch, sorted.
func (w *Wheel[V]) takeAll(list int) {
	p := w.heads[list]
	if p == noEntry {
		return
	}
	w.heads[list] = noEntry
	w.occ[list>>6] &^= 1 << (list & 63)
	from := len(w.scratch)
	for p != noEntry {
		e := w.at(p)
		w.scratch = append(w.scratch, wkey{e.when, e.seq, p})
		p = e.next
	}
	sortKeys(w.scratch[from:])
}

// cascade places the entries of list again, relative to the current time.
func (w *Wheel[V]) cascade(list int) {
	p := w.heads[list]
	if p == noEntry {
		return
	}
	w.heads[list] = noEntry
	w.occ[list>>6] &^= 1 << (list & 63)
	for p != noEntry {
		e := w.at(p)
		next := e.next
		w.place(p, e)
		p = next
	}
}

// refill brings the overflow entries that the top level now covers back
// onto the levels, and recomputes the earliest of those that stay.
func (w *Wheel[V]) refill() {
	p := w.heads[w.overflow]
	w.heads[w.overflow] = noEntry
	back, stay := 0, 0
	w.ovMin = math.MaxUint64
	for p != noEntry {
		e := w.at(p)
		next := e.next
		if w.rel(e.when) < w.end[len(w.end)-1] {
			back++
		} else {
			stay++
		}
		w.place(p, e)
		p = next
	}
	if w.log != nil {
		w.trace("wheel: refill from overflow", slog.Int("back", back), slog.Int("stay", stay))
	}
}

func (w *Wheel[V]) trace(msg string, attrs ...slog.Attr) {
	w.log.LogAttrs(context.Background(), slog.LevelDebug, msg, attrs...)
}

// Each calls fn for every pending entry, in no particular order, until fn
// returns false. fn must not change the wheel.
func (w *Wheel[V]) Each(fn func(id ID, when int64, seq uint64, v V) bool) {
	for id := int32(0); id < w.size; id++ {
		if e := w.at(id); e.prev != freeEntry {
			if !fn(ID(id), e.when, e.seq, e.v) {
				return
			}
		}
	}
}

// Clear removes every entry.
func (w *Wheel[V]) Clear() {
	for id := int32(0); id < w.size; id++ {
		if e := w.at(id); e.prev != freeEntry {
			w.release(id, e)
		}
	}
	for i := range w.heads {
		w.heads[i] = noEntry
	}
	clear(w.occ)
	w.readyTail, w.hot = noEntry, noEntry
}

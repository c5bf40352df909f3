package timerq

import (
	"context"
	"log/slog"
	"math"
	"slices"
)

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

package timerq

import "math"

// What a scheduler needs of its queue beyond Push, Remove and Update: the
// smallest pending entry (Peek, Pop), and a pass over what is due by a
// target that also sees entries pushed or re-keyed during the pass
// (Drain), as the heap offers them.
//
// The wheel's ready run holds, in key order, every entry due by done, and
// only those; Push and Update put an entry due by done straight into it,
// by key. So the run's head is the wheel's smallest entry whenever the run
// is not empty, and moving time forward never changes which entry is
// smallest, only where it waits. When the run is empty, step moves time to
// the end of the finest level's rotation that holds the earliest deadline,
// no further: a drain that re-keys intervals by their period then puts
// them back on the levels in O(1), where moving at once to a far target
// would make each of them an insertion by key into a long run.

// Peek returns the entry with the smallest key, leaving it pending. ok is
// false, and the other results are zero, if the wheel is empty. When
// nothing is in the ready run it moves the wheel's time to the end of the
// finest level's rotation that holds the earliest deadline (see step).
func (w *Wheel[V]) Peek() (id ID, when int64, seq uint64, v V, ok bool) {
	w.settle()
	h := w.heads[w.ready]
	if h == noEntry {
		if h = w.step(math.MaxInt64); h == noEntry {
			return 0, 0, 0, v, false
		}
	}
	e := w.at(h)
	return ID(h), e.when, e.seq, e.v, true
}

// Pop removes and returns the entry with the smallest key, the one Peek
// returns, and releases its ID. ok is false, and the other results are
// zero, if the wheel is empty.
func (w *Wheel[V]) Pop() (id ID, when int64, seq uint64, v V, ok bool) {
	w.settle()
	h := w.heads[w.ready]
	if h == noEntry {
		if h = w.step(math.MaxInt64); h == noEntry {
			return 0, 0, 0, v, false
		}
	}
	e := w.at(h)
	when, seq = e.when, e.seq
	w.unlink(h, e)
	return ID(h), when, seq, w.release(h, e), true
}

// step moves time to upTo or, if that is later, to the end of the finest
// level's rotation (one slot of the level above: 50 ms by default) that
// holds the earliest pending deadline, until the ready run has an entry,
// and returns the run's head; noEntry if nothing is due by upTo. The run
// must be empty. A rotation at a time keeps the run short, so an interval
// re-keyed into it during a drain is inserted after few entries, while a
// drain of sparse intervals still moves time once for many fires.
func (w *Wheel[V]) step(upTo int64) int32 {
	if upTo < w.origin {
		return noEntry // the entries before the origin are in the run
	}
	limit := uint64(upTo) - uint64(w.origin) // upTo, relative
	for {
		// from is at or before the earliest pending deadline (relative).
		var from uint64
		if j := w.firstSlot(true); j >= 0 {
			from = w.slotStart(j)
		} else if w.heads[w.overflow] != noEntry {
			from = w.overflowMin()
		} else {
			return noEntry
		}
		if !w.fresh && w.done >= w.origin {
			from = max(from, w.rel(w.done)+1) // the run is empty: nothing is due by done
		}
		if from > limit {
			return noEntry
		}
		span := w.span[0]
		x := limit
		if e := from - from%span + span; e > from {
			x = min(x, e-1)
		}
		w.advance(w.origin + int64(x))
		if h := w.heads[w.ready]; h != noEntry || x == limit {
			return h
		}
	}
}

// WheelDrain is a pass over a wheel's entries due by a deadline, smallest
// key first, for a caller that takes each one out (Pop, Remove, or Update
// to a later key) before it asks for the next: the wheel's counterpart of
// [Drain].
type WheelDrain[V any] struct {
	w    *Wheel[V]
	upTo int64
}

// Drain starts a pass over the entries with when <= upTo. Entries pushed
// or re-keyed during the pass take part in it if they are due by upTo.
// Time moves a finest level's rotation at a time as the pass goes, never
// past upTo.
func (w *Wheel[V]) Drain(upTo int64) WheelDrain[V] { return WheelDrain[V]{w, upTo} }

// Peek returns the entry with the smallest key if it is due (when <=
// upTo), leaving it pending. ok is false, and the other results are zero,
// if nothing pending is due.
func (d *WheelDrain[V]) Peek() (id ID, when int64, seq uint64, v V, ok bool) {
	w := d.w
	w.settle()
	h := w.heads[w.ready]
	if h == noEntry {
		if h = w.step(d.upTo); h == noEntry {
			return 0, 0, 0, v, false
		}
	}
	if e := w.at(h); e.when <= d.upTo {
		return ID(h), e.when, e.seq, e.v, true
	}
	return 0, 0, 0, v, false
}

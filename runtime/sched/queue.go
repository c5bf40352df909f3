package sched

import (
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/runtime/wheel"
)

// queue is the scheduler's deadline queue: the 4-ary heap, or the timer
// wheel when w is set (the package's tests run on both). Both are exact (deadline, seq) queues
// that hand out dense IDs, so the scheduler cannot tell them apart; each
// method is the heap's, with one predictable branch in front.
//
// A wrapper costs the heap a call where its method inlined or was called
// directly, so the hot paths (ScheduleOnce, Handle.stop, the drain, a
// one-shot's Pop, an interval's re-key) use q.h and q.w themselves. Where
// the heap's method reports a miss, they call it first and ask the wheel
// only on a miss: on the wheel the heap is empty and always misses, and on
// the heap the test of its own result is all the choice costs.
type queue struct {
	h timerq.Heap[ref]
	w *timerq.Wheel[ref]
}

func (q *queue) Len() int {
	if q.w != nil {
		return q.w.Len()
	}
	return q.h.Len()
}

func (q *queue) Push(when int64, seq uint64, v ref) timerq.ID {
	if q.w != nil {
		return q.w.Push(when, seq, v)
	}
	return q.h.Push(when, seq, v)
}

func (q *queue) Peek() (id timerq.ID, when int64, seq uint64, v ref, ok bool) {
	if q.w != nil {
		return q.w.Peek()
	}
	return q.h.Peek()
}

func (q *queue) Pop() (id timerq.ID, when int64, seq uint64, v ref, ok bool) {
	if q.w != nil {
		return q.w.Pop()
	}
	return q.h.Pop()
}

func (q *queue) Get(id timerq.ID) (when int64, seq uint64, v ref, ok bool) {
	if q.w != nil {
		return q.w.Get(id)
	}
	return q.h.Get(id)
}

func (q *queue) Remove(id timerq.ID) (v ref, ok bool) {
	if q.w != nil {
		return q.w.Remove(id)
	}
	return q.h.Remove(id)
}

func (q *queue) RemoveSeq(id timerq.ID, seq uint64) (v ref, ok bool) {
	if q.w != nil {
		return q.w.RemoveSeq(id, seq)
	}
	return q.h.RemoveSeq(id, seq)
}

func (q *queue) Update(id timerq.ID, when int64, seq uint64) bool {
	if q.w != nil {
		return q.w.Update(id, when, seq)
	}
	return q.h.Update(id, when, seq)
}

func (q *queue) Each(fn func(id timerq.ID, when int64, seq uint64, v ref) bool) {
	if q.w != nil {
		q.w.Each(fn)
		return
	}
	q.h.Each(fn)
}

func (q *queue) Clear() {
	if q.w != nil {
		q.w.Clear()
		return
	}
	q.h.Clear()
}

// newOnWheel makes New put every scheduler on the default wheel: the
// package's tests set it to run the whole suite on both queues, which
// must behave the same to the order of every fire and every report.
var newOnWheel bool

// newWheel returns an empty wheel of geometry g starting at the epoch.
func newWheel(g wheel.Geometry) (*timerq.Wheel[ref], error) {
	return timerq.NewWheel[ref](timerq.Geometry{Tick: int64(g.Tick), Slots: g.Slots}, 0)
}

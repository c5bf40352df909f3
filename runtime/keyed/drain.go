package keyed

import (
	"unsafe"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
)

// collect takes back the records the workers gave back and the batches
// they finished. s.mu held.
func (s *Scheduler) collect(now int64) {
	for w := range s.given {
		for t := s.given[w].top.Swap(nil); t != nil; {
			next := t.next
			t.next = nil
			s.returned(t, now)
			t = next
		}
	}
	kept := s.pending[:0]
	for _, b := range s.pending {
		if !b.counted {
			if b.left.Load() != 0 {
				kept = append(kept, b)
				continue
			}
			s.inflight -= b.n
			b.counted = true
		}
		if b.holders.Load() != 0 {
			kept = append(kept, b)
			continue
		}
		clear(b.ts[:b.n])
		s.spare = append(s.spare, b)
	}
	clear(s.pending[len(kept):])
	s.pending = kept
}

// returned takes t back from the pool: a cleanup that ran, a cancelled
// tick, or a tick whose worker is done with it, which is admitted again.
// s.mu held.
func (s *Scheduler) returned(t *Timer, now int64) {
	if t.job == jobCleanup {
		t.where = gone
		return
	}
	t.where = nowhere
	if t.state.Load()&stCancelled != 0 {
		s.finishCancel(t)
		s.unblock(t, now)
		return
	}
	if t.hasResume {
		t.cad.Resume(t.resumeAt)
		t.hasResume = false
	}
	t.state.Store(0)
	s.admit(t, now)
}

// unblock lets the key's current generation tick once the older one, t,
// is back from the pool. s.mu held.
func (s *Scheduler) unblock(t *Timer, now int64) {
	sl := t.slot
	if sl.oldRunning != t {
		return
	}
	sl.oldRunning = nil
	if c := sl.cur; c != nil && c.waitOld {
		c.waitOld = false
		if c.where == inBlocked {
			c.where = nowhere
			s.admit(c, now)
		}
	}
}

// landed reports whether the in-flight tick t is back and not given back:
// its worker is done with it and left it to the scheduler. If not, its
// worker gives it back. s.mu held.
func landed(t *Timer) bool {
	st := t.state.Load()
	if st&stDone == 0 {
		st = t.state.Or(stWanted) // the worker gives it back when done
	}
	// Wanted before it was done, here or by a catch-up in admit: given
	// back, and taken back from the worker's stack, not here.
	return st&(stDone|stWanted) == stDone
}

// drain admits every timer due by now. Each is re-keyed past now: to its
// next tick, to its likely next tick while in flight, or to Never while it
// waits elsewhere. A tick back from the pool stays keyed at its likely
// next tick and is taken back here when that comes due, so the scheduler
// touches a timer once per tick. s.mu held.
func (s *Scheduler) drain(now int64) {
	d := s.q.Drain(now)
	var back [prefetchAhead]timerq.ID // the entries drained last, by i mod prefetchAhead
	for i := 0; ; i++ {
		id, _, _, t, ok := d.Peek()
		if !ok {
			return
		}
		s.prefetchAfter(id, t, &back[i%prefetchAhead], i >= prefetchAhead)
		if t.where == inFlight {
			if landed(t) {
				s.returned(t, now)
			} else { // a handler overran its likely next tick
				s.hold(t, inFlight)
			}
			continue
		}
		t.where = nowhere
		s.admit(t, now)
	}
}

// due reports whether a queued entry is due by now. s.mu held.
func (s *Scheduler) due(now int64) bool {
	_, w, _, _, ok := s.q.Peek()
	return ok && w <= now
}

// Timers that come due together usually come due together again, in the
// same order, so each drain notes which timer came prefetchAhead places
// after each entry, and fetches that one's first two cache lines while it
// works on the entry: without it the timers are read one cache miss after
// another, the drain's largest cost.
const prefetchAhead = 8

// prefetchAfter prefetches the timer that came prefetchAhead places after
// id in an earlier drain, and notes t as the one after the entry drained
// prefetchAhead places before it, in *slot. The note is an address only:
// a stale one, after a cancel or a change of order, costs a useless
// prefetch. s.mu held.
func (s *Scheduler) prefetchAfter(id timerq.ID, t *Timer, slot *timerq.ID, full bool) {
	if int(id) < len(s.ahead) {
		if a := s.ahead[id]; a != 0 {
			prefetch(a)
		}
	}
	if full {
		b := int(*slot)
		if b >= len(s.ahead) {
			s.ahead = append(s.ahead, make([]uintptr, b+1-len(s.ahead))...)
		}
		s.ahead[b] = uintptr(unsafe.Pointer(t))
	}
	*slot = id
}

// retry offers the retained ticks to the gate again, oldest first.
func (s *Scheduler) retry(now int64) {
	if len(s.retained) == 0 {
		return
	}
	r := s.retained
	s.retained = nil
	for _, t := range r {
		if t.where == inRetained {
			t.where = nowhere
			s.admit(t, now)
		}
	}
}

// admit decides what happens to t (not cancelled, not in flight) at now:
// queued for its next tick, blocked behind its key's running callback,
// parked while its owner's authority lapsed, retained by the gate, or put
// in the next batch. s.mu held.
func (s *Scheduler) admit(t *Timer, now int64) {
	if t.cad.Due() > now {
		s.queue(t)
		return
	}
	if t.waitOld {
		s.hold(t, inBlocked)
		return
	}
	o := t.owner
	l, ok := o.check(now)
	if !ok {
		s.hold(t, inParked)
		t.idx = len(o.parked)
		o.parked = append(o.parked, t)
		return
	}
	if t.cad.Due() > now { // check resumed the owner's timers
		s.queue(t)
		return
	}
	if s.gate != nil && !s.gate.Acquire(t) {
		s.hold(t, inRetained)
		s.retained = append(s.retained, t)
		return
	}
	t.fence, t.job, t.where = l.Fence, jobTick, inFlight
	// The entry waits at the tick that most likely comes next, so that a
	// handler that ends in time costs no re-key.
	c := t.cad
	c.Take(now)
	if next := c.Due(); next > now {
		s.rekey(t, next)
	} else {
		// More is due already (a catch-up): the worker gives it back
		// rather than leave it to the queue.
		s.rekey(t, now+1)
		t.state.Store(stWanted)
	}
	s.emit(t)
}

// queue keys t's entry at its next tick. Every generation keeps one entry
// in the queue from Register to its cancel. s.mu held.
func (s *Scheduler) queue(t *Timer) {
	s.rekey(t, t.cad.Due())
	t.where = inQueue
}

// rekey keys t's entry at at; the queue does nothing for the same key.
// s.mu held.
func (s *Scheduler) rekey(t *Timer, at int64) { s.q.Update(t.hid, at, t.seq) }

// hold keys t's entry at Never while it waits at where. s.mu held.
func (s *Scheduler) hold(t *Timer, where place) {
	s.rekey(t, cadence.Never)
	t.where = where
}

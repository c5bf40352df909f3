package loop

import (
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// The test-clock verbs: what a test reaches for to move a virtual clock,
// each a Run over the host with the clock left where the verb says.

// Advance runs everything due up to now+d and leaves a virtual clock at
// now+d (unless the run stopped early: at the loop limit, say). d < 0 is 0.
func Advance(h LoopHost, d temporal.Duration) error {
	s := h.Scheduler()
	target := s.clock.now + max(d, 0)
	if d > Never-1-s.clock.now {
		target = Never - 1
	}
	return runTo(h, target)
}

// runTo runs until target and leaves a virtual clock there unless the run
// ended with an error or its host closed it.
func runTo(h LoopHost, target temporal.Duration) error {
	s := h.Scheduler()
	if err := Run(h, target); err != nil {
		return err
	}
	if !h.Closing() {
		s.clock.advanceTo(target)
	}
	return nil
}

// Next runs one item: the oldest queued task, else the earliest timer or
// the frame (all its callbacks), moving a virtual clock to it. It reports
// false when nothing is pending; sources are left for Run. On a real clock
// it returns ErrRealClock.
func Next(h LoopHost) (bool, error) {
	s := h.Scheduler()
	if s.clock.real {
		return false, ErrRealClock
	}
	if s.inRun {
		return false, ErrReentrant
	}
	if s.over {
		return false, ErrLoopLimit
	}
	s.inRun = true
	defer func() { s.inRun = false }()
	if s.TasksPending() > 0 {
		if s.limit > 0 && !s.admit() {
			return false, ErrLoopLimit
		}
		f := s.tasks[s.head]
		s.tasks[s.head] = nil
		s.head++
		f()
		endTask(h)
	} else {
		at, kind := Never, itemNone
		if _, when, _, _, ok := s.timers.Peek(); ok {
			at, kind = temporal.Duration(when), itemTimer
		}
		if f, ok := s.frameDue(); ok && f < at {
			at, kind = f, itemFrame
		}
		switch kind {
		case itemTimer:
			s.clock.advanceTo(at)
			s.runTimer(h)
		case itemFrame:
			s.clock.advanceTo(at)
			h.UpdateRendering(at)
		default:
			return false, nil
		}
	}
	if s.over {
		return true, ErrLoopLimit
	}
	return true, nil
}

// Jump models a host that was asleep for d: a virtual clock moves to now+d
// first, then every timer due on the way fires once, late, at the new now,
// in (due, sequence) order, with what is due at that instant; an interval
// repeats from there. A frame due on the way runs once, given its own
// frame time. On a real clock it returns ErrRealClock.
func Jump(h LoopHost, d temporal.Duration) error {
	s := h.Scheduler()
	if s.clock.real {
		return ErrRealClock
	}
	if s.inRun {
		return ErrReentrant
	}
	s.clock.advance(d)
	now := s.clock.now
	var late []timerq.ID
	s.timers.Each(func(q timerq.ID, when int64, _ uint64, _ int32) bool {
		if temporal.Duration(when) < now {
			late = append(late, q)
		}
		return true
	})
	for _, q := range late { // the same sequence: their order stays
		_, seq, _, _ := s.timers.Get(q)
		s.timers.Update(q, int64(now), seq)
	}
	return Run(h, now)
}

// nextFrame returns the first animation frame time after t.
func nextFrame(t temporal.Duration) temporal.Duration {
	if t >= Never-FramePeriod {
		return Never - 1
	}
	return (t/FramePeriod + 1) * FramePeriod
}

// RunToFrame runs everything due up to the next animation frame time after
// now, that frame included, and leaves a virtual clock there.
func RunToFrame(h LoopHost) error {
	return runTo(h, nextFrame(h.Scheduler().clock.now))
}

// RunToLast runs up to the latest timer or frame pending when it is called
// (work set meanwhile beyond it stays pending) and leaves a virtual clock
// there; with nothing pending it runs what is due now.
func RunToLast(h LoopHost) error {
	s := h.Scheduler()
	last, ok := s.lastTimer()
	if f, framed := s.frameDue(); framed && (!ok || f > last) {
		last, ok = f, true
	}
	if !ok || last < s.Now() {
		last = s.Now()
	}
	return runTo(h, last)
}

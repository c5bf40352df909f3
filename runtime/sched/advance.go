package sched

import (
	"fmt"

	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// maxRejections bounds how many rejected local times in a row a recurrence
// skips while looking for its next occurrence (a rule whose every time falls
// in a DST gap would otherwise spin forever).
const maxRejections = 10_000

// Advance runs every job due at or before Now()+d, in (deadline, creation)
// order, then sets Now() to Now()+d. Work that callbacks schedule inside the
// window runs in the same call. d must be >= 0. To run what is due at the
// earliest deadline, advance by the time to NextDeadline.
//
// A callback error stops the drain: Advance returns it in a *JobError and
// Now() stays at that job's deadline; nothing pending is lost or run twice.
// Given a report function (at most one), Advance reports and goes on
// instead: each callback error is handed to report, in a *JobError, at the
// failing job's deadline (Now() is that deadline while report runs), and
// the drain goes on with the next due job, so every other due job runs, in
// order, and Now() ends at Now()+d. A repeating job was re-queued before
// its callback ran: a failing interval keeps its grid and fires again.
// report runs as a callback does: scheduling from it is allowed (and
// counts toward the loop limit), moving this scheduler's time is
// ErrReentrant. A non-nil error from report stops the drain as a callback
// error does, and Advance returns it as report returned it. The guards of
// one call still stop it: a *LoopError is returned, not reported.
//
// Advance from inside one of this scheduler's callbacks returns a
// *CallError wrapping ErrReentrant.
func (s *Scheduler) Advance(d temporal.Duration, report ...func(*JobError) error) error {
	const name = "Advance"
	if err := s.enter(name); err != nil {
		return err
	}
	defer s.leave()
	switch len(report) {
	case 0:
	case 1:
		s.report = report[0]
	default:
		return &temporal.OptionError{Method: name, Param: "report", Want: "at most one function", Got: len(report)}
	}
	if d < 0 {
		return &temporal.OptionError{Method: name, Param: "d", Want: "a duration >= 0", Got: d}
	}
	target, err := s.deadline(name, "d", d)
	if err != nil {
		return err
	}
	return s.drain(target, false)
}

// reported hands a callback's error to the current call's report, if it
// has one, and returns what stops the drain: err itself without a report or
// when the loop guard tripped, else report's own error.
func (s *Scheduler) reported(err error) error {
	je, ok := err.(*JobError)
	if s.report == nil || s.loopErr != nil || !ok {
		return err
	}
	return s.report(je)
}

// RunAll runs jobs deadline by deadline until nothing is pending, leaving
// Now() at the last deadline that fired. It runs at most maxFires
// callbacks: it fails with a *RunLimitError, with the callbacks so far run,
// when one more would run, so it fails while an interval is active.
// maxFires must be >= 1.
func (s *Scheduler) RunAll(maxFires int) error {
	if err := s.enter("RunAll"); err != nil {
		return err
	}
	defer s.leave()
	if maxFires < 1 {
		return &temporal.OptionError{Method: "RunAll", Param: "maxFires", Want: "an integer >= 1", Got: maxFires}
	}
	s.fireLimit, s.limitBy = maxFires, "RunAll"
	for {
		_, when, _, _, ok := s.q.Peek()
		if !ok || s.dropped {
			return nil
		}
		if err := s.drain(when, false); err != nil {
			return err
		}
	}
}

// RunToLast advances to the latest deadline pending when it is called,
// running everything due up to it (work scheduled meanwhile beyond it stays
// pending). With nothing pending it does nothing. Like RunAll it runs at
// most maxFires callbacks, and fails with a *RunLimitError naming the next
// job when one more would run: an interval far shorter than the way to the
// last deadline. maxFires must be >= 1.
func (s *Scheduler) RunToLast(maxFires int) error {
	if err := s.enter("RunToLast"); err != nil {
		return err
	}
	defer s.leave()
	if maxFires < 1 {
		return &temporal.OptionError{Method: "RunToLast", Param: "maxFires", Want: "an integer >= 1", Got: maxFires}
	}
	last, any := int64(0), false
	s.q.Each(func(_ timerq.ID, when int64, _ uint64, _ ref) bool {
		last, any = max(last, when), true
		return true
	})
	if !any {
		return nil
	}
	s.fireLimit, s.limitBy = maxFires, "RunToLast"
	return s.drain(max(last, s.now), false)
}

// Jump models a host that was suspended for d: Now() moves to Now()+d first,
// then each due job runs once, at that instant, in (deadline, creation)
// order. An interval stays on its grid (every 10ms from 0, Jump(35ms): one
// fire at 35, next at 40); a recurrence fires once and resumes with its
// first occurrence after the new Now().
func (s *Scheduler) Jump(d temporal.Duration) error {
	if err := s.enter("Jump"); err != nil {
		return err
	}
	defer s.leave()
	if d < 0 {
		return &temporal.OptionError{Method: "Jump", Param: "d", Want: "a duration >= 0", Got: d}
	}
	target, err := s.deadline("Jump", "d", d)
	if err != nil {
		return err
	}
	s.now = target
	return s.drain(target, true)
}

func (s *Scheduler) enter(name string) error {
	if s.dropped {
		return droppedError(name)
	}
	if s.running {
		return &CallError{Method: name, Err: ErrReentrant}
	}
	s.running = true
	s.call++
	s.loopErr = nil
	s.fireLimit, s.fires = 0, 0
	return nil
}

func (s *Scheduler) leave() {
	s.running = false
	s.inJob = false
	s.report = nil
}

// drain runs jobs due at or before target. In jump mode every job runs at
// target; otherwise Now() follows each job's deadline. The queue's Drain
// decides whether sorting what is due pays in a long drain. On the wheel
// the heap is empty and its pass finds nothing; on the heap, asking for
// the wheel only when the heap's pass ends costs it nothing per fire (see
// queue).
func (s *Scheduler) drain(target int64, jump bool) error {
	due := s.q.h.Drain(target)
	for !s.dropped {
		id, when, key, p, ok := due.Peek()
		if !ok && s.q.w != nil {
			wdue := s.q.w.Drain(target) // a wheel's pass keeps no state of its own
			id, when, key, p, ok = wdue.Peek()
		}
		if !ok {
			break
		}
		if s.fireLimit > 0 && s.fires >= s.fireLimit {
			return &RunLimitError{MaxFires: s.fireLimit, Method: s.limitBy, Next: extOf(key, p).job(key)}
		}
		if !jump {
			s.now = when
		}
		s.fires++
		if err := s.fire(id, when, key, p, jump, target); err != nil {
			if err = s.reported(err); err != nil {
				return err
			}
		}
		if s.loopErr != nil {
			return s.loopErr
		}
	}
	if !s.dropped {
		s.now = target
	}
	return nil
}

// fire runs the job at the top of the queue. A one-shot leaves the queue; a
// repeating job is re-keyed in place (one sift instead of a pop and a push)
// before its callback runs, so a callback can cancel it and an error loses
// nothing.
func (s *Scheduler) fire(id timerq.ID, when int64, key uint64, p ref, jump bool, target int64) error {
	tag := key & tagMask
	s.inJob, s.curKey = true, key
	if tag == tagOnce {
		// The common case, kept short: no extension, nothing to load.
		s.curExt = nil
		if _, _, _, _, ok := s.q.h.Pop(); !ok {
			s.q.w.Pop() // on the wheel (see queue)
		}
		if s.observer != nil {
			s.observe(key, nil, 0)
		}
		if err := refFunc(p)(); err != nil {
			return &JobError{Job: JobInfo{ID: key >> tagBits, Kind: KindOnce}, Err: err}
		}
		return nil
	}
	if tag == tagTimer {
		return s.fireTimer(id, when, key, (*timer)(p))
	}
	if tag >= tagSpawn {
		// Spawned tasks and restored catch-ups: one compare on the way to
		// the intervals below.
		if tag == tagSpawn {
			return s.fireTask(id, (*task)(p))
		}
		return s.fireLate(id, when, key, refExt(p), jump, target)
	}
	ext := refExt(p)
	s.curExt = ext
	var err error
	switch tag {
	case tagOnceExt:
		fn := s.fns[id].fn
		s.q.Pop()
		s.extDone = true
		s.observe(key, ext, 0)
		err = fn()
	case tagEvery:
		j := s.fns[id]
		if next, ok := nextTick(when, j.interval, jump, target, s.maxAt); ok {
			if !s.q.h.Update(id, next, key) {
				s.q.w.Update(id, next, key) // on the wheel (see queue)
			}
		} else {
			s.q.Remove(id) // the next tick is past the end of representable time
			s.extDone = true
		}
		if s.observer != nil {
			s.observe(key, ext, 0)
		}
		err = j.fn()
	case tagEveryCount:
		// An interval with a count, apart from the hot tagEvery path above.
		// The last fire takes the job out before its callback.
		j := s.fns[id]
		ext.left--
		if next, ok := nextTick(when, j.interval, jump, target, s.maxAt); ok && ext.left > 0 {
			s.q.Update(id, next, key)
		} else {
			s.q.Remove(id)
			s.extDone = true
		}
		s.observe(key, ext, 0)
		err = j.fn()
	case tagRecurrence:
		err = s.fireRecurrence(id, key, ext, jump, target)
	}
	if err != nil {
		err = &JobError{Job: ext.job(key), Err: err}
	}
	if s.extDone {
		// The job left the queue, before or during its callback. Its queue
		// ID may already belong to a job the callback scheduled.
		s.extDone = false
		if _, _, _, queued := s.q.Get(id); !queued && int(id) < len(s.fns) {
			s.fns[id] = jobFn{}
		}
		s.freeExt(ext)
	}
	return err
}

// nextTick returns an interval's next deadline after the tick at when: one
// period later, or in jump mode the first tick after target. ok is false if
// that deadline is past last, the last deadline whose instant fits int64
// nanoseconds (when <= last).
func nextTick(when, iv int64, jump bool, target, last int64) (next int64, ok bool) {
	if !jump || target < when {
		// One period: every fire of a drain, so no division.
		if when > last-iv {
			return 0, false
		}
		return when + iv, true
	}
	steps := (target-when)/iv + 1
	if steps > (last-when)/iv {
		return 0, false
	}
	return when + steps*iv, true
}

func (s *Scheduler) fireRecurrence(id timerq.ID, key uint64, ext *jobExt, jump bool, target int64) error {
	r := ext.rec
	r.fired++
	occAt, occIndex := r.nextAt, r.fired
	var nextErr error
	queued := false
	if r.limit == 0 || r.fired < r.limit {
		if jump {
			r.it.Seek(temporal.FromUnixNano(s.epoch.UnixNano() + target + 1))
		}
		for tries := 0; ; tries++ {
			if tries == maxRejections {
				nextErr = fmt.Errorf("%w (and %d more rejected local times in a row; the recurrence ends)", nextErr, maxRejections-1)
				break
			}
			at, ok, e := r.it.Next()
			if e != nil {
				if nextErr == nil {
					nextErr = e
				}
				continue
			}
			if ok {
				if d, err := at.Sub(s.epoch); err == nil {
					r.nextAt = at
					s.q.Update(id, int64(d), key)
					queued = true
				}
			}
			break
		}
	}
	fn := r.fn
	if !queued {
		s.q.Remove(id)
		s.extDone = true
	}
	s.observe(key, ext, occIndex)
	if err := fn(occAt, occIndex); err != nil {
		return err
	}
	return nextErr
}

func (s *Scheduler) observe(key uint64, ext *jobExt, idx int) {
	if s.observer != nil {
		j := ext.job(key)
		s.observer(Fire{At: s.Now(), ID: j.ID, Kind: j.Kind, Label: j.Label, Name: j.Name, ScheduledIndex: idx})
	}
}

package sched

import (
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// TaskFunc is a spawned task's code up to its next Wait (or its end). A
// non-nil error ends the task.
type TaskFunc func(t *Task) error

// Task is work that waits across virtual time in straight-line steps:
// Spawn runs its first step at once, and each Wait names the step that
// runs when the wait is over. A waiting task is pending work of kind
// KindSpawn, ordered by (deadline, spawn order) with the other jobs, so
// Count, List, Next and RunAll see it; each resumption is one fire.
type Task struct {
	ext jobExt // first: the queue's ref points here (group, label)
	s   *Scheduler
	key uint64 // queue key: creation number and tagSpawn
	qid timerq.ID

	then     TaskFunc // Wait's continuation; nil when the task ends
	waitNs   int64
	waitFrom int64
	waited   int64
	live     bool // a step is running
	canceled bool
}

var errTaskNotRunning = errorString("the task is not running: Wait is allowed only inside its own step")

// Spawn runs fn at once, before returning, as the task's first step. An
// error from it is returned as fn returned it, and the task ends (its id is
// handed out again when the step scheduled nothing); an error
// from a later step comes out of the call that moved time, in a *JobError,
// as a callback's does. Called from inside a callback, the step runs
// nested in it.
func (s *Scheduler) Spawn(fn TaskFunc, opts ...JobOption) (*Task, error) {
	const name = "Spawn"
	if err := s.check(name); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, nilFunc(name)
	}
	if err := s.nextSeq(name); err != nil {
		return nil, err
	}
	t := &Task{s: s, key: s.seq<<tagBits | tagSpawn}
	for _, o := range opts {
		o(&t.ext)
	}
	if err := t.run(fn); err != nil {
		if s.seq == t.key>>tagBits && !t.queued() {
			s.seq-- // nothing else took a number: a failed spawn leaves no trace
		}
		return t, err
	}
	return t, nil
}

// Wait ends the current step and makes then the next one, run d of
// virtual time from Now() (at the jump's instant when a Jump passes it).
// It returns an *OptionError for d < 0 and a *CallError outside the
// task's own step. Waiting at zero inside a drain counts toward the loop
// limit, as a zero-delay job does.
func (t *Task) Wait(d temporal.Duration, then TaskFunc) error {
	if !t.live {
		return &CallError{Method: "Task.Wait", Err: errTaskNotRunning}
	}
	if d < 0 {
		return &OptionError{Method: "Task.Wait", Param: "d", Want: "a duration >= 0", Got: d}
	}
	if then == nil {
		return nilFunc("Task.Wait")
	}
	if int64(d) > t.s.maxAt-t.s.now {
		return &OptionError{Method: "Task.Wait", Param: "d", Want: "a duration that keeps the deadline within int64 nanoseconds", Got: d}
	}
	t.waitNs, t.then = int64(d), then
	return nil
}

// Waited returns how long the last Wait took: its d, or more after a Jump.
func (t *Task) Waited() temporal.Duration { return temporal.Duration(t.waited) }

// ID returns the task's id, as List and traces show it.
func (t *Task) ID() uint64 { return t.key >> tagBits }

// Active reports whether the task has not ended: a step is running or it
// is waiting.
func (t *Task) Active() bool { return t.live || t.queued() }

// Cancel ends the task at its current wait: its next step never runs. A
// step that is running is not interrupted; its Wait ends the task. It
// reports whether the task was waiting.
func (t *Task) Cancel() bool {
	t.canceled = true
	if t.queued() {
		t.s.q.Remove(t.qid)
		return true
	}
	return false
}

// Due returns when the task resumes; ok is false unless it is waiting.
func (t *Task) Due() (at temporal.Instant, ok bool) {
	if !t.queued() {
		return temporal.Instant{}, false
	}
	when, _, _, _ := t.s.q.Get(t.qid)
	return temporal.FromUnixNano(t.s.epoch.UnixNano() + when), true
}

// Remaining returns the time until the task resumes, never negative; ok is
// false unless it is waiting.
func (t *Task) Remaining() (temporal.Duration, bool) {
	if !t.queued() {
		return 0, false
	}
	when, _, _, _ := t.s.q.Get(t.qid)
	return temporal.Duration(max(when-t.s.now, 0)), true
}

func (t *Task) queued() bool {
	if t.s.dropped {
		return false
	}
	_, key, _, ok := t.s.q.Get(t.qid)
	return ok && key == t.key
}

// run runs one step, then queues the next one if it waited.
func (t *Task) run(fn TaskFunc) error {
	t.live = true
	err := fn(t)
	t.live = false
	then := t.then
	t.then = nil
	if err != nil || then == nil || t.canceled || t.s.dropped {
		return err
	}
	s := t.s
	at := s.now + t.waitNs
	if s.q.Len() >= s.maxPending {
		return &CallError{Method: "Task.Wait", Err: ErrTooManyPending}
	}
	if s.running && at == s.now {
		if err := s.countRearm(); err != nil {
			return err
		}
	}
	t.waitFrom, t.then = s.now, then
	t.qid = s.q.Push(at, t.key, ref(t))
	return nil
}

// fireTask resumes the task whose entry is due: its wait is over.
func (s *Scheduler) fireTask(id timerq.ID, t *Task) error {
	s.curExt = &t.ext
	s.q.Remove(id)
	t.waited = s.now - t.waitFrom
	then := t.then
	t.then = nil
	if s.observer != nil {
		s.observer(Fire{At: s.Now(), ID: t.ID(), Kind: KindSpawn, Label: t.ext.label, Name: t.ext.name})
	}
	if err := t.run(then); err != nil {
		if _, ok := err.(*LoopError); ok {
			return err
		}
		return &JobError{Job: t.ext.job(t.key), Err: err}
	}
	return nil
}

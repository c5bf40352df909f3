package sched

import (
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// task is work that waits across virtual time in straight-line steps:
// Spawn runs its first step at once, and each Step.Wait names the step
// that runs when the wait is over. A waiting task is pending work of kind
// KindSpawn, ordered by (deadline, spawn order) with the other jobs, so
// Count, List and RunAll see it; each resumption is one fire.
type task struct {
	ext  jobExt // first: the queue's ref points here (group, label)
	s    *Scheduler
	key  uint64 // queue key: creation number and tagSpawn
	qid  timerq.ID
	step Step

	then     func(*Step) error // Wait's continuation; nil when the task ends
	waitFrom int64
	live     bool // a step is running
	canceled bool
}

// Spawn runs fn at once, before returning, as the first step of a task,
// and returns the task's handle. Each Step.Wait in a step names the next
// one; the task ends with a step that does not wait, or when cancelled at
// its current wait (a running step is never interrupted). An error from
// the first step is returned as fn returned it, with the handle, and the
// task ends (its id is handed out again when the step scheduled nothing);
// an error from a later step comes out of the call that moved time, in a
// *JobError, as a callback's does. Called from inside a callback, the
// step runs nested in it.
func (s *Scheduler) Spawn(fn func(*Step) error, opts ...JobOption) (Handle, error) {
	const name = "Spawn"
	if err := s.check(name); err != nil {
		return Handle{}, err
	}
	if fn == nil {
		return Handle{}, nilFunc(name)
	}
	if err := s.nextSeq(name); err != nil {
		return Handle{}, err
	}
	t := &task{s: s, key: s.seq<<tagBits | tagSpawn}
	for _, o := range opts {
		o(&t.ext)
	}
	t.ext.rearm = false
	t.step = Step{Data: t.ext.data, Scheduler: s, task: t}
	h := Handle{s: s, key: t.key, re: ref(t)}
	if err := t.run(fn); err != nil {
		if s.seq == t.key>>tagBits && !t.queued() {
			s.seq-- // nothing else took a number: a failed spawn leaves no trace
		}
		return h, err
	}
	return h, nil
}

// cancel ends the task at its current wait: its next step never runs. A
// step that is running is not interrupted; its Wait ends the task. It
// reports whether the task was waiting.
func (t *task) cancel() bool {
	t.canceled = true
	if t.queued() {
		t.s.q.Remove(t.qid)
		return true
	}
	return false
}

func (t *task) queued() bool {
	if t.s.dropped {
		return false
	}
	_, key, _, ok := t.s.q.Get(t.qid)
	return ok && key == t.key
}

// run runs one step, then queues the next one if it waited.
func (t *task) run(fn func(*Step) error) error {
	t.live = true
	err := fn(&t.step)
	t.live = false
	then := t.then
	t.then = nil
	if err != nil || then == nil || t.canceled || t.s.dropped {
		return err
	}
	s := t.s
	at := s.now + t.step.waitNs
	if s.q.Len() >= s.maxPending {
		return &CallError{Method: "Step.Wait", Err: ErrTooManyPending}
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
func (s *Scheduler) fireTask(id timerq.ID, t *task) error {
	s.curExt = &t.ext
	s.q.Remove(id)
	t.step.Waited = temporal.Duration(s.now - t.waitFrom)
	then := t.then
	t.then = nil
	if s.observer != nil {
		s.observer(Fire{At: s.Now(), ID: t.key >> tagBits, Kind: KindSpawn, Label: t.ext.label, Name: t.ext.name})
	}
	if err := t.run(then); err != nil {
		if _, ok := err.(*LoopError); ok {
			return err
		}
		return &JobError{Job: t.ext.job(t.key), Err: err}
	}
	return nil
}

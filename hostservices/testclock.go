package hostservices

import (
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// The test-clock verbs move the host's timed work the way a test drives a
// fake clock: every job on its scheduler (its own, compatibility timers,
// any other group), never the facets. Like Step they ignore pause; like
// Update they are an error from inside the host (a job or a facet of a
// running frame). The host's error policy (SetErrorHandler) is not applied: a
// job's error comes out of the call, as the scheduler's verbs return it.

// RunNext moves the host's time to the earliest deadline and runs what is
// due there. It reports false, and does nothing, when nothing is pending.
func (h *Host) RunNext() (bool, error) {
	if err := h.canRun("RunNext"); err != nil {
		return false, err
	}
	at, ok := h.s.NextDeadline()
	if !ok {
		return false, nil
	}
	d, err := at.Sub(h.s.Now())
	if err != nil {
		return false, err
	}
	return true, h.s.Advance(max(d, 0))
}

// RunAll runs until nothing is pending, or fails after maxFires fires; see
// sched.Scheduler.RunAll.
func (h *Host) RunAll(maxFires int) error {
	if err := h.canRun("RunAll"); err != nil {
		return err
	}
	return h.s.RunAll(maxFires)
}

// RunToLast runs up to the latest deadline pending now, or fails after
// maxFires fires; see sched.Scheduler.RunToLast.
func (h *Host) RunToLast(maxFires int) error {
	if err := h.canRun("RunToLast"); err != nil {
		return err
	}
	return h.s.RunToLast(maxFires)
}

// Jump moves time by d as a suspended process sees it: each due job runs
// once at the end; see sched.Scheduler.Jump.
func (h *Host) Jump(d temporal.Duration) error {
	if err := h.canRun("Jump"); err != nil {
		return err
	}
	return h.s.Jump(d)
}

// Count is the number of pending jobs on the host's timeline, of every
// group.
func (h *Host) Count() int { return h.s.Count() }

// List describes the pending jobs on the host's timeline, of every group,
// in due order.
func (h *Host) List() []sched.JobInfo { return h.s.List() }

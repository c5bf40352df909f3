package sched

import "github.com/metronome-rt/metronome/temporal"

// AdvanceReporting is Advance under an error policy that reports and goes
// on: each callback error is handed to report, in a *JobError, at the
// failing job's deadline (Now() is that deadline while report runs), and
// the drain goes on with the next due job, so every other due job runs, in
// order, and Now() ends at Now()+d. A repeating job was re-queued before
// its callback ran: a failing interval keeps its grid and fires again.
//
// report runs as a callback does: scheduling from it is allowed (and counts
// toward the loop limit), moving this scheduler's time is ErrReentrant. A
// non-nil error from report stops the drain as a callback error stops
// Advance: AdvanceReporting returns it as report returned it and Now()
// stays at the failing job's deadline. The guards of one call still stop
// it: a *LoopError is returned, not reported. The loop guard counts across
// the whole call, so a failing callback that re-arms at zero delay cannot
// hang the caller. report must not be nil.
func (s *Scheduler) AdvanceReporting(d temporal.Duration, report func(*JobError) error) error {
	if report == nil {
		panic("sched.AdvanceReporting: nil report")
	}
	return s.advance("AdvanceReporting", d, report)
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

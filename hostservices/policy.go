package hostservices

import (
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// SetErrorHandler sets the host's error policy (see the package's Errors
// section); nil restores the default, where an error stops the frame and is
// returned.
//
// With fn set, a job's error goes to fn in a *sched.JobError, at the job's
// deadline, and the next due job runs; a facet's error goes to fn in a
// *FacetError and the next facet runs. The frame's whole delta is applied. A
// failing interval was re-queued before its callback ran, so it keeps
// repeating. fn runs under a callback's rules: it may schedule, and Update or
// Step from it is a *sched.CallError wrapping sched.ErrReentrant.
//
// fn's non-nil error stops the frame as the default policy would: Update or
// Step returns it as fn returned it, the scheduler stays at the failing job's
// deadline, and no later job or facet of the frame runs. A panic in fn is
// not recovered, as a facet's is not. A *sched.LoopError is not handed to
// fn: it stops the frame.
//
// A frame keeps the policy set when it starts: set or removed during a frame,
// it takes effect from the next one.
func (h *Host) SetErrorHandler(fn func(err error) error) { h.onError = fn }

// advance moves the scheduler by d under the frame's policy onErr.
func (h *Host) advance(d temporal.Duration, onErr func(error) error) error {
	if onErr == nil {
		return h.s.Advance(d)
	}
	return h.s.Advance(d, func(je *sched.JobError) error { return onErr(je) })
}

// facetFailed returns what a facet's error does to the frame under the
// policy onErr: stop it (a non-nil error) or go on.
func facetFailed(onErr func(error) error, fe *FacetError) error {
	if onErr == nil {
		return fe
	}
	return onErr(fe)
}

// observed is the policy onErr that first tells the observer.
func (h *Host) observed(onErr func(error) error) func(error) error {
	return func(err error) error {
		h.obs.Failed(err)
		return onErr(err)
	}
}

package sched

import (
	"errors"
	"fmt"

	"github.com/metronome-rt/metronome/temporal"
)

var (
	// ErrDropped is returned, wrapped in a *CallError, by every call on a
	// dropped scheduler but Drop.
	ErrDropped = errors.New("scheduler dropped")

	// ErrReentrant is returned, wrapped in a *CallError, when a callback asks
	// its own scheduler to move time (Advance, RunAll, RunToLast, Jump).
	ErrReentrant = errors.New("called from inside a callback of the same scheduler")

	// ErrTooManyPending is returned, wrapped in a *CallError, by a
	// scheduling method when the scheduler already holds as many pending
	// jobs as its cap allows (see SetLimits): "ScheduleOnce: too many
	// pending jobs: the cap is 1000000".
	ErrTooManyPending = errors.New("too many pending jobs")
)

// CallError is an error that is not about one argument (ErrDropped,
// ErrReentrant, a recurrence that cannot start, a job that cannot be
// reset), with the method that returned it. A bad argument is a
// *temporal.OptionError naming the method and its parameter
// ("ScheduleOnce: delay: want a duration >= 0, got -PT0.000000001S"); the
// call that returned either changed nothing.
type CallError struct {
	Method string
	Err    error
}

func (e *CallError) Error() string { return e.Method + ": " + e.Err.Error() }

func (e *CallError) Unwrap() error { return e.Err }

// JobError wraps the error a job's callback returned (or a recurrence's
// failure to compute its next occurrence).
type JobError struct {
	Job JobInfo // the job's ID, Kind, Label and Name
	Err error
}

func (e *JobError) Error() string { return fmt.Sprintf("%v: %v", e.Job, e.Err) }

func (e *JobError) Unwrap() error { return e.Err }

// LoopError reports jobs scheduled for the very instant being drained more
// than the loop limit allows, within one call: a zero-delay re-arm that
// would otherwise hang the host.
type LoopError struct {
	Limit int
	By    *JobInfo // the job whose callback kept re-arming, or nil outside one
	AtNs  int64    // the instant, in ns after the epoch
}

func (e *LoopError) Error() string {
	by := "the host"
	if e.By != nil {
		by = e.By.String()
	}
	return fmt.Sprintf("loop limit: %s put more than %d jobs on one instant (%s after the epoch) in one call; a callback keeps re-arming at zero delay (raise it with SetLimits)", by, e.Limit, temporal.Duration(e.AtNs).DecimalSeconds())
}

// RunLimitError reports that RunAll or RunToLast would fire more jobs than
// its maxFires allowed: work keeps coming (an interval is active, say).
type RunLimitError struct {
	MaxFires int
	Method   string  // "RunAll" or "RunToLast"
	Next     JobInfo // the job that would have fired next, still pending
}

func (e *RunLimitError) Error() string {
	return fmt.Sprintf("%s: more than %d fires and work is still pending; the next is %v (an active interval never ends; use Advance, or raise maxFires)", e.Method, e.MaxFires, e.Next)
}

package sched

import (
	"errors"
	"fmt"

	"github.com/metronome-rt/metronome/temporal"
)

var (
	// ErrDropped is returned by every call on a dropped scheduler but Drop.
	ErrDropped = errors.New("scheduler dropped")

	// ErrReentrant is returned when a callback asks its own scheduler to
	// move time (Advance, Update, Next, RunAll, RunToLast, Jump).
	ErrReentrant = errors.New("called from inside a callback of the same scheduler")
)

// OptionError reports a bad argument. The call that returned it changed
// nothing.
type OptionError struct {
	Func string // the call, e.g. "schedule-once"
	Key  string // the option or argument, e.g. "delay"
	Want string // what was expected
	Got  any    // what was given
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("%s: %s: want %s, got %v", e.Func, e.Key, e.Want, e.Got)
}

// JobError wraps the error a job's callback returned (or a recurrence's
// failure to compute its next occurrence).
type JobError struct {
	ID    uint64
	Kind  Kind
	Label string // where the job was scheduled, if known
	Err   error
}

func (e *JobError) Error() string {
	return fmt.Sprintf("%s: %v", jobName(e.Kind, e.ID, e.Label), e.Err)
}

func (e *JobError) Unwrap() error { return e.Err }

// LoopError reports jobs scheduled for the very instant being drained more
// than the loop limit allows, within one call: a zero-delay re-arm that
// would otherwise hang the host.
type LoopError struct {
	Limit int
	By    string // the job whose callback kept re-arming, or "" outside one
	AtNs  int64  // the instant, in ns after the epoch
}

func (e *LoopError) Error() string {
	by := e.By
	if by == "" {
		by = "the host"
	}
	return fmt.Sprintf("loop limit: %s scheduled more than %d jobs for one instant (%s after the epoch) in one call; a callback keeps re-arming at zero delay (raise it with set-loop-limit)", by, e.Limit, temporal.Duration(e.AtNs).DecimalSeconds())
}

// RunLimitError reports that RunAll fired more jobs than its loop limit
// allowed: work keeps coming (an interval is active, say).
type RunLimitError struct{ Limit int }

func (e *RunLimitError) Error() string {
	return fmt.Sprintf("run-all: more than %d fires and work is still pending (an active interval never ends; use advance, or raise loop-limit)", e.Limit)
}

func jobName(k Kind, id uint64, label string) string {
	s := fmt.Sprintf("%s #%d", k, id)
	if label != "" {
		s += " (scheduled at " + label + ")"
	}
	return s
}

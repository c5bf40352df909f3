package keyed

import (
	"errors"
	"fmt"
)

var (
	// ErrClosed is returned, wrapped in a *CallError, by Register and
	// NewOwner on a closed Scheduler, and is the result of a generation
	// that Close ended before it had a cleanup to run.
	ErrClosed = errors.New("keyed scheduler closed")

	// ErrNotLocal is returned, wrapped in a *CallError, by Renew and
	// Transfer on an owner whose authority is not a local lease: such an
	// authority renews itself and calls Owner.Refresh.
	ErrNotLocal = errors.New("owner's authority is not a local lease")
)

// OptionError reports a bad argument, in Go terms: "Register: Interval:
// want a duration > 0, got 0s". The call that returned it changed nothing.
type OptionError struct {
	Method string // the method, e.g. "Register"
	Param  string // its parameter or option, e.g. "Interval"
	Want   string // what was expected
	Got    any    // what was given
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("%s: %s: want %s, got %v", e.Method, e.Param, e.Want, e.Got)
}

// CallError is an error that is not about one argument (ErrClosed,
// ErrNotLocal), with the method that returned it.
type CallError struct {
	Method string
	Err    error
}

func (e *CallError) Error() string { return e.Method + ": " + e.Err.Error() }

func (e *CallError) Unwrap() error { return e.Err }

package keyed

import "errors"

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

// CallError is an error that is not about one argument (ErrClosed,
// ErrNotLocal), with the method that returned it.
type CallError struct {
	Method string
	Err    error
}

func (e *CallError) Error() string { return e.Method + ": " + e.Err.Error() }

func (e *CallError) Unwrap() error { return e.Err }

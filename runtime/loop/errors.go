package loop

import "errors"

// ErrReentrant is returned by Run called from inside a task of the same
// scheduler's run.
var ErrReentrant = errors.New("loop: Run called from inside a task of its own run")

// ErrLoopLimit is returned by a run that stopped at the scheduler's loop
// limit (SetLoopLimit); what did not run stays queued.
var ErrLoopLimit = errors.New("loop: loop limit reached and work is still pending")

// ErrRealClock is returned by a verb that moves time (Next, Jump) on a real
// clock, whose time moves by itself.
var ErrRealClock = errors.New("loop: a real clock's time moves by itself")

// ErrRegistered is returned by RegisterSource for a source, or a name,
// already registered.
var ErrRegistered = errors.New("loop: source already registered")

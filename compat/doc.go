// Package compat is the millisecond boundary: runtime-timers' Timeout,
// Interval and Debouncer for legacy callers that count in milliseconds.
//
// # Milliseconds
//
// Every millisecond argument is converted once, here, with
// temporal.DurationFromMillis (the float's exact value rounded to the
// nearest nanosecond, ties away from zero), and the work is done by the
// typed sched.Scheduler. No millisecond alias reaches the typed API:
//
//	Timeout(16.6, f)     a one-shot due 16_600_000 ns after Now
//	Interval(0.1, f)     every 100_000 ns
//	Interval(4e-7, f)    an error: 0.0000004 ms rounds to 0 ns
//
// Every count goes through temporal.Millis: NaN, ±Inf, negatives and
// values beyond int64 nanoseconds are a *temporal.OptionError naming the
// method and its parameter, all with one message ("Timeout: delayMs: want
// a finite number of milliseconds >= 0 within int64 nanoseconds, got NaN"), and change
// nothing. An interval must also round to at least 1 ns (5e-7 ms is not
// enough: its binary value is below half a nanosecond).
//
// # One timeline
//
// Timers is a sched.Group of the scheduler given to New: its timers run
// in the scheduler's (deadline, creation) order together with every other
// job there, and move only when that scheduler's time does. Given a host's
// scheduler (hostservices.Host.Scheduler), they follow the host: a paused
// update advances them no more than the host's own jobs. Timers.Clear
// clears these timers and nothing else; the host's Clear leaves them alone.
//
// # Debouncer
//
// A Debouncer runs its function once, delay after the latest Call, with the
// latest Call's arguments:
//
//	delay 100 ms; Call(1) at 0, Call(2) at 60, Call(3) at 130
//	-> fn([3]) at 230; nothing at 100 or 160
//
// Cancel forgets a pending call; Flush runs it now. A Debouncer's pending
// call is an ordinary timer of its Timers: Timers.Clear cancels it too.
//
// # Concurrency
//
// Timers and Debouncers belong to the goroutine that owns their scheduler.
package compat

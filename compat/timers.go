package compat

import (
	"errors"
	"math"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// GroupName is the name of the group New makes; it shows in JobInfo.Group.
const GroupName = "runtime-timers"

// Timers schedules millisecond timers as typed jobs of one group. The zero
// value is not usable; call New.
type Timers struct {
	g *sched.Group
}

// New returns timers that live on s, in a group of their own.
func New(s *sched.Scheduler) *Timers {
	return &Timers{g: s.NewGroup(GroupName)}
}

// Group returns the group that holds the timers.
func (t *Timers) Group() *sched.Group { return t.g }

// List returns the pending timers (Debouncers' pending calls included) in
// due order.
func (t *Timers) List() []sched.JobInfo { return t.g.List() }

// Count returns the number of pending timers.
func (t *Timers) Count() int { return t.g.Count() }

// Clear cancels every pending timer of t, Debouncers' pending calls
// included, and no other job of the scheduler. Called from a callback, it
// stops t's timers due at the same deadline.
func (t *Timers) Clear() error { return t.g.Clear() }

// Timeout runs fn once, delayMs milliseconds after the scheduler's Now.
// delayMs must be finite and >= 0; 0 is due at Now, so the next call that
// moves time runs it.
func (t *Timers) Timeout(delayMs float64, fn sched.Func, opts ...sched.JobOption) (sched.Handle, error) {
	const name, key = "Timeout", "delay-ms"
	d, err := delay(name, delayMs)
	if err != nil {
		return sched.Handle{}, err
	}
	if fn == nil {
		return sched.Handle{}, &sched.OptionError{Func: name, Key: "callback", Want: "a function", Got: "nil"}
	}
	h, err := t.g.ScheduleOnce(d, fn, opts...)
	return h, rename(err, name, key, delayMs)
}

// Interval runs fn every intervalMs milliseconds, first intervalMs after the
// scheduler's Now. Within one call that moves time it fires once for each
// period that call passes. intervalMs must be finite, > 0, and not round to
// 0 ns.
func (t *Timers) Interval(intervalMs float64, fn sched.Func, opts ...sched.JobOption) (sched.Handle, error) {
	const name, key = "Interval", "interval-ms"
	want := "a finite number > 0"
	if math.IsNaN(intervalMs) || math.IsInf(intervalMs, 0) || intervalMs <= 0 {
		return sched.Handle{}, &sched.OptionError{Func: name, Key: key, Want: want, Got: intervalMs}
	}
	d, err := temporal.DurationFromMillis(intervalMs)
	if err != nil {
		return sched.Handle{}, &sched.OptionError{Func: name, Key: key, Want: want + " within int64 nanoseconds", Got: intervalMs}
	}
	if d == 0 {
		return sched.Handle{}, &sched.OptionError{Func: name, Key: key, Want: want + " that rounds to at least 1 ns", Got: intervalMs}
	}
	if fn == nil {
		return sched.Handle{}, &sched.OptionError{Func: name, Key: "callback", Want: "a function", Got: "nil"}
	}
	h, err := t.g.ScheduleEvery(d, fn, opts...)
	return h, rename(err, name, key, intervalMs)
}

// delay converts a delay in milliseconds, refusing NaN, infinities,
// negatives and values beyond int64 nanoseconds.
func delay(name string, ms float64) (temporal.Duration, error) {
	const key, want = "delay-ms", "a finite number >= 0"
	if math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
		return 0, &sched.OptionError{Func: name, Key: key, Want: want, Got: ms}
	}
	d, err := temporal.DurationFromMillis(ms)
	if err != nil {
		return 0, &sched.OptionError{Func: name, Key: key, Want: want + " within int64 nanoseconds", Got: ms}
	}
	return d, nil
}

// rename reports the scheduler's option errors (a deadline past int64
// nanoseconds) in this layer's terms: the function and the millisecond key.
func rename(err error, name, key string, ms float64) error {
	var oe *sched.OptionError
	if errors.As(err, &oe) && (oe.Key == "delay" || oe.Key == "interval") {
		return &sched.OptionError{Func: name, Key: key, Want: oe.Want, Got: ms}
	}
	return err
}

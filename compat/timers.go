package compat

import (
	"errors"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// GroupName is the name of the group New makes; it shows in JobInfo.Group.
const GroupName = "runtime-timers"

// Timers schedules millisecond timers as typed jobs of one group. The zero
// value is not usable; call New.
type Timers struct {
	s  *sched.Scheduler
	g  *sched.Group
	in []sched.JobOption // InGroup(g)
}

// New returns timers that live on s, in a group of their own.
func New(s *sched.Scheduler) *Timers {
	g := &sched.Group{Name: GroupName}
	return &Timers{s: s, g: g, in: []sched.JobOption{sched.InGroup(g)}}
}

// with is opts and the timers' group.
func (t *Timers) with(opts []sched.JobOption) []sched.JobOption {
	if len(opts) == 0 {
		return t.in
	}
	return append(opts[:len(opts):len(opts)], t.in[0])
}

// Group returns the group that holds the timers.
func (t *Timers) Group() *sched.Group { return t.g }

// List returns the pending timers (Debouncers' pending calls included) in
// due order.
func (t *Timers) List() []sched.JobInfo { return t.s.List(t.g) }

// Count returns the number of pending timers.
func (t *Timers) Count() int { return t.s.Count(t.g) }

// Clear cancels every pending timer of t, Debouncers' pending calls
// included, and no other job of the scheduler. Called from a callback, it
// stops t's timers due at the same deadline.
func (t *Timers) Clear() error { return t.s.Clear(t.g) }

// Timeout runs fn once, delayMs milliseconds after the scheduler's Now.
// delayMs must be finite and >= 0 (temporal.Millis); 0 is due at Now, so
// the next call that moves time runs it.
func (t *Timers) Timeout(delayMs float64, fn func() error, opts ...sched.JobOption) (sched.Handle, error) {
	const name, param = "Timeout", "delayMs"
	d, err := millis(name, param, delayMs)
	if err != nil {
		return sched.Handle{}, err
	}
	if fn == nil {
		return sched.Handle{}, nilFunc(name)
	}
	h, err := t.s.ScheduleOnce(d, fn, t.with(opts)...)
	return h, rename(err, name, param, delayMs)
}

// Interval runs fn every intervalMs milliseconds, first intervalMs after the
// scheduler's Now. Within one call that moves time it fires once for each
// period that call passes. intervalMs must be finite (temporal.Millis) and
// round to at least 1 ns.
func (t *Timers) Interval(intervalMs float64, fn func() error, opts ...sched.JobOption) (sched.Handle, error) {
	const name, param = "Interval", "intervalMs"
	d, err := millis(name, param, intervalMs)
	if err != nil {
		return sched.Handle{}, err
	}
	if d == 0 {
		return sched.Handle{}, &temporal.OptionError{Method: name, Param: param, Want: "a number of milliseconds > 0 that rounds to at least 1 ns", Got: intervalMs}
	}
	if fn == nil {
		return sched.Handle{}, nilFunc(name)
	}
	h, err := t.s.ScheduleEvery(sched.Every{Interval: d}, fn, t.with(opts)...)
	return h, rename(err, name, param, intervalMs)
}

// millis converts argument param of method, a count of milliseconds,
// refusing what temporal.Millis refuses.
func millis(method, param string, ms float64) (temporal.Duration, error) {
	d, ok := temporal.Millis(ms)
	if !ok {
		return 0, &temporal.OptionError{Method: method, Param: param, Want: temporal.WantMillis, Got: ms}
	}
	return d, nil
}

func nilFunc(method string) error {
	return &temporal.OptionError{Method: method, Param: "fn", Want: "a function", Got: "nil"}
}

// rename reports the scheduler's option errors (a deadline past int64
// nanoseconds) in this layer's terms: the method and its millisecond
// parameter.
func rename(err error, method, param string, ms float64) error {
	var oe *temporal.OptionError
	if errors.As(err, &oe) && (oe.Param == "delay" || oe.Param == "e.Interval") {
		return &temporal.OptionError{Method: method, Param: param, Want: oe.Want, Got: ms}
	}
	return err
}

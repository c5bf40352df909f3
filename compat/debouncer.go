package compat

import (
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// Debouncer runs a function once, a fixed delay after the latest Call, with
// that Call's arguments. Make one with Timers.Debouncer.
type Debouncer struct {
	t     *Timers
	delay temporal.Duration
	fn    func(args []any) error
	args  []any
	h     sched.Handle
	opts  []sched.JobOption
}

// Debouncer returns a debouncer that calls fn delayMs milliseconds after the
// latest Call. delayMs must be finite and >= 0 (temporal.Millis).
func (t *Timers) Debouncer(delayMs float64, fn func(args []any) error, opts ...sched.JobOption) (*Debouncer, error) {
	const name = "Debouncer"
	d, err := millis(name, "delayMs", delayMs)
	if err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, &temporal.OptionError{Method: name, Param: "fn", Want: "a function", Got: "nil"}
	}
	return &Debouncer{t: t, delay: d, fn: fn, opts: t.with(opts)}, nil
}

// Call (re)arms the debouncer: the function will run delay after now with
// args, unless a later Call moves it again, Cancel forgets it or Flush runs
// it first. The debouncer keeps args (not a copy of their elements) until
// it runs or is cancelled. Call from inside the function arms a new run.
// The error is the scheduler's (dropped, or a deadline past int64
// nanoseconds); then nothing changed.
func (d *Debouncer) Call(args ...any) error {
	h, err := d.t.s.ScheduleOnce(d.delay, d.fire, d.opts...)
	if err != nil {
		return rename(err, "Debouncer.Call", "delayMs", d.delay.Milliseconds())
	}
	d.h.Cancel()
	d.h, d.args = h, args
	return nil
}

// Pending reports whether a call is waiting to run.
func (d *Debouncer) Pending() bool { return d.h.Active() }

// Cancel forgets the pending call, if any, and reports whether there was
// one. It is idempotent.
func (d *Debouncer) Cancel() bool {
	was := d.h.Active()
	d.h.Cancel()
	d.h, d.args = sched.Handle{}, nil
	return was
}

// Flush runs the pending call now, with the latest arguments, and returns
// the function's error. With nothing pending it does nothing and returns
// nil.
func (d *Debouncer) Flush() error {
	if !d.h.Active() {
		d.args = nil
		return nil
	}
	d.h.Cancel()
	return d.fire()
}

func (d *Debouncer) fire() error {
	args := d.args
	d.h, d.args = sched.Handle{}, nil
	return d.fn(args)
}

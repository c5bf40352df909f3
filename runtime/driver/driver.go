package driver

import (
	"context"
	"errors"
	"time"

	"github.com/metronome-rt/metronome/temporal"
)

// Steppable is what Run drives: something whose time moves only when told,
// such as a host or a scheduler.
type Steppable interface {
	// Next reports how long after the target's current time it next needs
	// to be stepped: the time to its earliest due item, or a frame's length
	// while it runs per frame. ok is false when nothing is pending (or the
	// target is done); then Run does not wake for it. A wait <= 0 asks for
	// a step at once.
	Next() (wait temporal.Duration, ok bool)
	// Step moves the target's time forward by elapsed, the wall time since
	// the previous step (or since Run started), and runs what is due. A
	// non-nil error ends Run with that error.
	Step(elapsed temporal.Duration) error
}

// Options adjusts Run. The zero value is ready to use.
type Options struct {
	// Calls, when non-nil, carries functions to run on Run's goroutine, the
	// only safe way for other goroutines to touch the target (to schedule
	// work, say). Before each call Run steps the target up to the present,
	// so work the call schedules counts from now; after it Run asks Next
	// again. A call's non-nil error ends Run with that error.
	//
	// While Calls is open an idle target does not end Run: Run waits for a
	// call or for ctx. Once Calls is closed Run behaves as if it were nil.
	Calls <-chan func() error

	onWake func() // after each timer expiry, before the step (tests count wake-ups)
}

// ErrNilTarget is returned by Run when target is nil.
var ErrNilTarget = errors.New("driver: nil target")

// Run steps target in wall time until target is idle (Next reports ok
// false) with no open Calls, a step or call fails, or ctx is done.
//
// It returns nil when the target went idle, the step's or call's error, or
// ctx.Err(). It never steps the target after ctx is done, and it leaves no
// goroutine or running timer behind.
func Run(ctx context.Context, target Steppable, opts Options) error {
	if target == nil {
		return ErrNilTarget
	}
	calls := opts.Calls
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()

	// The wall time the target's clock corresponds to. time.Now carries a
	// monotonic reading, so the elapsed times below never go backwards.
	last := time.Now()
	step := func() error {
		now := time.Now()
		elapsed := now.Sub(last)
		last = now
		return target.Step(temporal.Duration(elapsed))
	}

	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		wait, ok := target.Next()
		var expiry <-chan time.Time
		if ok {
			// The target's time is `last`; the item is due at last+wait.
			sleep := wait.Std() - time.Since(last)
			if sleep <= 0 {
				if err := step(); err != nil {
					return err
				}
				continue
			}
			timer.Reset(sleep)
			expiry = timer.C
		} else if calls == nil {
			return nil
		}

		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-expiry:
			if err := ctx.Err(); err != nil { // both were ready; select chose at random
				return err
			}
			if opts.onWake != nil {
				opts.onWake()
			}
			if err := step(); err != nil {
				return err
			}
		case fn, open := <-calls:
			timer.Stop()
			if !open {
				calls = nil
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := step(); err != nil {
				return err
			}
			if fn != nil {
				if err := fn(); err != nil {
					return err
				}
			}
		}
	}
}

// RunVirtual is Run without the sleeping, for a target on a clock that does
// not move by itself: it steps target by each wait Next asks for, at once,
// until Next reports false. It returns nil then, a step's error, or
// ctx.Err(), checked before each step.
func RunVirtual(ctx context.Context, target Steppable) error {
	if target == nil {
		return ErrNilTarget
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		wait, ok := target.Next()
		if !ok {
			return nil
		}
		if err := target.Step(wait); err != nil {
			return err
		}
	}
}

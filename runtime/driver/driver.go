package driver

import (
	"context"
	"errors"
	"time"
)

// Steppable is what Run drives: something whose time moves only when told,
// such as a host or a scheduler.
type Steppable interface {
	// Next reports how long after the target's current time it next needs
	// to be stepped: the time to its earliest due item, or a frame's length
	// while it runs per frame. ok is false when nothing is pending (or the
	// target is done); then Run does not wake for it. A wait <= 0 asks for
	// a step at once.
	Next() (wait time.Duration, ok bool)
	// Step moves the target's time forward by elapsed, the wall time since
	// the previous step (or since Run started), and runs what is due. A
	// non-nil error ends Run with that error.
	Step(elapsed time.Duration) error
}

// Clock is the wall clock Run reads and sleeps on. System is the real one;
// inside a testing/synctest bubble it is the bubble's fake clock.
type Clock interface {
	Now() time.Time
	// NewTimer returns a stopped-or-running timer as time.NewTimer does.
	NewTimer(d time.Duration) Timer
}

// Timer is the part of *time.Timer that Run uses.
type Timer interface {
	C() <-chan time.Time
	// Reset changes the timer to expire after d. As with *time.Timer (Go
	// 1.23 and later), no stale expiry is received after Reset or Stop.
	Reset(d time.Duration)
	Stop()
}

// System returns the clock of the time package.
func System() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) Timer { return sysTimer{time.NewTimer(d)} }

type sysTimer struct{ t *time.Timer }

func (t sysTimer) C() <-chan time.Time   { return t.t.C }
func (t sysTimer) Reset(d time.Duration) { t.t.Reset(d) }
func (t sysTimer) Stop()                 { t.t.Stop() }

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

	// OnWake, when non-nil, is called on Run's goroutine after each timer
	// expiry with the wall time read at the wake-up, before the step.
	// Tests count wake-ups with it.
	OnWake func(now time.Time)
}

// ErrNilTarget is returned by Run when target is nil.
var ErrNilTarget = errors.New("driver: nil target")

// Run steps target in wall time until target is idle (Next reports ok
// false) with no open Calls, a step or call fails, or ctx is done.
//
// It returns nil when the target went idle, the step's or call's error, or
// ctx.Err(). It never steps the target after ctx is done, and it leaves no
// goroutine or running timer behind. A nil clock means System().
func Run(ctx context.Context, target Steppable, clock Clock, opts Options) error {
	if target == nil {
		return ErrNilTarget
	}
	if clock == nil {
		clock = System()
	}
	calls := opts.Calls
	timer := clock.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()

	last := clock.Now() // the wall time the target's clock corresponds to
	step := func(now time.Time) error {
		elapsed := now.Sub(last)
		if elapsed < 0 { // a wall clock without a monotonic reading went back
			elapsed = 0
		}
		last = now
		return target.Step(elapsed)
	}

	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		wait, ok := target.Next()
		var expiry <-chan time.Time
		if ok {
			// The target's time is `last`; the item is due at last+wait.
			sleep := wait - clock.Now().Sub(last)
			if sleep <= 0 {
				if err := step(clock.Now()); err != nil {
					return err
				}
				continue
			}
			timer.Reset(sleep)
			expiry = timer.C()
		} else if calls == nil {
			return nil
		}

		select {
		case <-ctx.Done():
			return ctx.Err()
		case now := <-expiry:
			if err := ctx.Err(); err != nil { // both were ready; select chose at random
				return err
			}
			now = clock.Now() // the channel's value may lack a monotonic reading
			if opts.OnWake != nil {
				opts.OnWake(now)
			}
			if err := step(now); err != nil {
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
			if err := step(clock.Now()); err != nil {
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

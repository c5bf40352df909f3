package driver_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/temporal"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fake is a virtual-time target: items due at offsets from the start, and,
// while frames > 0, a frame every frame. It records every step and fire.
type fake struct {
	now   time.Duration   // virtual time: the sum of the steps
	due   []time.Duration // pending deadlines, sorted
	every time.Duration   // > 0: after an item fires, the next is due every later
	frame time.Duration   // > 0: step per frame
	limit int             // fires after which it goes idle (0: none)

	steps []time.Duration // elapsed of each step
	fired []time.Duration // virtual time of each fire
	wall  []time.Duration // wall time (since start) of each fire
	start time.Time
	fail  error // returned by the step that fires the first item
}

func (f *fake) Next() (temporal.Duration, bool) {
	d, ok := f.next()
	return temporal.Duration(d), ok
}

func (f *fake) next() (time.Duration, bool) {
	if f.limit > 0 && len(f.fired) >= f.limit {
		return 0, false
	}
	if f.frame > 0 {
		return f.frame, true
	}
	if len(f.due) == 0 {
		return 0, false
	}
	return f.due[0] - f.now, true
}

func (f *fake) Step(elapsed temporal.Duration) error { return f.step(elapsed.Std()) }

func (f *fake) step(elapsed time.Duration) error {
	f.steps = append(f.steps, elapsed)
	f.now += elapsed
	for len(f.due) > 0 && f.due[0] <= f.now {
		at := f.due[0]
		f.due = f.due[1:]
		f.fired = append(f.fired, at)
		f.wall = append(f.wall, time.Since(f.start))
		if f.every > 0 {
			f.schedule(at + f.every)
		}
		if f.fail != nil {
			return f.fail
		}
	}
	return nil
}

func (f *fake) schedule(at time.Duration) {
	f.due = append(f.due, at)
	slices.Sort(f.due)
}

func ds(ds ...time.Duration) []time.Duration { return ds }

func TestDeadlinesFireAtTheirWallTimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{start: time.Now(), due: ds(time.Second, 5*time.Second, 5*time.Second+time.Nanosecond, time.Hour)}
		wakes := 0
		err := driver.Run(t.Context(), f, driver.CountWakes(driver.Options{}, &wakes))
		if err != nil {
			t.Fatal(err)
		}
		want := ds(time.Second, 5*time.Second, 5*time.Second+time.Nanosecond, time.Hour)
		if !slices.Equal(f.fired, want) || !slices.Equal(f.wall, want) {
			t.Errorf("fired at virtual %v, wall %v; want %v for both", f.fired, f.wall, want)
		}
		// One wake-up per distinct deadline, none in between.
		if wakes != 4 || len(f.steps) != 4 {
			t.Errorf("%d wake-ups, %d steps; want 4 and 4", wakes, len(f.steps))
		}
		if !slices.Equal(f.steps, ds(time.Second, 4*time.Second, time.Nanosecond, time.Hour-5*time.Second-time.Nanosecond)) {
			t.Errorf("steps %v", f.steps)
		}
		if got := time.Since(f.start); got != time.Hour {
			t.Errorf("Run returned at %v, want 1h (when the last item fired)", got)
		}
	})
}

func TestNoWakeUpsBetweenSparseDeadlines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// An interval of 10 minutes for a day: 144 fires, 144 wake-ups.
		f := &fake{start: time.Now(), due: ds(10 * time.Minute), every: 10 * time.Minute, limit: 144}
		wakes := 0
		if err := driver.Run(t.Context(), f, driver.CountWakes(driver.Options{}, &wakes)); err != nil {
			t.Fatal(err)
		}
		if wakes != 144 || len(f.fired) != 144 {
			t.Fatalf("%d wake-ups for %d fires; want 144 and 144", wakes, len(f.fired))
		}
		for i, w := range f.wall {
			if want := time.Duration(i+1) * 10 * time.Minute; w != want || f.fired[i] != want {
				t.Fatalf("fire %d at wall %v, virtual %v; want %v", i, w, f.fired[i], want)
			}
		}
	})
}

func TestSlowStepsAreCaughtUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		// Each step takes 300ms of wall time (the work of a callback).
		f := &slow{fake: fake{start: start, due: ds(time.Second, 5*time.Second)}, cost: 300 * time.Millisecond}
		if err := driver.Run(t.Context(), f, driver.Options{}); err != nil {
			t.Fatal(err)
		}
		// The step at 5s is measured from the step at 1s, not from the end
		// of its work: virtual time stays on wall time.
		if !slices.Equal(f.steps, ds(time.Second, 4*time.Second)) || !slices.Equal(f.wall, ds(time.Second, 5*time.Second)) {
			t.Errorf("steps %v, fired at wall %v", f.steps, f.wall)
		}
	})
}

type slow struct {
	fake
	cost time.Duration
}

func (s *slow) Step(elapsed temporal.Duration) error {
	err := s.fake.Step(elapsed)
	time.Sleep(s.cost)
	return err
}

func TestFramesGetMeasuredDeltas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		frame := 16667 * time.Microsecond
		f := &fake{start: time.Now(), frame: frame, due: ds(50 * time.Millisecond), limit: 1}
		if err := driver.Run(t.Context(), f, driver.Options{}); err != nil {
			t.Fatal(err)
		}
		// 3 frames: the third crosses 50ms and fires the item; then idle.
		if !slices.Equal(f.steps, ds(frame, frame, frame)) || !slices.Equal(f.wall, ds(3*frame)) {
			t.Errorf("steps %v, fired at wall %v", f.steps, f.wall)
		}
	})
}

func TestIdleTargetWaitsForCallsWithoutWaking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		f := &fake{start: start}
		calls := make(chan func() error)
		wakes := 0
		done := make(chan error)
		go func() {
			done <- driver.Run(t.Context(), f, driver.CountWakes(driver.Options{Calls: calls}, &wakes))
		}()
		time.Sleep(24 * time.Hour) // idle for a day
		synctest.Wait()
		if wakes != 0 || len(f.steps) != 0 {
			t.Fatalf("idle for a day: %d wake-ups, %d steps; want none", wakes, len(f.steps))
		}
		// A call from another goroutine schedules work 2s from now; Run
		// first brings the target up to the present.
		calls <- func() error { f.schedule(f.now + 2*time.Second); return nil }
		time.Sleep(3 * time.Second)
		synctest.Wait()
		want := 24*time.Hour + 2*time.Second
		if !slices.Equal(f.fired, ds(want)) || !slices.Equal(f.wall, ds(want)) || wakes != 1 {
			t.Fatalf("fired %v at wall %v with %d wake-ups; want once at %v", f.fired, f.wall, wakes, want)
		}
		close(calls) // closed and idle: Run returns
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

func TestCancelStopsRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		f := &fake{start: time.Now(), due: ds(time.Second), every: time.Second}
		done := make(chan error)
		go func() { done <- driver.Run(ctx, f, driver.Options{}) }()
		time.Sleep(3500 * time.Millisecond)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Run returned %v, want context.Canceled", err)
		}
		if len(f.fired) != 3 {
			t.Errorf("fired %v before the cancel at 3.5s, want 3 fires", f.fired)
		}
		// No step after the cancel, even with time passing.
		time.Sleep(time.Minute)
		if len(f.fired) != 3 {
			t.Errorf("fired after cancel: %v", f.fired)
		}
	})
}

func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	f := &fake{due: ds(0)}
	if err := driver.Run(ctx, f, driver.Options{}); !errors.Is(err, context.Canceled) || len(f.steps) != 0 {
		t.Fatalf("Run = %v after %d steps; want context.Canceled and no step", err, len(f.steps))
	}
}

func TestStepErrorEndsRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		f := &fake{start: time.Now(), due: ds(time.Second, 2*time.Second), fail: boom}
		if err := driver.Run(t.Context(), f, driver.Options{}); !errors.Is(err, boom) {
			t.Fatalf("Run = %v, want boom", err)
		}
		if !slices.Equal(f.fired, ds(time.Second)) {
			t.Errorf("fired %v", f.fired)
		}
	})
}

func TestCallErrorEndsRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		calls := make(chan func() error, 1)
		calls <- func() error { return boom }
		if err := driver.Run(t.Context(), &fake{}, driver.Options{Calls: calls}); !errors.Is(err, boom) {
			t.Fatalf("Run = %v, want boom", err)
		}
	})
}

func TestNothingPendingReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		f := &fake{}
		if err := driver.Run(t.Context(), f, driver.Options{}); err != nil || len(f.steps) != 0 || time.Since(start) != 0 {
			t.Fatalf("Run = %v after %d steps and %v", err, len(f.steps), time.Since(start))
		}
	})
}

func TestNilTarget(t *testing.T) {
	if err := driver.Run(t.Context(), nil, driver.Options{}); !errors.Is(err, driver.ErrNilTarget) {
		t.Fatalf("Run(nil) = %v", err)
	}
}

// A target due "now" (wait <= 0) is stepped at once, without a timer.
func TestDueNowStepsWithoutSleeping(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{start: time.Now(), due: ds(0, 0, time.Millisecond)}
		wakes := 0
		if err := driver.Run(t.Context(), f, driver.CountWakes(driver.Options{}, &wakes)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.fired, ds(0, 0, time.Millisecond)) || wakes != 1 {
			t.Errorf("fired %v with %d wake-ups", f.fired, wakes)
		}
	})
}

// RunVirtual steps by each wait at once, in the target's own time, and
// ends when the target is idle, on a step's error, or on ctx.
func TestRunVirtual(t *testing.T) {
	f := &fake{due: ds(time.Second, 5*time.Second), start: time.Now()}
	if err := driver.RunVirtual(t.Context(), f); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.steps, ds(time.Second, 4*time.Second)) || !slices.Equal(f.fired, ds(time.Second, 5*time.Second)) {
		t.Fatalf("steps %v, fired %v", f.steps, f.fired)
	}

	boom := errors.New("boom")
	f = &fake{due: ds(time.Second), every: time.Second, fail: boom}
	if err := driver.RunVirtual(t.Context(), f); !errors.Is(err, boom) || len(f.fired) != 1 {
		t.Fatalf("RunVirtual = %v after %v, want boom after one fire", err, f.fired)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	f = &fake{due: ds(time.Second)}
	if err := driver.RunVirtual(ctx, f); !errors.Is(err, context.Canceled) || len(f.steps) != 0 {
		t.Fatalf("RunVirtual on a cancelled ctx = %v after %d steps", err, len(f.steps))
	}
	if err := driver.RunVirtual(t.Context(), nil); !errors.Is(err, driver.ErrNilTarget) {
		t.Fatalf("RunVirtual(nil) = %v", err)
	}
}

package hostservices_test

import (
	"context"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// TestStressDriverCalls has several goroutines schedule and cancel work on
// one host through driver.Run's Calls while Run steps the host in wall time
// (run it under -race: the host must only ever be touched on Run's
// goroutine). It is bounded by its call count, not by time. Every call is
// answered; every one-shot either fires once or is cancelled before it
// fires; after the callers close Calls, Run drains what is left and returns
// nil; no goroutine is left behind.
func TestStressDriverCalls(t *testing.T) {
	defer goleak.VerifyNone(t)
	const (
		callers = 6
		calls   = 2000 // per caller
	)
	h := hostservices.New(temporal.System())
	r, err := hostservices.NewRunner(h, hostservices.RunnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan func() error)
	runErr := make(chan error, 1)
	go func() { runErr <- driver.Run(context.Background(), r, driver.Options{Calls: ch}) }()

	// Touched only inside calls and jobs, both on Run's goroutine; the
	// race detector checks that.
	var scheduled, fired, cancelled, intervals int // cancelled: one-shots stopped before they fired

	var wg sync.WaitGroup
	answered := make([]int, callers)
	for c := range callers {
		wg.Go(func() {
			type job struct {
				h    sched.Handle
				once bool
			}
			var mine []job
			cancel := func(j job) {
				if j.h.Cancel() && j.once {
					cancelled++
				}
			}
			for i := range calls {
				done := make(chan error, 1)
				ch <- func() error {
					err := func() error {
						if i%5 == 4 {
							// An interval, cancelled by the next call: many
							// live fine-grained intervals would be more work
							// per step than wall time allows (the drain
							// budget's case), not a race.
							e, err := h.ScheduleEvery(sched.Every{Interval: temporal.Millisecond}, func() error { return nil })
							intervals++
							mine = append(mine, job{e, false})
							return err
						}
						if n := len(mine); i%5 == 0 && n > 0 && !mine[n-1].once {
							cancel(mine[n-1])
							mine = mine[:n-1]
						}
						if i%3 == 2 && len(mine) > 0 {
							cancel(mine[len(mine)-1])
							mine = mine[:len(mine)-1]
						}
						delay := temporal.Duration(i%4) * 100 * temporal.Microsecond
						hd, err := h.ScheduleOnce(delay, func() error { fired++; return nil })
						if err != nil {
							return err
						}
						scheduled++
						mine = append(mine, job{hd, true})
						return nil
					}()
					done <- err
					return err
				}
				if err := <-done; err != nil {
					t.Errorf("caller %d call %d: %v", c, i, err)
					return
				}
				answered[c]++
			}
			// Stop this caller's intervals so that Run can go idle, and
			// some of its pending one-shots with them.
			done := make(chan struct{})
			ch <- func() error {
				for _, j := range mine {
					cancel(j)
				}
				close(done)
				return nil
			}
			<-done
		})
	}
	wg.Wait()
	close(ch)
	if err := <-runErr; err != nil {
		t.Fatalf("driver.Run: %v", err)
	}
	for c, n := range answered {
		if n != calls {
			t.Errorf("caller %d: %d of %d calls answered", c, n, calls)
		}
	}
	if h.Scheduler().Count() != 0 {
		t.Errorf("%d jobs still pending after Run went idle", h.Scheduler().Count())
	}
	if fired+cancelled != scheduled {
		t.Errorf("%d one-shots scheduled, %d fired, %d cancelled before firing: want fired + cancelled = scheduled",
			scheduled, fired, cancelled)
	}
	t.Logf("%d calls: %d one-shots (%d fired, %d cancelled), %d intervals", callers*calls, scheduled, fired, cancelled, intervals)
}

package driver_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/runtime/wheel"
	"github.com/metronome-rt/metronome/temporal"
)

var strategies = []driver.Strategy{driver.Inline(), driver.Pool(1), driver.Pool(3)}

func newService(t *testing.T, opts driver.ServiceOptions) *driver.Service {
	t.Helper()
	s, err := driver.NewService(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop(context.Background()) }) // also after a failure
	return s
}

func stop(t *testing.T, s *driver.Service) {
	t.Helper()
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func mustSchedule(t *testing.T, s *driver.Service, d time.Duration, f func()) driver.Timer {
	t.Helper()
	tm, err := s.Schedule(temporal.Duration(d), f)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// Callbacks run at their deadlines, in deadline order, with either
// strategy; a callback may schedule another.
func TestServiceRunsAtDeadlines(t *testing.T) {
	for _, st := range strategies {
		t.Run(st.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newService(t, driver.ServiceOptions{Strategy: st})
				start := time.Now()
				var mu sync.Mutex
				var got []time.Duration
				record := func() {
					mu.Lock()
					got = append(got, time.Since(start))
					mu.Unlock()
				}
				for _, d := range []time.Duration{3 * time.Second, time.Second, 2 * time.Second, 25 * time.Hour} {
					mustSchedule(t, s, d, record)
				}
				mustSchedule(t, s, 1500*time.Millisecond, func() {
					record()
					mustSchedule(t, s, time.Second, record) // at 2.5 s
				})
				time.Sleep(26 * time.Hour)
				synctest.Wait()
				want := []time.Duration{time.Second, 1500 * time.Millisecond, 2 * time.Second, 2500 * time.Millisecond, 3 * time.Second, 25 * time.Hour}
				mu.Lock()
				defer mu.Unlock()
				if !slices.Equal(got, want) {
					t.Fatalf("fired at %v, want %v", got, want)
				}
				stop(t, s)
			})
		})
	}
}

// An earlier Schedule wakes the sleeping loop at once; with nothing
// pending the loop sleeps without waking, for days.
func TestServiceWakeUps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newService(t, driver.ServiceOptions{})
		time.Sleep(48 * time.Hour)
		if n := driver.Wakes(s); n != 0 {
			t.Fatalf("idle service woke %d times in 48 h, want 0", n)
		}
		start := time.Now()
		fired := make(chan time.Duration, 2)
		mustSchedule(t, s, 10*time.Second, func() { fired <- time.Since(start) })
		synctest.Wait()
		if n := driver.Wakes(s); n != 1 {
			t.Fatalf("after the first Schedule: %d wake-ups, want 1", n)
		}
		mustSchedule(t, s, time.Second, func() { fired <- time.Since(start) })
		synctest.Wait()
		if n := driver.Wakes(s); n != 2 {
			t.Fatalf("after an earlier Schedule: %d wake-ups, want 2", n)
		}
		if time.Since(start) != 0 {
			t.Fatal("time moved")
		}
		if got := <-fired; got != time.Second {
			t.Fatalf("the earlier callback ran at %v, want 1s", got)
		}
		if got := <-fired; got != 10*time.Second {
			t.Fatalf("the later callback ran at %v, want 10s", got)
		}
		synctest.Wait() // the loop goes idle after the callback returns
		if n := driver.Wakes(s); n != 4 {
			t.Fatalf("%d wake-ups, want 4 (two Schedules, two deadlines)", n)
		}
		mustSchedule(t, s, 3*time.Second, func() {})
		synctest.Wait()
		if n := driver.Wakes(s); n != 5 {
			t.Fatalf("a later Schedule: %d wake-ups, want 5 (the idle loop learns of it)", n)
		}
		mustSchedule(t, s, 5*time.Second, func() {})
		synctest.Wait()
		if n := driver.Wakes(s); n != 5 {
			t.Fatalf("a Schedule after the next deadline woke the loop: %d wake-ups, want 5", n)
		}
		time.Sleep(72 * time.Hour)
		if n := driver.Wakes(s); n != 7 {
			t.Fatalf("idle again: %d wake-ups, want 7", n)
		}
		stop(t, s)
	})
}

// Many goroutines schedule at once while the loop sleeps and fires: every
// callback runs exactly at its deadline on the bubble's clock, so no
// Schedule's wake-up was lost (a lost one makes its callback late). Run
// under -race.
func TestServiceNoLostWakeUp(t *testing.T) {
	for _, st := range strategies {
		t.Run(st.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newService(t, driver.ServiceOptions{Strategy: st, Shards: 4})
				start := time.Now()
				const goroutines, per = 8, 300
				var wg sync.WaitGroup
				var mu sync.Mutex
				late := 0
				for g := range goroutines {
					wg.Go(func() {
						r := rand.New(rand.NewPCG(uint64(g), 9))
						for range per {
							d := time.Duration(r.Int64N(int64(20 * time.Millisecond)))
							deadline := time.Since(start) + d
							wg.Add(1)
							mustSchedule(t, s, d, func() {
								if time.Since(start) != deadline {
									mu.Lock()
									late++
									mu.Unlock()
								}
								wg.Done()
							})
							if r.IntN(4) == 0 {
								time.Sleep(time.Duration(r.Int64N(int64(3 * time.Millisecond))))
							}
						}
					})
				}
				wg.Wait()
				if late != 0 {
					t.Fatalf("%d of %d callbacks ran late", late, goroutines*per)
				}
				stop(t, s)
			})
		})
	}
}

// A stopped Timer never runs; a Timer runs at most once and cannot be
// stopped after.
func TestServiceTimerStop(t *testing.T) {
	for _, st := range strategies {
		t.Run(st.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newService(t, driver.ServiceOptions{Strategy: st})
				var mu sync.Mutex
				runs := map[string]int{}
				count := func(k string) func() {
					return func() { mu.Lock(); runs[k]++; mu.Unlock() }
				}
				a := mustSchedule(t, s, time.Second, count("a"))
				b := mustSchedule(t, s, 30*time.Hour, count("b")) // in the overflow level
				c := mustSchedule(t, s, time.Second, count("c"))
				if !a.Stop() || !b.Stop() {
					t.Fatal("Stop of a pending timer = false")
				}
				if a.Stop() {
					t.Fatal("a second Stop = true")
				}
				time.Sleep(31 * time.Hour)
				synctest.Wait()
				if c.Stop() {
					t.Fatal("Stop after the callback ran = true")
				}
				mu.Lock()
				if runs["a"] != 0 || runs["b"] != 0 || runs["c"] != 1 {
					t.Fatalf("runs = %v, want only c, once", runs)
				}
				mu.Unlock()
				if (driver.Timer{}).Stop() {
					t.Fatal("zero Timer Stop = true")
				}
				stop(t, s)
			})
		})
	}
}

// With Pool, a callback that blocks holds one worker; the wheel and the
// other workers go on.
func TestServicePoolSlowCallback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newService(t, driver.ServiceOptions{Strategy: driver.Pool(2)})
		start := time.Now()
		release := make(chan struct{})
		ran := make(chan time.Duration, 1)
		mustSchedule(t, s, time.Second, func() { <-release })
		mustSchedule(t, s, 2*time.Second, func() { ran <- time.Since(start) })
		if got := <-ran; got != 2*time.Second {
			t.Fatalf("second callback ran at %v, want 2s", got)
		}
		close(release)
		stop(t, s)
	})
}

// Stop: Schedule fails at once, pending callbacks never run, nor do
// callbacks queued for the pool that have not started, and Stop returns
// when every goroutine is gone (or with ctx's error first).
func TestServiceStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newService(t, driver.ServiceOptions{Strategy: driver.Pool(1)})
		release := make(chan struct{})
		var mu sync.Mutex
		var ran []string
		note := func(k string) func() { return func() { mu.Lock(); ran = append(ran, k); mu.Unlock() } }
		mustSchedule(t, s, time.Second, func() { <-release; note("slow")() })
		mustSchedule(t, s, 1500*time.Millisecond, note("handed")) // queued behind slow
		pending := mustSchedule(t, s, time.Hour, note("pending"))
		time.Sleep(2 * time.Second)
		synctest.Wait()

		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Stop(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Stop with a callback still running = %v, want the deadline", err)
		}
		if _, err := s.Schedule(temporal.Second, note("late")); err != driver.ErrServiceStopped {
			t.Fatalf("Schedule after Stop = %v, want ErrServiceStopped", err)
		}
		if pending.Stop() {
			t.Fatal("Stop of a dropped timer = true")
		}
		close(release)
		stop(t, s)
		stop(t, s) // again: still nil
		time.Sleep(2 * time.Hour)
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(ran, []string{"slow"}) {
			t.Fatalf("ran %v, want [slow] (handed was queued, not started, when Stop was called)", ran)
		}
		if s.Pending() != 0 {
			t.Fatalf("Pending = %d after Stop", s.Pending())
		}
	})
}

func TestServiceBadInputs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newService(t, driver.ServiceOptions{})
		mustSchedule(t, s, time.Hour, func() {})
		time.Sleep(time.Second)
		cases := []struct {
			d    temporal.Duration
			f    func()
			want string
		}{
			{temporal.Second, nil, "Service.Schedule: f: want a function, got nil"},
			{-temporal.Nanosecond, func() {}, "Service.Schedule: d: want a duration >= 0, got -PT0.000000001S"},
			{math.MaxInt64, func() {}, "Service.Schedule: d: want a duration <= PT2562047H47M15.854775807S (the service's clock ends at 2^63-1 ns), got PT2562047H47M16.854775807S"},
		}
		for _, c := range cases {
			_, err := s.Schedule(c.d, c.f)
			var oe *temporal.OptionError
			if !errors.As(err, &oe) || err.Error() != c.want {
				t.Errorf("Schedule(%v) error = %v, want an OptionError %q", c.d, err, c.want)
			}
		}
		if s.Pending() != 1 {
			t.Fatalf("Pending = %d after bad Schedules, want 1", s.Pending())
		}
		stop(t, s)
	})
	bad := []struct {
		opts driver.ServiceOptions
		want string
	}{
		{driver.ServiceOptions{Strategy: driver.Pool(0)}, "NewService: Strategy: want Inline() or Pool(n) with n >= 1, got Pool(0)"},
		{driver.ServiceOptions{Strategy: driver.Pool(-2)}, "NewService: Strategy: want Inline() or Pool(n) with n >= 1, got Pool(-2)"},
		{driver.ServiceOptions{Shards: 300}, "NewService: Shards: want 0 (the default) or 1 to 256, got 300"},
		{driver.ServiceOptions{Shards: -1}, "NewService: Shards: want 0 (the default) or 1 to 256, got -1"},
		{driver.ServiceOptions{Geometry: wheel.Geometry{Tick: 1}}, "NewService: Geometry.Slots: want 1 to 8 levels, got []"},
		{driver.ServiceOptions{Geometry: wheel.Geometry{Tick: -1, Slots: []int{4}}}, "NewService: Geometry.Tick: want a duration > 0, got -PT0.000000001S"},
	}
	for _, c := range bad {
		_, err := driver.NewService(c.opts)
		var oe *temporal.OptionError
		if !errors.As(err, &oe) || err.Error() != c.want {
			t.Errorf("NewService(%+v) error = %v, want an OptionError %q", c.opts, err, c.want)
		}
	}
}

// With a Logger the service and its wheel print their decisions.
func TestServiceTrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		var mu sync.Mutex
		h := slog.NewTextHandler(lockedWriter{&mu, &buf}, &slog.HandlerOptions{Level: slog.LevelDebug})
		s := newService(t, driver.ServiceOptions{
			Logger:   slog.New(h),
			Geometry: wheel.Geometry{Tick: temporal.Millisecond, Slots: []int{10, 10}},
			Shards:   1,
		})
		synctest.Wait()
		mustSchedule(t, s, 500*time.Millisecond, func() {})
		synctest.Wait()
		mustSchedule(t, s, 50*time.Millisecond, func() {})
		time.Sleep(time.Second)
		synctest.Wait()
		stop(t, s)
		mu.Lock()
		out := buf.String()
		mu.Unlock()
		for _, want := range []string{
			"msg=\"service: idle, sleeping until a Schedule\"",
			"msg=\"wheel: overflow\"",
			"msg=\"service: woken by an earlier deadline\"",
			"msg=\"service: sleep\" until=50ms",
			"msg=\"service: fire\" due=1 at=50ms",
			"msg=\"wheel: refill from overflow\" back=1 stay=0",
			"msg=\"service: fire\" due=1 at=500ms",
			"msg=\"service: stop\" dropped=0",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("trace lacks %s:\n%s", want, out)
			}
		}
	})
}

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// A callback's own Schedule wakes the loop only if it is due before the
// loop's next deadline would be anyway: here never, so each deadline is
// one wake-up.
func TestServiceCallbackScheduleNoExtraWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newService(t, driver.ServiceOptions{})
		var n atomic.Int32
		var tick func()
		tick = func() {
			if n.Add(1) < 5 {
				mustSchedule(t, s, time.Second, tick)
			}
		}
		synctest.Wait() // the loop sleeps, idle
		mustSchedule(t, s, time.Second, tick)
		synctest.Wait() // the idle loop learns of it: one wake-up
		time.Sleep(time.Minute)
		if got := n.Load(); got != 5 {
			t.Fatalf("%d ticks, want 5", got)
		}
		if w := driver.Wakes(s); w != 6 {
			t.Fatalf("%d wake-ups, want 6 (the first Schedule, five deadlines)", w)
		}
	})
}

// A callback that calls Stop is the last to start: of 100 callbacks due at
// one instant, the one that runs first stops the service and the other 99
// never start. Stop cannot wait for its caller: with a done context it
// returns at once.
func TestServiceStopFromCallback(t *testing.T) {
	for _, st := range []driver.Strategy{driver.Inline(), driver.Pool(1)} {
		t.Run(st.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newService(t, driver.ServiceOptions{Strategy: st})
				done, cancel := context.WithCancel(context.Background())
				cancel()
				var started atomic.Int32
				for range 100 {
					mustSchedule(t, s, time.Second, func() {
						if started.Add(1) == 1 {
							if err := s.Stop(done); !errors.Is(err, context.Canceled) {
								t.Errorf("Stop from a callback = %v, want context.Canceled", err)
							}
						}
					})
				}
				time.Sleep(2 * time.Second)
				stop(t, s)
				if n := started.Load(); n != 1 {
					t.Fatalf("%d callbacks started, want 1: %d started after Stop", n, n-1)
				}
			})
		})
	}
}

// Stop from another goroutine while callbacks run: those running (one
// with Inline, one a worker with Pool) finish, and Stop waits for them;
// the rest of the 100 due at that instant never start.
func TestServiceStopWhileRunning(t *testing.T) {
	for _, st := range []struct {
		s       driver.Strategy
		running int32
	}{{driver.Inline(), 1}, {driver.Pool(1), 1}, {driver.Pool(3), 3}} {
		t.Run(st.s.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newService(t, driver.ServiceOptions{Strategy: st.s})
				release := make(chan struct{})
				var started, finished atomic.Int32
				for range 100 {
					mustSchedule(t, s, time.Second, func() {
						started.Add(1)
						<-release
						finished.Add(1)
					})
				}
				time.Sleep(time.Second)
				synctest.Wait() // the running callbacks are blocked
				if n := started.Load(); n != st.running {
					t.Fatalf("%d callbacks running, want %d", n, st.running)
				}
				stopped := make(chan error)
				go func() { stopped <- s.Stop(context.Background()) }()
				synctest.Wait() // Stop was called and waits
				select {
				case err := <-stopped:
					t.Fatalf("Stop returned %v while callbacks ran", err)
				default:
				}
				close(release)
				if err := <-stopped; err != nil {
					t.Fatal(err)
				}
				if f := finished.Load(); f != st.running {
					t.Fatalf("Stop returned with %d of %d running callbacks finished", f, st.running)
				}
				time.Sleep(time.Hour)
				if n := started.Load(); n != st.running {
					t.Fatalf("%d callbacks started, want %d: %d started after Stop", n, st.running, n-st.running)
				}
			})
		})
	}
}

// Goroutines schedule while another stops the service: after Stop returns
// nil no callback runs, and none is left running. Run under -race.
func TestServiceStopRacesSchedule(t *testing.T) {
	for _, st := range strategies {
		t.Run(st.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newService(t, driver.ServiceOptions{Strategy: st, Shards: 4})
				var returned atomic.Bool
				var ran, late atomic.Int32
				var wg sync.WaitGroup
				for g := range 6 {
					wg.Go(func() {
						r := rand.New(rand.NewPCG(uint64(g), 5))
						for range 200 {
							_, err := s.Schedule(temporal.Duration(r.Int64N(int64(20*time.Millisecond))), func() {
								if returned.Load() {
									late.Add(1)
								}
								ran.Add(1)
							})
							if err != nil && !errors.Is(err, driver.ErrServiceStopped) {
								t.Error(err)
							}
							time.Sleep(time.Duration(r.Int64N(int64(100 * time.Microsecond))))
						}
					})
				}
				time.Sleep(10 * time.Millisecond)
				stop(t, s)
				returned.Store(true)
				wg.Wait()
				time.Sleep(time.Second)
				if late.Load() != 0 {
					t.Fatalf("%d callbacks ran after Stop returned", late.Load())
				}
				if ran.Load() == 0 {
					t.Fatal("no callback ran before Stop: the test tests nothing")
				}
			})
		})
	}
}

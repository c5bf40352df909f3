package hostservices_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

var _ driver.Steppable = (*hostservices.Runner)(nil)

// runnerRig is a host on a fixed clock, its runner, and a log of what ran,
// as "name@elapsed".
type runnerRig struct {
	t   *testing.T
	h   *hostservices.Host
	r   *hostservices.Runner
	log []string
}

func newRunnerRig(t *testing.T, opts hostservices.RunnerOptions) *runnerRig {
	t.Helper()
	h := hostservices.New(temporal.Fixed(epoch))
	r, err := hostservices.NewRunner(h, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &runnerRig{t: t, h: h, r: r}
}

func (g *runnerRig) note(name string) {
	g.log = append(g.log, fmt.Sprintf("%s@%v", name, g.h.Scheduler().Elapsed().Std()))
}

func (g *runnerRig) once(name string, delay temporal.Duration, also ...func()) {
	g.t.Helper()
	if _, err := g.h.ScheduleOnce(delay, func() error {
		g.note(name)
		for _, f := range also {
			f()
		}
		return nil
	}); err != nil {
		g.t.Fatal(err)
	}
}

func (g *runnerRig) facet(name string) {
	g.t.Helper()
	if err := g.h.Register(name, hostservices.FacetFunc(func(float64) error { g.note(name); return nil })); err != nil {
		g.t.Fatal(err)
	}
}

// runnerStep is one Next (want wait and ok, or the stop reason) and, when
// ok, one Step of step (wait if step is zero), after which the log gained
// ran.
type runnerStep struct {
	wait time.Duration
	stop hostservices.StopReason // with ok false
	step time.Duration
	ran  []string
}

func (g *runnerRig) run(steps []runnerStep) {
	g.t.Helper()
	for i, st := range steps {
		wait, ok := g.r.Next()
		if st.stop != hostservices.StopNone {
			if ok || g.r.Stopped() != st.stop {
				g.t.Fatalf("step %d: Next = %v, %v, Stopped %v; want false, %v", i, wait, ok, g.r.Stopped(), st.stop)
			}
			continue
		}
		if !ok || wait.Std() != st.wait {
			g.t.Fatalf("step %d: Next = %v, %v (Stopped %v); want %v, true", i, wait, ok, g.r.Stopped(), st.wait)
		}
		if st.step == 0 {
			st.step = wait.Std()
		}
		g.log = nil
		if err := g.r.Step(temporal.Duration(st.step)); err != nil {
			g.t.Fatalf("step %d: %v", i, err)
		}
		if !slices.Equal(g.log, st.ran) {
			g.t.Fatalf("step %d: Step(%v) ran %q, want %q", i, st.step, g.log, st.ran)
		}
	}
}

func ran(s ...string) []string { return s }

// With jobs only, the runner goes from deadline to deadline: no frames.
func TestRunnerJobsOnlyWaitForTheNextDeadline(t *testing.T) {
	g := newRunnerRig(t, hostservices.RunnerOptions{Frame: 10 * ms})
	g.once("a", 5*ms)
	g.once("b", 30*ms)
	g.once("c", 30*ms)
	g.run([]runnerStep{
		{wait: 5 * time.Millisecond, ran: ran("a@5ms")},
		{wait: 25 * time.Millisecond, step: 25*time.Millisecond - 1, ran: nil}, // a nanosecond early
		{wait: 1, ran: ran("b@30ms", "c@30ms")},
		{stop: hostservices.StopIdle},
	})
}

// With facets, frames fall on a grid that keeps its phase when steps are
// late, and starts again when a step leaves it more than a frame behind
// (the timeline in the Runner doc).
func TestRunnerFrameGrid(t *testing.T) {
	g := newRunnerRig(t, hostservices.RunnerOptions{Frame: 10 * ms})
	g.facet("f")
	g.once("job", 45*ms)
	g.run([]runnerStep{
		{wait: 10 * time.Millisecond, step: 13 * time.Millisecond, ran: ran("f@13ms")},
		{wait: 7 * time.Millisecond, step: 9 * time.Millisecond, ran: ran("f@22ms")},
		{wait: 8 * time.Millisecond, step: 25 * time.Millisecond, ran: ran("job@45ms", "f@47ms")},
		{wait: 10 * time.Millisecond, ran: ran("f@57ms")},
	})
	// Without facets the runner goes back to deadlines; a facet registered
	// again starts a new grid one frame later.
	g.h.Unregister("f")
	g.once("late", 100*ms)
	g.run([]runnerStep{{wait: 100 * time.Millisecond, ran: ran("late@157ms")}})
	g.facet("f")
	g.run([]runnerStep{
		{wait: 10 * time.Millisecond, step: 4 * time.Millisecond, ran: ran("f@161ms")}, // early: the frame stays due
		{wait: 6 * time.Millisecond, ran: ran("f@167ms")},
		{wait: 10 * time.Millisecond, ran: ran("f@177ms")},
	})
}

// A zero Frame is 60 frames a second, to the microsecond.
func TestRunnerDefaultFrame(t *testing.T) {
	g := newRunnerRig(t, hostservices.RunnerOptions{})
	g.facet("f")
	g.run([]runnerStep{{wait: 16667 * time.Microsecond, ran: ran("f@16.667ms")}})
}

func TestRunnerUntil(t *testing.T) {
	g := newRunnerRig(t, hostservices.RunnerOptions{Until: 25 * ms})
	if _, err := g.h.ScheduleEvery(sched.Every{Interval: 10 * ms}, func() error { g.note("tick"); return nil }); err != nil {
		t.Fatal(err)
	}
	g.run([]runnerStep{
		{wait: 10 * time.Millisecond, ran: ran("tick@10ms")},
		{wait: 10 * time.Millisecond, step: time.Hour, ran: ran("tick@20ms")}, // cut to end at 25ms
		{stop: hostservices.StopUntil},
	})
	if got := g.h.Scheduler().Elapsed(); got != 25*ms {
		t.Errorf("elapsed %v, want exactly Until", got)
	}
	// The wait is cut to end at Until too.
	g = newRunnerRig(t, hostservices.RunnerOptions{Until: 25 * ms})
	g.once("never", 30*ms)
	g.run([]runnerStep{{wait: 25 * time.Millisecond, ran: nil}, {stop: hostservices.StopUntil}})
}

// The host's time cannot pass the last instant it can hold (int64
// nanoseconds since 1970): the last frame is cut to end there, as at
// Until, and the next one stops the run instead of failing in UpdateBy.
func TestRunnerLastInstant(t *testing.T) {
	last := temporal.FromUnixNano(math.MaxInt64)
	h := hostservices.New(temporal.Fixed(temporal.FromUnixNano(math.MaxInt64 - int64(25*ms))))
	r, err := hostservices.NewRunner(h, hostservices.RunnerOptions{Frame: 10 * ms})
	if err != nil {
		t.Fatal(err)
	}
	g := &runnerRig{t: t, h: h, r: r}
	g.facet("f")
	g.once("job", 25*ms)
	g.run([]runnerStep{
		{wait: 10 * time.Millisecond, ran: ran("f@10ms")},
		{wait: 10 * time.Millisecond, ran: ran("f@20ms")},
		{wait: 5 * time.Millisecond, step: time.Hour, ran: ran("job@25ms", "f@25ms")}, // cut to end at the last instant
		{stop: hostservices.StopLastInstant},
	})
	if h.Now() != last {
		t.Errorf("the host is at %v, want %v", h.Now(), last)
	}
	// Without facets nothing is left to run there: the run is idle.
	h.Unregister("f")
	g.run([]runnerStep{{stop: hostservices.StopIdle}})
}

// A paused host stops the run: nothing the runner runs could resume it.
// Resumed from outside, the same runner goes on.
func TestRunnerPaused(t *testing.T) {
	g := newRunnerRig(t, hostservices.RunnerOptions{Frame: 10 * ms})
	g.once("pause", 15*ms, func() { g.h.SetPaused(true) })
	g.once("after", 40*ms)
	g.facet("f")
	if err := driver.RunVirtual(t.Context(), g.r); err != nil || g.r.Stopped() != hostservices.StopPaused {
		t.Fatalf("RunVirtual = %v, Stopped %v; want nil, paused", err, g.r.Stopped())
	}
	// The pause takes effect from the next frame: the frame that paused ends.
	if want := ran("f@10ms", "pause@15ms", "f@20ms"); !slices.Equal(g.log, want) {
		t.Fatalf("ran %q, want %q", g.log, want)
	}
	g.h.SetPaused(false)
	g.h.Unregister("f")
	g.log = nil
	if err := driver.RunVirtual(t.Context(), g.r); err != nil || g.r.Stopped() != hostservices.StopIdle {
		t.Fatalf("RunVirtual = %v, Stopped %v; want nil, idle", err, g.r.Stopped())
	}
	if want := ran("after@40ms"); !slices.Equal(g.log, want) {
		t.Fatalf("ran %q after resuming, want %q", g.log, want)
	}
}

// Quit from a job ends the run after that job's frame: the frame's facets
// still run, and Quit cannot be undone.
func TestRunnerQuit(t *testing.T) {
	g := newRunnerRig(t, hostservices.RunnerOptions{Frame: 10 * ms})
	g.once("quit", 15*ms, g.r.Quit)
	g.once("never", 25*ms)
	g.facet("f")
	if err := driver.RunVirtual(t.Context(), g.r); err != nil || g.r.Stopped() != hostservices.StopQuit {
		t.Fatalf("RunVirtual = %v, Stopped %v; want nil, quit", err, g.r.Stopped())
	}
	if want := ran("f@10ms", "quit@15ms", "f@20ms"); !slices.Equal(g.log, want) {
		t.Fatalf("ran %q, want %q", g.log, want)
	}
	if _, ok := g.r.Next(); ok {
		t.Fatal("Next reports true after Quit")
	}
}

func TestRunnerIdle(t *testing.T) {
	g := newRunnerRig(t, hostservices.RunnerOptions{})
	if g.r.Stopped() != hostservices.StopNone {
		t.Fatalf("Stopped before any Next = %v", g.r.Stopped())
	}
	if err := driver.RunVirtual(t.Context(), g.r); err != nil || g.r.Stopped() != hostservices.StopIdle || g.h.Scheduler().Elapsed() != 0 {
		t.Fatalf("RunVirtual = %v, Stopped %v, elapsed %v; want nil, idle, 0", err, g.r.Stopped(), g.h.Scheduler().Elapsed())
	}
	// A cancelled job leaves nothing pending.
	h, err := g.h.ScheduleOnce(ms, func() error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	h.Cancel()
	g.run([]runnerStep{{stop: hostservices.StopIdle}})
}

func TestRunnerErrorsAndContext(t *testing.T) {
	g := newRunnerRig(t, hostservices.RunnerOptions{})
	boom := errors.New("boom")
	if _, err := g.h.ScheduleOnce(ms, func() error { return boom }); err != nil {
		t.Fatal(err)
	}
	g.once("after", 2*ms)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := driver.RunVirtual(ctx, g.r); !errors.Is(err, context.Canceled) || g.h.Scheduler().Elapsed() != 0 {
		t.Fatalf("RunVirtual(cancelled) = %v at %v; want context.Canceled before any step", err, g.h.Scheduler().Elapsed())
	}
	var je *sched.JobError
	if err := driver.RunVirtual(t.Context(), g.r); !errors.As(err, &je) || !errors.Is(err, boom) {
		t.Fatalf("RunVirtual = %v, want the job's error in a *sched.JobError", err)
	}
	if g.r.Stopped() != hostservices.StopNone || len(g.log) != 0 {
		t.Fatalf("Stopped %v, ran %q after a job's error", g.r.Stopped(), g.log)
	}
	// The run goes on from the failed job's deadline.
	if err := driver.RunVirtual(t.Context(), g.r); err != nil || !slices.Equal(g.log, ran("after@2ms")) {
		t.Fatalf("RunVirtual = %v, ran %q", err, g.log)
	}
}

func TestNewRunnerRefusesNegativeOptions(t *testing.T) {
	h := hostservices.New(temporal.Fixed(epoch))
	for _, opts := range []hostservices.RunnerOptions{{Frame: -1}, {Until: -ms}} {
		r, err := hostservices.NewRunner(h, opts)
		var oe *temporal.OptionError
		if r != nil || !errors.As(err, &oe) || oe.Method != "NewRunner" {
			t.Errorf("NewRunner(%+v) = %v, %v; want a *temporal.OptionError from NewRunner", opts, r, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NewRunner(nil) did not panic")
		}
	}()
	hostservices.NewRunner(nil, hostservices.RunnerOptions{})
}

// driver.Run steps the runner in wall time (the fake clock of synctest):
// the same jobs and frames as RunVirtual, each at its wall time. While
// facets are registered a job runs in the frame that crosses its deadline.
func TestRunnerInRealTime(t *testing.T) {
	scenario := func(g *runnerRig, wall func() string) {
		tick := 0
		g.h.ScheduleEvery(sched.Every{Interval: 25 * ms}, func() error {
			tick++
			g.log = append(g.log, fmt.Sprintf("tick@%v%s", g.h.Scheduler().Elapsed().Std(), wall()))
			if tick == 2 {
				g.h.Register("f", hostservices.FacetFunc(func(float64) error {
					g.log = append(g.log, fmt.Sprintf("f@%v%s", g.h.Scheduler().Elapsed().Std(), wall()))
					return nil
				}))
			}
			return nil
		})
	}
	opts := hostservices.RunnerOptions{Frame: 10 * ms, Until: 80 * ms}

	virtual := newRunnerRig(t, opts)
	scenario(virtual, func() string { return "" })
	if err := driver.RunVirtual(t.Context(), virtual.r); err != nil || virtual.r.Stopped() != hostservices.StopUntil {
		t.Fatalf("RunVirtual = %v, Stopped %v", err, virtual.r.Stopped())
	}
	if want := ran("tick@25ms", "tick@50ms", "f@60ms", "f@70ms", "tick@75ms", "f@80ms"); !slices.Equal(virtual.log, want) {
		t.Errorf("in virtual time ran %q, want %q", virtual.log, want)
	}

	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		g := newRunnerRig(t, opts)
		scenario(g, func() string { return fmt.Sprintf(" wall %v", time.Since(start)) })
		if err := driver.Run(t.Context(), g.r, driver.Options{}); err != nil || g.r.Stopped() != hostservices.StopUntil {
			t.Fatalf("driver.Run = %v, Stopped %v", err, g.r.Stopped())
		}
		if time.Since(start) != 80*time.Millisecond {
			t.Errorf("driver.Run returned at %v, want at Until", time.Since(start))
		}
		want := ran("tick@25ms wall 25ms", "tick@50ms wall 50ms", "f@60ms wall 60ms",
			"f@70ms wall 70ms", "tick@75ms wall 80ms", "f@80ms wall 80ms")
		if !slices.Equal(g.log, want) {
			t.Errorf("in wall time ran %q, want %q", g.log, want)
		}
	})
}

// Another goroutine reaches the host through driver.Options.Calls; a call
// that resumes a paused host resumes the run.
func TestRunnerCallsResumeAPausedHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		g := newRunnerRig(t, hostservices.RunnerOptions{})
		g.h.SetPaused(true)
		g.once("job", temporal.Second)
		calls := make(chan func() error)
		done := make(chan error)
		go func() { done <- driver.Run(t.Context(), g.r, driver.Options{Calls: calls}) }()
		time.Sleep(time.Minute)
		synctest.Wait()
		if g.r.Stopped() != hostservices.StopPaused || g.h.Scheduler().Elapsed() != 0 || len(g.log) != 0 {
			t.Fatalf("paused for a minute: Stopped %v, elapsed %v, ran %q", g.r.Stopped(), g.h.Scheduler().Elapsed(), g.log)
		}
		calls <- func() error { g.h.SetPaused(false); return nil }
		time.Sleep(2 * time.Second)
		synctest.Wait()
		// Paused time is not the host's: the job runs a second after the resume.
		if want := ran("job@1s"); !slices.Equal(g.log, want) {
			t.Fatalf("ran %q, want %q", g.log, want)
		}
		close(calls)
		if err := <-done; err != nil || g.r.Stopped() != hostservices.StopIdle {
			t.Fatalf("driver.Run = %v, Stopped %v", err, g.r.Stopped())
		}
		if got := time.Since(start); got != time.Minute+2*time.Second {
			t.Errorf("returned at %v", got)
		}
	})
}

// A host with a facet runs frame by frame on its grid until Until; the job
// due at 25ms runs in the frame that crosses it.
func ExampleRunner_virtual() {
	h := hostservices.New(temporal.Fixed(temporal.FromUnixNano(0)))
	h.ScheduleOnce(25*temporal.Millisecond, func() error {
		fmt.Println("job at", h.Scheduler().Elapsed().DecimalSeconds())
		return nil
	})
	h.Register("physics", hostservices.FacetFunc(func(dt float64) error {
		fmt.Println("frame at", h.Scheduler().Elapsed().DecimalSeconds(), "dt", dt)
		return nil
	}))
	r, err := hostservices.NewRunner(h, hostservices.RunnerOptions{Frame: 10 * temporal.Millisecond, Until: 40 * temporal.Millisecond})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := driver.RunVirtual(context.Background(), r); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stopped:", r.Stopped())
	// Output:
	// frame at 0.01s dt 10
	// frame at 0.02s dt 10
	// job at 0.025s
	// frame at 0.03s dt 10
	// frame at 0.04s dt 10
	// stopped: until
}

package hostservices_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/compat"
	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

const (
	ns = temporal.Nanosecond
	ms = temporal.Millisecond
	s  = temporal.Second
)

var epoch = temporal.FromUnixNano(946684800 * 1e9) // 2000-01-01T00:00:00Z

// rig is a host and a log of what ran, as "name@elapsed".
type rig struct {
	t   *testing.T
	h   *hostservices.Host
	log []string
}

func newRig(t *testing.T) *rig {
	return &rig{t: t, h: hostservices.New(temporal.Fixed(epoch))}
}

func (r *rig) elapsed() string {
	d, err := r.h.Now().Sub(epoch)
	if err != nil {
		r.t.Fatal(err)
	}
	return d.DecimalSeconds()
}

func (r *rig) note(name string) { r.log = append(r.log, name+"@"+r.elapsed()) }

func (r *rig) cb(name string) func() error {
	return func() error { r.note(name); return nil }
}

// facet records "name(dt)@elapsed".
func (r *rig) facet(name string) hostservices.FacetFunc {
	return func(dt float64) error {
		r.log = append(r.log, fmt.Sprintf("%s(%v)@%s", name, dt, r.elapsed()))
		return nil
	}
}

func (r *rig) once(name string, d temporal.Duration) sched.Handle {
	r.t.Helper()
	h, err := r.h.ScheduleOnce(d, r.cb(name))
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

func (r *rig) every(name string, d temporal.Duration) sched.Handle {
	r.t.Helper()
	h, err := r.h.ScheduleEvery(sched.Every{Interval: d}, r.cb(name))
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

func (r *rig) register(name string, f hostservices.Facet) {
	r.t.Helper()
	if err := r.h.Register(name, f); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) take() []string { l := r.log; r.log = nil; return l }

// frame is one host call and what it should have run.
type frame struct {
	paused bool    // SetPaused before the call
	step   bool    // Step instead of Update
	ms     float64 // the delta
	want   []string
}

func (r *rig) run(frames []frame) {
	r.t.Helper()
	for i, f := range frames {
		r.h.SetPaused(f.paused)
		call, err := "update", error(nil)
		if f.step {
			call, err = "step", r.h.Step(f.ms)
		} else {
			err = r.h.Update(f.ms)
		}
		if err != nil {
			r.t.Fatalf("frame %d: %s(%v): %v", i, call, f.ms, err)
		}
		if got := r.take(); !slices.Equal(got, f.want) {
			r.t.Fatalf("frame %d: %s(%v) ran %q, want %q", i, call, f.ms, got, f.want)
		}
	}
}

func (r *rig) elapsedIs(want temporal.Duration) {
	r.t.Helper()
	if got := r.h.Scheduler().Elapsed(); got != want {
		r.t.Fatalf("elapsed %v, want %v", got, want)
	}
}

// --- The host's scheduler ---

// "app-host.services.make-scheduler owns an internal runtime scheduler and
// exposes typed delegation methods."
func TestHostOwnsPrivateScheduler(t *testing.T) {
	a := hostservices.New(temporal.Fixed(epoch))
	b := hostservices.New(temporal.Fixed(later(5 * s)))
	if a.Scheduler() == b.Scheduler() {
		t.Fatal("two hosts share a scheduler")
	}
	if got := b.Now(); got != later(5*s) {
		t.Fatalf("Now %v, want the clock's instant", got)
	}
	ran := 0
	if _, err := a.ScheduleOnce(10*ms, func() error { ran++; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := b.Update(20); err != nil {
		t.Fatal(err)
	}
	if ran != 0 || a.Scheduler().Count(a.Jobs()) != 1 || b.Scheduler().Count(b.Jobs()) != 0 {
		t.Fatalf("updating one host moved the other: ran %d", ran)
	}
}

func TestTypedScheduleOnceDelegates(t *testing.T) {
	r := newRig(t)
	h := r.once("a", 10*ms)
	if !h.Active() || r.h.Scheduler().Count(r.h.Jobs()) != 1 || r.h.Scheduler().Count() != 1 {
		t.Fatal("schedule-once did not reach the host's jobs")
	}
	r.run([]frame{
		{ms: 10 - 1e-6}, // one nanosecond early
		{ms: 1e-6, want: []string{"a@0.01s"}},
		{ms: 100},
	})
}

func TestTypedScheduleEveryDelegates(t *testing.T) {
	r := newRig(t)
	r.every("e", 10*ms)
	r.run([]frame{
		{ms: 35, want: []string{"e@0.01s", "e@0.02s", "e@0.03s"}},
		{ms: 5, want: []string{"e@0.04s"}},
	})
	if info := r.h.Scheduler().List(r.h.Jobs()); len(info) != 1 || info[0].Kind != sched.KindEvery || info[0].Interval != 10*ms {
		t.Fatalf("jobs %+v", info)
	}
}

func TestTypedScheduleRecurrenceDelegates(t *testing.T) {
	r := newRig(t)
	set, err := temporal.NewRecurrenceSet(temporal.RecurrenceSpec{
		DTStart: mustLocal(t, "2000-01-01T00:00:01"),
		RRules:  []string{"FREQ=SECONDLY;COUNT=3"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	_, err = r.h.ScheduleRecurrence(sched.Recurrence{Set: set, Zone: "UTC"}, func(at temporal.Instant, index int) error {
		got = append(got, fmt.Sprintf("%d@%s", index, r.elapsed()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.h.Update(10_000); err != nil {
		t.Fatal(err)
	}
	if want := []string{"1@1s", "2@2s", "3@3s"}; !slices.Equal(got, want) {
		t.Fatalf("fired %q, want %q", got, want)
	}
}

func TestTypedScheduleRefusesBadArgumentsAndChangesNothing(t *testing.T) {
	r := newRig(t)
	r.every("keep", 5*ms)
	before := r.h.Scheduler().List(r.h.Jobs())
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"negative delay", func() error { _, err := r.h.ScheduleOnce(-1, r.cb("x")); return err }, "ScheduleOnce: delay: want a duration >= 0, got -PT0.000000001S"},
		{"nil once", func() error { _, err := r.h.ScheduleOnce(ms, nil); return err }, "ScheduleOnce: fn: want a function"},
		{"zero interval", func() error { _, err := r.h.ScheduleEvery(sched.Every{Interval: 0}, r.cb("x")); return err }, "ScheduleEvery: e.Interval: want a duration > 0, got PT0S"},
		{"nil recurrence set", func() error {
			_, err := r.h.ScheduleRecurrence(sched.Recurrence{Zone: "UTC"}, func(temporal.Instant, int) error { return nil })
			return err
		}, "ScheduleRecurrence: r.Set"},
	} {
		err := c.call()
		var oe *temporal.OptionError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want an OptionError containing %q", c.name, err, c.want)
		}
	}
	if after := r.h.Scheduler().List(r.h.Jobs()); !slices.Equal(after, before) {
		t.Fatalf("jobs changed: %+v -> %+v", before, after)
	}
}

// "The existing facet registry remains separate: register, unregister, and
// list continue to operate on update facets, not internal timer jobs."
func TestFacetRegistrySeparateFromJobs(t *testing.T) {
	r := newRig(t)
	r.once("job", 10*ms)
	if got := r.h.Facets(); len(got) != 0 {
		t.Fatalf("facets %q: a job shows up as a facet", got)
	}
	r.register("physics", r.facet("physics"))
	if n := r.h.Scheduler().Count(r.h.Jobs()); n != 1 {
		t.Fatalf("%d jobs: registering a facet added or removed jobs", n)
	}
	if r.h.Unregister("job") {
		t.Fatal("unregister removed something named like no facet")
	}
	if err := r.h.Clear(); err != nil {
		t.Fatal(err)
	}
	if got := r.h.Facets(); !slices.Equal(got, []string{"physics"}) {
		t.Fatalf("facets %q after clear, want physics: clear reaches jobs only", got)
	}
	r.once("job2", ms)
	if !r.h.Unregister("physics") || r.h.Scheduler().Count(r.h.Jobs()) != 1 {
		t.Fatal("unregister touched the jobs")
	}
}

// "Normal update(delta-ms) advances typed scheduled work before facets when
// not paused."
func TestUpdateRunsJobsBeforeFacets(t *testing.T) {
	r := newRig(t)
	r.register("physics", r.facet("physics"))
	r.once("a", 16*ms)
	r.every("e", 10*ms)
	r.register("ai", r.facet("ai"))
	r.run([]frame{
		{ms: 16, want: []string{"e@0.01s", "a@0.016s", "physics(16)@0.016s", "ai(16)@0.016s"}},
		{ms: 4, want: []string{"e@0.02s", "physics(4)@0.02s", "ai(4)@0.02s"}},
	})
}

// "set-paused true prevents normal updates from advancing both typed
// scheduled work and facets."
func TestPausedUpdateAdvancesNeitherJobsNorFacets(t *testing.T) {
	r := newRig(t)
	r.register("physics", r.facet("physics"))
	r.once("a", 0)
	r.every("e", ms)
	before := r.h.Scheduler().List(r.h.Jobs())
	r.run([]frame{{paused: true, ms: 1000}, {paused: true, ms: 0}})
	r.elapsedIs(0)
	if after := r.h.Scheduler().List(r.h.Jobs()); !slices.Equal(after, before) {
		t.Fatalf("paused update changed the jobs: %+v -> %+v", before, after)
	}
	if !r.h.Paused() {
		t.Fatal("Paused() false after SetPaused(true)")
	}
}

// "step(delta-ms) advances typed scheduled work and facets even while
// paused."
func TestStepAdvancesJobsAndFacetsWhilePaused(t *testing.T) {
	r := newRig(t)
	r.register("physics", r.facet("physics"))
	r.every("e", 10*ms)
	r.run([]frame{
		{paused: true, step: true, ms: 10, want: []string{"e@0.01s", "physics(10)@0.01s"}},
		{paused: true, ms: 10},
		{paused: true, step: true, ms: 5, want: []string{"physics(5)@0.015s"}},
	})
	if !r.h.Paused() {
		t.Fatal("step unpaused the host")
	}
	r.elapsedIs(15 * ms)
}

func TestStepWhenNotPausedIsAnUpdate(t *testing.T) {
	r := newRig(t)
	r.register("f", r.facet("f"))
	r.once("a", 5*ms)
	r.run([]frame{{step: true, ms: 5, want: []string{"a@0.005s", "f(5)@0.005s"}}})
}

// --- Catch-up and lifecycle policy, as the host sees it ---

// "Host pause does not accumulate hidden elapsed time: paused host update
// calls do not advance scheduled work."
// 10 paused updates of 1 s, then an unpaused update of 16 ms, fire only what
// is due within those 16 ms.
func TestPausedUpdatesAccumulateNoHiddenTime(t *testing.T) {
	r := newRig(t)
	r.register("f", r.facet("f"))
	r.once("at10", 10*ms)
	r.once("at16", 16*ms)
	r.once("at17", 17*ms)
	r.once("at5s", 5*s)
	r.every("e", 8*ms)
	frames := make([]frame, 10)
	for i := range frames {
		frames[i] = frame{paused: true, ms: 1000}
	}
	frames = append(frames, frame{ms: 16, want: []string{"e@0.008s", "at10@0.01s", "at16@0.016s", "e@0.016s", "f(16)@0.016s"}})
	r.run(frames)
	r.elapsedIs(16 * ms)
	if n := r.h.Scheduler().Count(r.h.Jobs()); n != 3 {
		t.Fatalf("%d jobs pending, want at17, at5s and e", n)
	}
}

// "An explicit host step(delta-ms) does advance scheduled work while paused."
func TestExplicitStepAdvancesScheduledWorkWhilePaused(t *testing.T) {
	r := newRig(t)
	r.once("a", 16*ms)
	r.run([]frame{
		{paused: true, ms: 16},
		{paused: true, step: true, ms: 16, want: []string{"a@0.016s"}},
	})
}

// "Interval jobs fire once for each missed interval during a single ...
// host step."
func TestHostStepCatchesUpEachMissedInterval(t *testing.T) {
	r := newRig(t)
	r.every("e", 10*ms)
	r.run([]frame{{paused: true, step: true, ms: 35, want: []string{"e@0.01s", "e@0.02s", "e@0.03s"}}})
}

// "Due jobs run by earliest deadline, then creation order for equal
// deadlines." Host jobs and compatibility timers share the one timeline.
func TestHostJobsAndCompatTimersInterleaveByDeadlineThenCreation(t *testing.T) {
	r := newRig(t)
	tm := compat.New(r.h.Scheduler())
	compatCb := func(name string) func() error { return r.cb(name) }
	must(tm.Timeout(10, compatCb("t10")))
	r.once("h10", 10*ms)
	must(tm.Interval(5, compatCb("i5")))
	r.once("h5", 5*ms)
	must(tm.Timeout(0, compatCb("t0")))
	r.register("f", r.facet("f"))
	r.run([]frame{
		{paused: true, ms: 100}, // a paused update advances neither
		{ms: 10, want: []string{"t0@0s", "i5@0.005s", "h5@0.005s", "t10@0.01s", "h10@0.01s", "i5@0.01s", "f(10)@0.01s"}},
	})
}

// "Callback errors propagate out of advance, update, and host step; they are
// not swallowed."
func TestJobErrorPropagatesOutOfUpdateAndStep(t *testing.T) {
	for _, step := range []bool{false, true} {
		r := newRig(t)
		boom := errors.New("boom")
		r.register("f", r.facet("f"))
		r.once("a", 5*ms)
		if _, err := r.h.ScheduleOnce(10*ms, func() error { return boom }); err != nil {
			t.Fatal(err)
		}
		r.once("c", 15*ms)
		var err error
		if step {
			r.h.SetPaused(true)
			err = r.h.Step(20)
		} else {
			err = r.h.Update(20)
		}
		var je *sched.JobError
		if !errors.Is(err, boom) || !errors.As(err, &je) {
			t.Fatalf("step=%v: error %v, want the job's error in a JobError", step, err)
		}
		if got := r.take(); !slices.Equal(got, []string{"a@0.005s"}) {
			t.Fatalf("step=%v: ran %q: the frame should stop at the failing job, facets included", step, got)
		}
		r.elapsedIs(10 * ms)
		r.h.SetPaused(false)
		r.run([]frame{{ms: 5, want: []string{"c@0.015s", "f(5)@0.015s"}}})
	}
}

// "Cancelling or dropping a handle is idempotent and prevents future
// callbacks." "clear/drop deactivate all pending work."
func TestClearDeactivatesHostJobsOnly(t *testing.T) {
	r := newRig(t)
	tm := compat.New(r.h.Scheduler())
	h := r.once("host", 5*ms)
	must(tm.Timeout(5, r.cb("compat")))
	if err := r.h.Clear(); err != nil {
		t.Fatal(err)
	}
	if h.Active() || r.h.Scheduler().Count(r.h.Jobs()) != 0 {
		t.Fatal("host job still active after Clear")
	}
	r.run([]frame{{ms: 5, want: []string{"compat@0.005s"}}})
	h2 := r.once("again", ms)
	if first, second := h2.Cancel(), h2.Cancel(); !first || second || h2.Active() {
		t.Fatalf("Cancel, Cancel = %v, %v, active %v; want true, false (only the first stopped the job), false", first, second, h2.Active())
	}
	r.run([]frame{{ms: 5}})
}

// --- Facet rules (LUA-API "app-host") ---

func TestRegisterTakenNameIsAnErrorNamingIt(t *testing.T) {
	r := newRig(t)
	r.register("physics", r.facet("physics"))
	err := r.h.Register("physics", r.facet("other"))
	if !errors.Is(err, hostservices.ErrNameTaken) || !strings.Contains(err.Error(), `"physics"`) {
		t.Fatalf("error %v, want ErrNameTaken naming physics", err)
	}
	r.run([]frame{{ms: 1, want: []string{"physics(1)@0.001s"}}})
}

func TestRegisterRefusesEmptyNameAndNilFacet(t *testing.T) {
	r := newRig(t)
	for _, c := range []struct {
		name string
		f    hostservices.Facet
		want string
	}{
		{"", r.facet("x"), `Register: name: want a non-empty string, got ""`},
		{"x", nil, "Register: f: want a facet, got nil"},
		{"x", hostservices.FacetFunc(nil), "Register: f: want a facet, got nil FacetFunc"},
	} {
		err := r.h.Register(c.name, c.f)
		var oe *temporal.OptionError
		if !errors.As(err, &oe) || err.Error() != c.want {
			t.Errorf("Register(%q, %v): %v, want %q", c.name, c.f, err, c.want)
		}
	}
	if got := r.h.Facets(); len(got) != 0 {
		t.Fatalf("facets %q after refused registrations", got)
	}
}

func TestUnregisterUnknownNameReturnsFalse(t *testing.T) {
	r := newRig(t)
	if r.h.Unregister("nope") {
		t.Fatal("Unregister of an unknown name returned true")
	}
	r.register("a", r.facet("a"))
	if !r.h.Unregister("a") || r.h.Unregister("a") {
		t.Fatal("Unregister twice: want true, then false")
	}
}

func TestFacetsListedInRegistrationOrder(t *testing.T) {
	r := newRig(t)
	for _, n := range []string{"zeta", "alpha", "mid"} {
		r.register(n, r.facet(n))
	}
	r.h.Unregister("zeta")
	r.register("zeta", r.facet("zeta"))
	if got, want := r.h.Facets(), []string{"alpha", "mid", "zeta"}; !slices.Equal(got, want) {
		t.Fatalf("Facets %q, want %q", got, want)
	}
	r.run([]frame{{ms: 2, want: []string{"alpha(2)@0.002s", "mid(2)@0.002s", "zeta(2)@0.002s"}}})
}

func TestFacetRegisteredDuringUpdateFirstRunsNextUpdate(t *testing.T) {
	r := newRig(t)
	r.register("a", hostservices.FacetFunc(func(dt float64) error {
		r.note("a")
		if !slices.Contains(r.h.Facets(), "late") {
			r.register("late", r.facet("late"))
		}
		return nil
	}))
	// A job registers one too.
	if _, err := r.h.ScheduleOnce(0, func() error { r.register("byjob", r.facet("byjob")); return nil }); err != nil {
		t.Fatal(err)
	}
	r.run([]frame{
		{ms: 1, want: []string{"a@0.001s"}},
		{ms: 1, want: []string{"a@0.002s", "byjob(1)@0.002s", "late(1)@0.002s"}},
	})
}

func TestFacetUnregisteredDuringUpdateDoesNotRunLaterInIt(t *testing.T) {
	r := newRig(t)
	r.register("a", hostservices.FacetFunc(func(float64) error {
		r.note("a")
		r.h.Unregister("c")
		return nil
	}))
	r.register("b", r.facet("b"))
	r.register("c", r.facet("c"))
	// A job unregisters one before any facet runs.
	r.register("d", r.facet("d"))
	if _, err := r.h.ScheduleOnce(0, func() error { r.h.Unregister("d"); return nil }); err != nil {
		t.Fatal(err)
	}
	r.run([]frame{
		{ms: 1, want: []string{"a@0.001s", "b(1)@0.001s"}},
		{ms: 1, want: []string{"a@0.002s", "b(1)@0.002s"}},
	})
}

func TestNoFacetSkippedOrRunTwiceInAFrame(t *testing.T) {
	r := newRig(t)
	// b unregisters itself and a (both already ran or running), then
	// re-registers a: nothing after b may shift, a must not run again.
	r.register("a", r.facet("a"))
	r.register("b", hostservices.FacetFunc(func(dt float64) error {
		r.note("b")
		r.h.Unregister("a")
		r.h.Unregister("b")
		r.register("a", r.facet("a"))
		return nil
	}))
	r.register("c", r.facet("c"))
	r.register("d", r.facet("d"))
	r.run([]frame{
		{ms: 1, want: []string{"a(1)@0.001s", "b@0.001s", "c(1)@0.001s", "d(1)@0.001s"}},
		{ms: 1, want: []string{"c(1)@0.002s", "d(1)@0.002s", "a(1)@0.002s"}},
	})
}

func TestFacetsReceiveTheFrameDelta(t *testing.T) {
	r := newRig(t)
	var got []float64
	r.register("f", hostservices.FacetFunc(func(dt float64) error { got = append(got, dt); return nil }))
	for _, call := range []func() error{
		func() error { return r.h.Update(16.6) },
		func() error { return r.h.Step(0) },
		func() error { return r.h.UpdateBy(1500 * temporal.Microsecond) },
		func() error { return r.h.StepBy(2*s + 1*ns) },
	} {
		if err := call(); err != nil {
			t.Fatal(err)
		}
	}
	if want := []float64{16.6, 0, 1.5, 2000.000001}; !slices.Equal(got, want) {
		t.Fatalf("deltas %v, want %v", got, want)
	}
	r.elapsedIs(16_600_000 + 1_500_000 + 2*s + 1)
}

func TestFacetErrorStopsRemainingFacetsAndNamesTheFacet(t *testing.T) {
	r := newRig(t)
	boom := errors.New("boom")
	r.register("a", r.facet("a"))
	r.register("bad", hostservices.FacetFunc(func(float64) error { return boom }))
	r.register("c", r.facet("c"))
	err := r.h.Update(1)
	var fe *hostservices.FacetError
	if !errors.Is(err, boom) || !errors.As(err, &fe) || fe.Name != "bad" || err.Error() != `facet "bad": boom` {
		t.Fatalf("error %v, want a FacetError naming bad", err)
	}
	if got := r.take(); !slices.Equal(got, []string{"a(1)@0.001s"}) {
		t.Fatalf("ran %q, want only a", got)
	}
	r.elapsedIs(ms) // the frame's time was applied before the facets
}

// --- Deltas, pause, lifecycle ---

func TestMalformedDeltaIsAnErrorAndChangesNothing(t *testing.T) {
	for _, paused := range []bool{false, true} {
		r := newRig(t)
		r.register("f", r.facet("f"))
		r.once("a", 0)
		before := r.h.Scheduler().List(r.h.Jobs())
		r.h.SetPaused(paused)
		for _, c := range []struct {
			name  string
			call  func() error
			wants string
		}{
			{"update NaN", func() error { return r.h.Update(math.NaN()) }, "Update: deltaMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got NaN"},
			{"update +Inf", func() error { return r.h.Update(math.Inf(1)) }, "Update: deltaMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got +Inf"},
			{"update -Inf", func() error { return r.h.Update(math.Inf(-1)) }, "Update: deltaMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got -Inf"},
			{"update negative", func() error { return r.h.Update(-1) }, "Update: deltaMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got -1"},
			{"update -0.0000001", func() error { return r.h.Update(-1e-7) }, "Update: deltaMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got -1e-07"},
			{"update huge", func() error { return r.h.Update(1e300) }, "Update: deltaMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got 1e+300"},
			{"step NaN", func() error { return r.h.Step(math.NaN()) }, "Step: deltaMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got NaN"},
			{"step negative", func() error { return r.h.Step(-16) }, "Step: deltaMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got -16"},
			{"update-by negative", func() error { return r.h.UpdateBy(-1) }, "UpdateBy: d: want a duration >= 0, got -PT0.000000001S"},
			{"step-by negative", func() error { return r.h.StepBy(-ms) }, "StepBy: d: want a duration >= 0, got -PT0.001S"},
			{"step-by overflow", func() error { return r.h.StepBy(math.MaxInt64) }, "StepBy: d: want a duration that keeps the host's time within int64 nanoseconds"},
		} {
			err := c.call()
			var oe *temporal.OptionError
			if !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), c.wants) {
				t.Errorf("paused=%v %s: %v, want %q", paused, c.name, err, c.wants)
			}
		}
		if got := r.take(); len(got) != 0 {
			t.Fatalf("paused=%v: ran %q", paused, got)
		}
		r.elapsedIs(0)
		if after := r.h.Scheduler().List(r.h.Jobs()); !slices.Equal(after, before) {
			t.Fatalf("paused=%v: jobs changed", paused)
		}
		if r.h.Paused() != paused {
			t.Fatal("pause state changed")
		}
	}
}

func TestUpdateConvertsMillisecondsToExactNanoseconds(t *testing.T) {
	r := newRig(t)
	for _, d := range []float64{16.6, 0.1 + 0.2, 1e-6, 4e-7} {
		if err := r.h.Update(d); err != nil {
			t.Fatal(err)
		}
	}
	// 16.6 ms -> 16_600_000 ns; 0.30000000000000004 ms -> 300_000 ns;
	// 1e-6 ms -> 1 ns; 4e-7 ms -> 0 ns (nearest).
	r.elapsedIs(16_900_001)
}

func TestUpdateByAndStepByFollowPause(t *testing.T) {
	r := newRig(t)
	r.register("f", r.facet("f"))
	r.once("a", ms)
	r.h.SetPaused(true)
	if err := r.h.UpdateBy(s); err != nil {
		t.Fatal(err)
	}
	if got := r.take(); len(got) != 0 {
		t.Fatalf("paused UpdateBy ran %q", got)
	}
	if err := r.h.StepBy(ms); err != nil {
		t.Fatal(err)
	}
	if got, want := r.take(), []string{"a@0.001s", "f(1)@0.001s"}; !slices.Equal(got, want) {
		t.Fatalf("StepBy ran %q, want %q", got, want)
	}
	r.h.SetPaused(false)
	if err := r.h.UpdateBy(ms); err != nil {
		t.Fatal(err)
	}
	if got, want := r.take(), []string{"f(1)@0.002s"}; !slices.Equal(got, want) {
		t.Fatalf("UpdateBy ran %q, want %q", got, want)
	}
}

func TestSetPausedInsideAFrameTakesEffectNextFrame(t *testing.T) {
	r := newRig(t)
	r.register("pauser", hostservices.FacetFunc(func(float64) error { r.note("pauser"); r.h.SetPaused(true); return nil }))
	r.register("after", r.facet("after"))
	if err := r.h.Update(1); err != nil {
		t.Fatal(err)
	}
	if err := r.h.Update(1); err != nil {
		t.Fatal(err)
	}
	if got, want := r.take(), []string{"pauser@0.001s", "after(1)@0.001s"}; !slices.Equal(got, want) {
		t.Fatalf("ran %q, want %q", got, want)
	}
}

func TestUpdateFromInsideTheHostIsAnError(t *testing.T) {
	r := newRig(t)
	var inFacet, inJob error
	r.register("f", hostservices.FacetFunc(func(float64) error { inFacet = r.h.Step(1); return nil }))
	if _, err := r.h.ScheduleOnce(0, func() error { inJob = r.h.Update(1); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := r.h.Update(1); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(inFacet, sched.ErrReentrant) || !errors.Is(inJob, sched.ErrReentrant) {
		t.Fatalf("facet: %v, job: %v; want ErrReentrant", inFacet, inJob)
	}
	r.elapsedIs(ms)
}

func TestDroppedSchedulerStopsTheHost(t *testing.T) {
	r := newRig(t)
	r.register("f", r.facet("f"))
	r.h.Scheduler().Drop()
	if err := r.h.Update(1); !errors.Is(err, sched.ErrDropped) {
		t.Fatalf("update after drop: %v", err)
	}
	if got := r.take(); len(got) != 0 {
		t.Fatalf("ran %q after drop", got)
	}
}

func TestNewPanicsOnNilClock(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	hostservices.New(nil)
}

func must(_ sched.Handle, err error) {
	if err != nil {
		panic(err)
	}
}

func mustLocal(t *testing.T, s string) temporal.LocalDateTime {
	t.Helper()
	l, err := temporal.ParseLocalDateTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func later(d temporal.Duration) temporal.Instant {
	t, err := epoch.Add(d)
	if err != nil {
		panic(err)
	}
	return t
}

func TestObserverSeesFramesAndPauses(t *testing.T) {
	h := hostservices.New(temporal.Fixed(temporal.FromUnixNano(0)))
	var frames []hostservices.FrameInfo
	var pauses []bool
	h.SetObserver(hostservices.Observer{
		Frame:  func(f hostservices.FrameInfo) { frames = append(frames, f) },
		Paused: func(p bool) { pauses = append(pauses, p) },
	})
	ok := hostservices.FacetFunc(func(float64) error { return nil })
	if err := h.Register("physics", ok); err != nil {
		t.Fatal(err)
	}
	if err := h.Register("leaver", hostservices.FacetFunc(func(float64) error { h.Unregister("late"); return nil })); err != nil {
		t.Fatal(err)
	}
	if err := h.Register("late", ok); err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error { return h.Update(16) },
		func() error { h.SetPaused(true); h.SetPaused(true); return h.Update(1000) }, // paused: no frame
		func() error { return h.Step(4) },
		func() error { h.SetPaused(false); return h.UpdateBy(temporal.Millisecond) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	ms := temporal.Millisecond
	want := []hostservices.FrameInfo{
		{From: 0, To: 16 * ms, Facets: []string{"physics", "leaver"}},
		{Step: true, From: 16 * ms, To: 20 * ms, Facets: []string{"physics", "leaver"}},
		{From: 20 * ms, To: 21 * ms, Facets: []string{"physics", "leaver"}},
	}
	if !reflect.DeepEqual(frames, want) {
		t.Fatalf("frames\n got %+v\nwant %+v", frames, want)
	}
	if !reflect.DeepEqual(pauses, []bool{true, false}) {
		t.Fatalf("pauses %v, want [true false]: only changes are reported", pauses)
	}
}

// Update from a job that Step runs while the host is paused is the same
// re-entrancy error as when the host runs.
func TestPausedUpdateFromInsideAStepIsReentrant(t *testing.T) {
	for _, paused := range []bool{false, true} {
		r := newRig(t)
		r.h.SetPaused(paused)
		var inner error
		must(r.h.ScheduleOnce(0, func() error { inner = r.h.Update(16); return nil }))
		if err := r.h.Step(1); err != nil {
			t.Fatal(err)
		}
		var ce *sched.CallError
		if !errors.Is(inner, sched.ErrReentrant) || !errors.As(inner, &ce) || ce.Method != "Update" {
			t.Errorf("paused=%v: Update inside Step = %v, want Update: %v", paused, inner, sched.ErrReentrant)
		}
	}
}

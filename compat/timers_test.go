package compat_test

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
)

var epoch = temporal.FromUnixNano(946684800 * 1e9) // 2000-01-01T00:00:00Z

type rig struct {
	t   *testing.T
	s   *sched.Scheduler
	tm  *compat.Timers
	log []string
}

func newRig(t *testing.T) *rig {
	s := sched.New(temporal.Fixed(epoch))
	return &rig{t: t, s: s, tm: compat.New(s)}
}

func (r *rig) cb(name string) func() error {
	return func() error { r.log = append(r.log, name+"@"+r.s.Elapsed().DecimalSeconds()); return nil }
}

func (r *rig) take() []string { l := r.log; r.log = nil; return l }

func (r *rig) advance(d temporal.Duration, want ...string) {
	r.t.Helper()
	if err := r.s.Advance(d); err != nil {
		r.t.Fatal(err)
	}
	if got := r.take(); !slices.Equal(got, want) {
		r.t.Fatalf("advance(%v) ran %q, want %q", d, got, want)
	}
}

// ok and deb fail the test on an error and return the value.
func (r *rig) ok(h sched.Handle, err error) sched.Handle {
	r.t.Helper()
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

func (r *rig) deb(d *compat.Debouncer, err error) *compat.Debouncer {
	r.t.Helper()
	if err != nil {
		r.t.Fatal(err)
	}
	return d
}

// --- Seed: RuntimeTimers compatibility ---

// "RuntimeTimers.Timeout {:delay-ms number :callback fn}"
func TestTimeoutRunsOnceAfterDelayMs(t *testing.T) {
	r := newRig(t)
	h := r.ok(r.tm.Timeout(100, r.cb("t")))
	z := r.ok(r.tm.Timeout(0, r.cb("zero")))
	r.advance(0, "zero@0s")
	r.advance(100*ms - ns)
	r.advance(ns, "t@0.1s")
	r.advance(time1s)
	if h.Active() || z.Active() {
		t.Fatal("a fired timeout is still active")
	}
}

const time1s = 1000 * ms

// "RuntimeTimers.Interval {:interval-ms positive-number :callback fn}"
func TestIntervalRunsEveryPositiveIntervalMs(t *testing.T) {
	r := newRig(t)
	h := r.ok(r.tm.Interval(50, r.cb("i")))
	r.advance(120*ms, "i@0.05s", "i@0.1s")
	r.advance(30*ms, "i@0.15s")
	h.Cancel()
	r.advance(time1s)
}

// "RuntimeTimers.Debouncer {:delay-ms number :callback fn}"
func TestDebouncerRunsOnceDelayMsAfterTheLatestCall(t *testing.T) {
	r := newRig(t)
	var got []string
	d := r.deb(r.tm.Debouncer(100, func(args []any) error {
		got = append(got, fmt.Sprintf("%v@%s", args, r.s.Elapsed().DecimalSeconds()))
		return nil
	}))
	if d.Pending() {
		t.Fatal("pending before any call")
	}
	mustCall(t, d, 1)
	r.advance(60 * ms)
	mustCall(t, d, 2, "b")
	r.advance(70 * ms) // 130: the first call's deadline (100) passed unfired
	mustCall(t, d, 3)
	if !d.Pending() || r.tm.Count() != 1 {
		t.Fatalf("pending %v, %d timers: want one pending call", d.Pending(), r.tm.Count())
	}
	r.advance(100*ms - ns)
	r.advance(ns)
	if want := []string{"[3]@0.23s"}; !slices.Equal(got, want) {
		t.Fatalf("ran %q, want %q", got, want)
	}
	if d.Pending() {
		t.Fatal("still pending after it ran")
	}
}

func TestDebouncerCancelFlushAndPending(t *testing.T) {
	r := newRig(t)
	var got []string
	d := r.deb(r.tm.Debouncer(10, func(args []any) error {
		got = append(got, fmt.Sprintf("%v@%s", args, r.s.Elapsed().DecimalSeconds()))
		return nil
	}))
	if d.Cancel() {
		t.Fatal("Cancel with nothing pending returned true")
	}
	if err := d.Flush(); err != nil || len(got) != 0 {
		t.Fatalf("Flush with nothing pending: %v, ran %q", err, got)
	}
	mustCall(t, d, "x")
	if !d.Cancel() || d.Pending() || d.Cancel() {
		t.Fatal("Cancel: want true once, then false, and not pending")
	}
	r.advance(20 * ms)
	mustCall(t, d, "a")
	r.advance(5 * ms)
	mustCall(t, d, "b")
	if err := d.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"[b]@0.025s"}; !slices.Equal(got, want) {
		t.Fatalf("flush ran %q, want %q", got, want)
	}
	if d.Pending() || r.tm.Count() != 0 {
		t.Fatal("flush left a pending call")
	}
	r.advance(20 * ms) // nothing more
	if len(got) != 1 {
		t.Fatalf("ran again after flush: %q", got)
	}
}

func TestDebouncerErrorPropagates(t *testing.T) {
	r := newRig(t)
	boom := errors.New("boom")
	d := r.deb(r.tm.Debouncer(1, func([]any) error { return boom }))
	mustCall(t, d)
	if err := r.s.Advance(ms); !errors.Is(err, boom) {
		t.Fatalf("advance: %v, want boom", err)
	}
	mustCall(t, d)
	if err := d.Flush(); !errors.Is(err, boom) {
		t.Fatalf("flush: %v, want boom", err)
	}
}

func TestDebouncerRearmsFromItsOwnCallback(t *testing.T) {
	r := newRig(t)
	n := 0
	var d *compat.Debouncer
	d = r.deb(r.tm.Debouncer(10, func([]any) error {
		n++
		if n < 3 {
			return d.Call()
		}
		return nil
	}))
	mustCall(t, d)
	r.advance(100 * ms)
	if n != 3 || d.Pending() {
		t.Fatalf("ran %d times, pending %v; want 3, false", n, d.Pending())
	}
}

// "RuntimeTimers.clear()"
func TestClearCancelsOnlyTheCompatTimers(t *testing.T) {
	r := newRig(t)
	typed := r.ok(r.s.ScheduleOnce(10*ms, r.cb("typed")))
	to := r.ok(r.tm.Timeout(10, r.cb("timeout")))
	iv := r.ok(r.tm.Interval(5, r.cb("interval")))
	d := r.deb(r.tm.Debouncer(5, func([]any) error { r.log = append(r.log, "debounced"); return nil }))
	mustCall(t, d)
	if err := r.tm.Clear(); err != nil {
		t.Fatal(err)
	}
	if to.Active() || iv.Active() || d.Pending() || r.tm.Count() != 0 {
		t.Fatal("a compat timer survived Clear")
	}
	if !typed.Active() || r.s.Count() != 1 {
		t.Fatal("Clear reached a typed job")
	}
	r.advance(20*ms, "typed@0.01s")
	// Still usable.
	r.ok(r.tm.Timeout(1, r.cb("after")))
	r.advance(ms, "after@0.021s")
}

// "Those wrappers convert millisecond options to typed durations at their
// boundary"
func TestMillisecondsConvertToExactNanosecondsAtTheBoundary(t *testing.T) {
	r := newRig(t)
	for _, c := range []struct {
		ms   float64
		want temporal.Duration
	}{
		{16.6, 16_600_000},
		{0.1 + 0.2, 300_000}, // 0.30000000000000004 ms
		{1e-6, 1},
		{4e-7, 0}, // below half a nanosecond: due at once
		{2.5, 2_500_000},
	} {
		r.ok(r.tm.Timeout(c.ms, r.cb("x")))
		if got := r.tm.List()[0].DueIn; got != c.want {
			t.Errorf("Timeout(%v): due in %d ns, want %d", c.ms, got, c.want)
		}
		if err := r.tm.Clear(); err != nil {
			t.Fatal(err)
		}
	}
	r.ok(r.tm.Interval(16.6, r.cb("i")))
	if l := r.tm.List(); l[0].Interval != 16_600_000 || l[0].Kind != sched.KindEvery {
		t.Fatalf("interval %+v, want every 16.6 ms exactly", l[0])
	}
	// Exact repeats: 60 periods of 16.6 ms are exactly 996 ms, no drift.
	r.take()
	if err := r.s.Advance(996 * ms); err != nil {
		t.Fatal(err)
	}
	if got := r.take(); len(got) != 60 || got[59] != "i@0.996s" {
		t.Fatalf("%d fires, last %q; want 60, the last at 0.996s", len(got), got[len(got)-1])
	}
}

// "and delegate to a private RuntimeScheduler"
func TestTimersDelegateToTheHostsTypedScheduler(t *testing.T) {
	h := hostservices.New(temporal.Fixed(epoch))
	tm := compat.New(h.Scheduler())
	var log []string
	note := func(n string) func() error {
		return func() error { log = append(log, n+"@"+h.Scheduler().Elapsed().DecimalSeconds()); return nil }
	}
	r := &rig{t: t}
	r.ok(tm.Timeout(10, note("t10")))
	r.ok(h.ScheduleOnce(10*ms, note("h10")))
	r.ok(tm.Interval(5, note("i5")))
	if l := tm.List(); len(l) != 2 || l[0].Group != compat.GroupName || l[0].Kind != sched.KindEvery || l[1].Kind != sched.KindOnce {
		t.Fatalf("compat jobs %+v, want typed every and once jobs in group %q", l, compat.GroupName)
	}
	if h.Scheduler().Count(h.Jobs()) != 1 || h.Scheduler().Count() != 3 {
		t.Fatal("compat timers and host jobs are not on one scheduler in separate groups")
	}
	h.SetPaused(true)
	if err := h.Update(100); err != nil {
		t.Fatal(err)
	}
	if len(log) != 0 {
		t.Fatalf("a paused host update ran compat timers: %q", log)
	}
	h.SetPaused(false)
	if err := h.Update(10); err != nil {
		t.Fatal(err)
	}
	if want := []string{"i5@0.005s", "t10@0.01s", "h10@0.01s", "i5@0.01s"}; !slices.Equal(log, want) {
		t.Fatalf("ran %q, want %q", log, want)
	}
}

// "Do not add millisecond aliases to the typed scheduler API."
func TestTypedAPIHasNoMillisecondAliases(t *testing.T) {
	dur := reflect.TypeFor[temporal.Duration]()
	for _, typ := range []reflect.Type{
		reflect.TypeFor[*sched.Scheduler](),
		reflect.TypeFor[*sched.Group](),
		reflect.TypeFor[*hostservices.Host](),
	} {
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			if !strings.HasPrefix(m.Name, "Schedule") || m.Name == "Scheduler" {
				continue
			}
			if m.Name == "ScheduleRecurrence" {
				continue // takes a sched.Recurrence: no length of time at all
			}
			if in := m.Type.In(1); in == reflect.TypeFor[temporal.Instant]() {
				continue // ScheduleOnceAt: an instant, not a length of time
			} else if in == reflect.TypeFor[sched.Every]() {
				if e := reflect.TypeFor[sched.Every](); e.Field(0).Type != dur || e.Field(1).Type != reflect.PointerTo(dur) {
					t.Errorf("sched.Every's Interval and Delay are %v and %v, want temporal.Duration", e.Field(0).Type, e.Field(1).Type)
				}
				continue
			}
			if in := m.Type.In(1); in != dur {
				t.Errorf("%v.%s takes %v, want temporal.Duration", typ, m.Name, in)
			}
		}
	}
}

// --- Bad inputs: errors name the function and the key, nothing changes ---

func TestBadMillisecondsAreErrorsThatChangeNothing(t *testing.T) {
	r := newRig(t)
	r.ok(r.tm.Interval(5, r.cb("keep")))
	d := r.deb(r.tm.Debouncer(5, func([]any) error { return nil }))
	before := r.s.List()
	fn := r.cb("x")
	timeout := func(v float64) func() error {
		return func() error { _, err := r.tm.Timeout(v, fn); return err }
	}
	interval := func(v float64) func() error {
		return func() error { _, err := r.tm.Interval(v, fn); return err }
	}
	debouncer := func(v float64) func() error {
		return func() error { _, err := r.tm.Debouncer(v, func([]any) error { return nil }); return err }
	}
	for _, c := range []struct {
		call func() error
		want string
	}{
		{timeout(math.NaN()), "Timeout: delayMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got NaN"},
		{timeout(math.Inf(1)), "Timeout: delayMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got +Inf"},
		{timeout(math.Inf(-1)), "Timeout: delayMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got -Inf"},
		{timeout(-1), "Timeout: delayMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got -1"},
		{timeout(-1e-9), "Timeout: delayMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got -1e-09"},
		{timeout(1e300), "Timeout: delayMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got 1e+300"},
		{func() error { _, err := r.tm.Timeout(1, nil); return err }, "Timeout: fn: want a function, got nil"},
		{interval(0), "Interval: intervalMs: want a number of milliseconds > 0 that rounds to at least 1 ns, got 0"},
		{interval(math.Copysign(0, -1)), "Interval: intervalMs: want a number of milliseconds > 0 that rounds to at least 1 ns, got -0"},
		{interval(-5), "Interval: intervalMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got -5"},
		{interval(math.NaN()), "Interval: intervalMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got NaN"},
		{interval(math.Inf(1)), "Interval: intervalMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got +Inf"},
		{interval(4e-7), "Interval: intervalMs: want a number of milliseconds > 0 that rounds to at least 1 ns, got 4e-07"},
		{interval(1e300), "Interval: intervalMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got 1e+300"},
		{func() error { _, err := r.tm.Interval(1, nil); return err }, "Interval: fn: want a function, got nil"},
		{debouncer(math.NaN()), "Debouncer: delayMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got NaN"},
		{debouncer(math.Inf(-1)), "Debouncer: delayMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got -Inf"},
		{debouncer(-3), "Debouncer: delayMs: want a finite number of milliseconds >= 0 within int64 nanoseconds, got -3"},
		{func() error { _, err := r.tm.Debouncer(1, nil); return err }, "Debouncer: fn: want a function, got nil"},
	} {
		err := c.call()
		var oe *temporal.OptionError
		if !errors.As(err, &oe) || err.Error() != c.want {
			t.Errorf("error %v\nwant %s", err, c.want)
		}
	}
	if after := r.s.List(); !slices.Equal(after, before) {
		t.Fatalf("jobs changed: %+v -> %+v", before, after)
	}
	if d.Pending() {
		t.Fatal("debouncer armed by a refused call")
	}
}

func TestDeadlinePastInt64IsAnErrorNamingTheMillisecondKey(t *testing.T) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	r := &rig{t: t, s: s, tm: compat.New(s)}
	if err := r.s.Advance(temporal.Duration(math.MaxInt64 - int64(ms))); err != nil {
		t.Fatal(err)
	}
	_, err := r.tm.Timeout(2, r.cb("x"))
	var oe *temporal.OptionError
	if !errors.As(err, &oe) || oe.Method != "Timeout" || oe.Param != "delayMs" || oe.Got != 2.0 {
		t.Fatalf("error %v, want an OptionError naming Timeout and delayMs", err)
	}
	d := r.deb(r.tm.Debouncer(2, func([]any) error { return nil }))
	if err := d.Call(); err == nil || !errors.As(err, &oe) || oe.Method != "Debouncer.Call" || oe.Param != "delayMs" || d.Pending() {
		t.Fatalf("Call: %v, pending %v", err, d.Pending())
	}
	if r.s.Count() != 0 {
		t.Fatal("a refused timer was scheduled")
	}
}

func TestDroppedSchedulerRefusesNewTimers(t *testing.T) {
	r := newRig(t)
	r.s.Drop()
	if _, err := r.tm.Timeout(1, r.cb("x")); !errors.Is(err, sched.ErrDropped) {
		t.Fatalf("Timeout after drop: %v", err)
	}
	if err := r.tm.Clear(); !errors.Is(err, sched.ErrDropped) {
		t.Fatalf("Clear after drop: %v", err)
	}
}

func mustCall(t *testing.T, d *compat.Debouncer, args ...any) {
	t.Helper()
	if err := d.Call(args...); err != nil {
		t.Fatal(err)
	}
}

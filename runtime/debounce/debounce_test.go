package debounce

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

const ms = temporal.Millisecond

// rig is a debouncer on a typed scheduler in virtual time, logging each
// firing as "key=args@ms".
type rig struct {
	t   *testing.T
	s   *sched.Scheduler
	d   *Debouncer[string, int]
	log []string
}

func newRig(t *testing.T, c Config) *rig {
	t.Helper()
	r := &rig{t: t, s: sched.New(temporal.Fixed(temporal.FromUnixNano(0)))}
	d, err := New(onScheduler(r.s), c, func(key string, arg int) error {
		r.log = append(r.log, fmt.Sprintf("%s=%d@%v", key, arg, r.s.Elapsed().Std()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r.d = d
	return r
}

// step is one line of a timeline: at instant at (after the epoch), first
// time moves there and want lists the firings since the previous step
// (nil: none); then do runs.
type step struct {
	at   temporal.Duration
	want []string
	do   func(r *rig)
}

func touch(key string, arg int) func(*rig) {
	return func(r *rig) {
		r.t.Helper()
		if err := r.d.Debounce(key, arg); err != nil {
			r.t.Fatalf("Debounce(%q, %d): %v", key, arg, err)
		}
	}
}

func (r *rig) run(steps []step) {
	r.t.Helper()
	for i, st := range steps {
		if err := r.s.Advance(st.at - r.s.Elapsed()); err != nil {
			r.t.Fatalf("step %d (at %v): %v", i, st.at, err)
		}
		if got := r.log; !slices.Equal(got, st.want) {
			r.t.Fatalf("step %d (at %v): fired %q, want %q", i, st.at, got, st.want)
		}
		r.log = nil
		if st.do != nil {
			st.do(r)
		}
	}
}

func fires(s ...string) []string { return s }

// A fresh key fires Timeout after its first touch.
func TestFreshKeyFiresAfterTimeout(t *testing.T) {
	newRig(t, Config{Timeout: 100 * ms, Trailing: true}).run([]step{
		{at: 0, do: touch("a", 1)},
		{at: 100*ms - 1},
		{at: 100 * ms, want: fires("a=1@100ms")},
		{at: temporal.Second},
	})
}

// A later touch pushes the wake-up out to BusyTimeout after it.
func TestTouchPushesByBusyTimeout(t *testing.T) {
	newRig(t, Config{Timeout: 100 * ms, BusyTimeout: 50 * ms, Trailing: true}).run([]step{
		{at: 0, do: touch("a", 1)},
		{at: 70 * ms, do: touch("a", 2)}, // 120 > 100: moves
		{at: 80 * ms, do: touch("a", 3)}, // 130
		{at: 130*ms - 1},
		{at: 130 * ms, want: fires("a=3@130ms")},
	})
}

// A touch moves the wake-up only when min(now + busy, ceiling) is later;
// the arguments are the latest touch's all the same.
func TestTouchNeverMovesWakeUpEarlier(t *testing.T) {
	newRig(t, Config{Timeout: 100 * ms, BusyTimeout: 20 * ms, Trailing: true}).run([]step{
		{at: 0, do: touch("a", 1)},
		{at: 50 * ms, do: touch("a", 2)}, // 70 < 100: stays
		{at: 90 * ms, do: touch("a", 3)}, // 110 > 100: moves
		{at: 100 * ms},
		{at: 110 * ms, want: fires("a=3@110ms")},
	})
}

// A push never passes the burst's ceiling, so a key touched forever still fires by the force window.
func TestCeilingBoundsPushes(t *testing.T) {
	r := newRig(t, Config{Timeout: 100 * ms, ForceMin: 300 * ms, ForceMax: 300 * ms, Trailing: true})
	steps := []step{{at: 0, do: touch("a", 0)}}
	for i := 1; i <= 12; i++ { // every 50 ms, to 600 ms
		var want []string
		switch i {
		case 6:
			want = fires("a=5@300ms")
		case 12: // the 300 ms touch began a burst with ceiling 600
			want = fires("a=11@600ms")
		}
		steps = append(steps, step{at: temporal.Duration(i) * 50 * ms, want: want, do: touch("a", i)})
	}
	steps = append(steps, step{at: 700 * ms, want: fires("a=12@700ms")})
	r.run(steps)
}

// The ceiling is now plus a uniform draw from [ForceMin, ForceMax] from
// the seeded source, one per burst, inclusive bounds.
func TestCeilingIsDrawnFromTheSeededSource(t *testing.T) {
	const seed = 42
	c := Config{Timeout: 10 * ms, BusyTimeout: temporal.Hour, ForceMin: 100 * ms, ForceMax: 200 * ms, Trailing: true, Seed: seed}
	r := newRig(t, c)
	keys := []string{"a", "b", "c", "d", "e"}
	for _, k := range keys {
		touch(k, 0)(r)
	}
	r.run([]step{{at: 5 * ms, do: func(r *rig) {
		for _, k := range keys {
			touch(k, 1)(r) // each pushed to its ceiling
		}
	}}})
	model := rand.New(rand.NewPCG(seed, pcgStream))
	var want []temporal.Duration
	for range keys {
		want = append(want, 100*ms+temporal.Duration(model.Int64N(int64(100*ms)+1)))
	}
	var got []temporal.Duration
	for _, j := range r.s.List() {
		got = append(got, j.DueIn+5*ms)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("wake-ups %v, want the draws %v", got, want)
	}
	for _, w := range want {
		if w < 100*ms || w > 200*ms {
			t.Fatalf("draw %v outside [100ms, 200ms]", w)
		}
	}
}

// The same seed gives the same draws; Source replaces the PCG.
func TestSeedAndSourceRepeat(t *testing.T) {
	wakes := func(c Config) []temporal.Duration {
		r := newRig(t, c)
		for i := range 20 {
			touch(fmt.Sprint(i), 0)(r)
			touch(fmt.Sprint(i), 1)(r) // at 0: pushed to the ceiling
		}
		var out []temporal.Duration
		for _, j := range r.s.List() {
			out = append(out, j.DueIn)
		}
		return out
	}
	c := Config{Timeout: ms, BusyTimeout: temporal.Hour, ForceMin: temporal.Second, ForceMax: 2 * temporal.Second, Trailing: true, Seed: 7}
	a, b := wakes(c), wakes(c)
	if !slices.Equal(a, b) {
		t.Fatalf("seed 7 twice: %v and %v", a, b)
	}
	c.Seed = 8
	if slices.Equal(a, wakes(c)) {
		t.Fatalf("seeds 7 and 8 drew the same")
	}
	c.Source = rand.NewPCG(7, pcgStream)
	if got := wakes(c); !slices.Equal(a, got) {
		t.Fatalf("Source PCG(7): %v, want %v", got, a)
	}
}

// After a firing, new touches are held back to at least the throttle
// floor; any Throttle > 0 applies.
func TestThrottleFloorHoldsKeyBack(t *testing.T) {
	newRig(t, Config{Timeout: 100 * ms, Throttle: 500 * ms, Trailing: true}).run([]step{
		{at: 0, do: touch("a", 1)},
		{at: 100 * ms, want: fires("a=1@100ms")}, // floor until 600
		{at: 150 * ms, do: touch("a", 2)},        // 250 held back to 600
		{at: 600*ms - 1},
		{at: 600 * ms, want: fires("a=2@600ms")}, // floor until 1100
		{at: 1200 * ms, do: touch("a", 3)},       // floor over: fresh
		{at: 1300 * ms, want: fires("a=3@1.3s")},
	})
}

// Without a throttle the key is released when it fires: the next touch
// starts afresh.
func TestNoThrottleReleasesKey(t *testing.T) {
	r := newRig(t, Config{Timeout: 100 * ms, Trailing: true})
	r.run([]step{
		{at: 0, do: touch("a", 1)},
		{at: 100 * ms, want: fires("a=1@100ms"), do: touch("a", 2)},
		{at: 200 * ms, want: fires("a=2@200ms")},
	})
	if len(r.d.keys) != 0 {
		t.Fatalf("%d keys held after firing", len(r.d.keys))
	}
}

// A floor-only key is forgotten once its floor ends: memory follows the
// keys in play, not every key ever touched.
func TestFloorsAreForgotten(t *testing.T) {
	r := newRig(t, Config{Timeout: ms, Throttle: 10 * ms, Trailing: true})
	for i := range 100 {
		touch(fmt.Sprint(i), i)(r)
	}
	r.run([]step{{at: 2 * ms, want: r.logOf(100, "@1ms")}})
	if len(r.d.keys) != 100 {
		t.Fatalf("%d keys during the floors, want 100", len(r.d.keys))
	}
	r.run([]step{{at: 11 * ms, do: touch("x", 0)}})
	if len(r.d.keys) != 1 {
		t.Fatalf("%d keys after the floors, want 1 (x)", len(r.d.keys))
	}
}

func (r *rig) logOf(n int, at string) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%d=%d%s", i, i, at))
	}
	return out
}

// A new wake-up replaces the old one, cancelling its job, or changes
// nothing: one job per key, due at the wake-up, the old one cancelled.
func TestReplacingClearsThePendingTask(t *testing.T) {
	r := newRig(t, Config{Timeout: 100 * ms, Trailing: true})
	touch("a", 1)(r)
	first := r.s.List()[0].ID
	r.run([]step{{at: 10 * ms, do: touch("a", 2)}})
	jobs := r.s.List()
	if len(jobs) != 1 || jobs[0].ID == first || jobs[0].DueIn != 100*ms {
		t.Fatalf("jobs after a push: %+v", jobs)
	}
	if kd, ok := jobs[0].Data.(keyData); !ok || kd.Key != "a" {
		t.Fatalf("job data %#v, want keyData{a}", jobs[0].Data)
	}
}

// lodash: leading fires at the first touch; the burst's later touches wait
// for the trailing edge; with both on, one touch fires once.
func TestLeadingAndTrailingEdges(t *testing.T) {
	t.Run("leading", func(t *testing.T) {
		newRig(t, Config{Timeout: 100 * ms, Leading: true}).run([]step{
			{at: 0, do: touch("a", 1)},
			{at: 10 * ms, want: fires("a=1@0s"), do: touch("a", 2)}, // in the burst: wait until 110
			{at: 110 * ms},
			{at: 120 * ms, do: touch("a", 3)},
			{at: 130 * ms, want: fires("a=3@120ms")},
		})
	})
	t.Run("both, one touch", func(t *testing.T) {
		newRig(t, Config{Timeout: 100 * ms, Leading: true, Trailing: true}).run([]step{
			{at: 0, do: touch("a", 1)},
			{at: 1 * ms, want: fires("a=1@0s")},
			{at: temporal.Second},
		})
	})
	t.Run("both, two touches", func(t *testing.T) {
		newRig(t, Config{Timeout: 100 * ms, Leading: true, Trailing: true}).run([]step{
			{at: 0, do: touch("a", 1)},
			{at: 50 * ms, want: fires("a=1@0s"), do: touch("a", 2)},
			{at: 150 * ms, want: fires("a=2@150ms")},
		})
	})
	t.Run("leading: the burst spans the floor", func(t *testing.T) {
		newRig(t, Config{Timeout: 100 * ms, Throttle: 300 * ms, Leading: true}).run([]step{
			{at: 0, do: touch("a", 1)},                               // fires; floor and burst until 300
			{at: 200 * ms, want: fires("a=1@0s"), do: touch("a", 2)}, // in the burst: no edge
			{at: 300 * ms},
			{at: 310 * ms, do: touch("a", 3)}, // a new burst: fires at once
			{at: 320 * ms, want: fires("a=3@310ms")},
		})
	})
	t.Run("both: no leading edge during a floor", func(t *testing.T) {
		newRig(t, Config{Timeout: 100 * ms, Throttle: 300 * ms, Leading: true, Trailing: true}).run([]step{
			{at: 0, do: touch("a", 1)},                              // fires; floor and burst until 300
			{at: 50 * ms, want: fires("a=1@0s"), do: touch("a", 2)}, // waits for the trailing edge
			{at: 300 * ms, want: fires("a=2@300ms")},                // floor until 600
			{at: 350 * ms, do: touch("a", 3)},                       // no leading edge: held to 600
			{at: 600*ms - 1},
			{at: 600 * ms, want: fires("a=3@600ms")},
		})
	})
}

// Flush runs a waiting edge now; Cancel forgets the key, throttle
// included; Pending sees bursts, not floors.
func TestFlushCancelPending(t *testing.T) {
	r := newRig(t, Config{Timeout: 100 * ms, Throttle: temporal.Second, Trailing: true})
	if r.d.Pending("a") {
		t.Fatal("pending before any touch")
	}
	touch("a", 1)(r)
	if !r.d.Pending("a") || r.d.Len() != 1 {
		t.Fatal("not pending after a touch")
	}
	if ran, err := r.d.Flush("a"); !ran || err != nil {
		t.Fatalf("Flush = %v, %v", ran, err)
	}
	if !slices.Equal(r.log, fires("a=1@0s")) || r.d.Pending("a") || r.s.Count() != 0 {
		t.Fatalf("after Flush: log %q, pending %v, jobs %d", r.log, r.d.Pending("a"), r.s.Count())
	}
	r.log = nil
	if ran, _ := r.d.Flush("a"); ran {
		t.Fatal("Flush of a floor-only key ran")
	}
	touch("a", 2)(r) // held back by the floor until 1s
	if jobs := r.s.List(); jobs[0].DueIn != temporal.Second {
		t.Fatalf("held touch due in %v, want 1s", jobs[0].DueIn)
	}
	if !r.d.Cancel("a") || r.d.Cancel("a") || r.s.Count() != 0 {
		t.Fatal("Cancel: want true then false, and no job left")
	}
	r.run([]step{{at: 10 * ms, do: touch("a", 3)}, {at: 110 * ms, want: fires("a=3@110ms")}}) // floor forgotten
}

// A scheduler's Clear cancels the key's job behind the debouncer's back:
// the key is idle and the next touch starts afresh.
func TestSchedulerClearLeavesKeysIdle(t *testing.T) {
	r := newRig(t, Config{Timeout: 100 * ms, BusyTimeout: 10 * ms, Trailing: true})
	touch("a", 1)(r)
	if err := r.s.Clear(); err != nil {
		t.Fatal(err)
	}
	if r.d.Pending("a") || r.d.Len() != 0 {
		t.Fatal("pending after the scheduler's Clear")
	}
	if ran, _ := r.d.Flush("a"); ran {
		t.Fatal("Flush ran a cleared key")
	}
	r.run([]step{{at: 50 * ms, do: touch("a", 2)}, {at: 150 * ms, want: fires("a=2@150ms")}})
}

// A trailing callback's error stops the drain like any job's.
func TestTrailingErrorStopsTheDrain(t *testing.T) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	boom := errors.New("boom")
	d, _ := New(onScheduler(s), Config{Timeout: ms, Trailing: true}, func(string, int) error { return boom })
	_ = d.Debounce("a", 1)
	var je *sched.JobError
	if err := s.Advance(temporal.Duration(temporal.Second)); !errors.Is(err, boom) || !errors.As(err, &je) {
		t.Fatalf("Advance = %v, want a *sched.JobError wrapping boom", err)
	}
	if s.Elapsed() != ms {
		t.Fatalf("time at %v, want 1ms", s.Elapsed())
	}
}

// A touch the clock refuses (a dropped scheduler) changes nothing: not
// the keys, not the random sequence.
func TestRefusedTouchChangesNothing(t *testing.T) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	if err := s.SetLimits(0, 1); err != nil {
		t.Fatal(err)
	}
	d, _ := New(onScheduler(s), Config{Timeout: ms, BusyTimeout: temporal.Hour, ForceMin: temporal.Second, ForceMax: 2 * temporal.Second, Trailing: true, Seed: 1},
		func(string, int) error { return nil })
	if err := d.Debounce("a", 1); err != nil {
		t.Fatal(err)
	}
	if err := d.Debounce("b", 1); !errors.Is(err, sched.ErrTooManyPending) {
		t.Fatalf("second key: %v, want ErrTooManyPending", err)
	}
	if d.Pending("b") || len(d.keys) != 1 {
		t.Fatal("the refused key was kept")
	}
	_ = d.Debounce("a", 2) // pushed to its ceiling: the first draw
	model := rand.New(rand.NewPCG(1, pcgStream))
	if got, want := s.List()[0].DueIn, temporal.Second+temporal.Duration(model.Int64N(int64(temporal.Second)+1)); got != want {
		t.Fatalf("ceiling %v, want the first draw %v", got, want)
	}
	d.Cancel("a") // room for b, whose ceiling is the second draw: the refused touch gave its draw back
	_ = d.Debounce("b", 1)
	_ = d.Debounce("b", 2)
	if got, want := s.List()[0].DueIn, temporal.Second+temporal.Duration(model.Int64N(int64(temporal.Second)+1)); got != want {
		t.Fatalf("b's ceiling %v, want the second draw %v", got, want)
	}
	s.Drop()
	if err := d.Debounce("c", 1); !errors.Is(err, sched.ErrDropped) {
		t.Fatalf("on a dropped scheduler: %v", err)
	}
}

// Bad configurations are a *temporal.OptionError naming New and the option.
func TestBadConfig(t *testing.T) {
	ok := Config{Timeout: ms, Trailing: true}
	clock := onScheduler(sched.New(temporal.Fixed(temporal.FromUnixNano(0))))
	fn := func(string, int) error { return nil }
	for _, c := range []struct {
		name   string
		edit   func(*Config)
		clock  Timers
		nilFn  bool
		option string
	}{
		{"zero timeout", func(c *Config) { c.Timeout = 0 }, clock, false, "Timeout"},
		{"negative timeout", func(c *Config) { c.Timeout = -1 }, clock, false, "Timeout"},
		{"negative busy", func(c *Config) { c.BusyTimeout = -1 }, clock, false, "BusyTimeout"},
		{"force-min alone", func(c *Config) { c.ForceMin = ms }, clock, false, "ForceMax"},
		{"force-max alone", func(c *Config) { c.ForceMax = ms }, clock, false, "ForceMin"},
		{"force-min > force-max", func(c *Config) { c.ForceMin, c.ForceMax = 2*ms, ms }, clock, false, "ForceMax"},
		{"negative force-min", func(c *Config) { c.ForceMin, c.ForceMax = -1, ms }, clock, false, "ForceMin"},
		{"negative throttle", func(c *Config) { c.Throttle = -1 }, clock, false, "Throttle"},
		{"no edge", func(c *Config) { c.Trailing = false }, clock, false, "Trailing"},
		{"nil fn", func(*Config) {}, clock, true, "fn"},
		{"nil clock", func(*Config) {}, nil, false, "clock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := ok
			c.edit(&cfg)
			f := fn
			if c.nilFn {
				f = nil
			}
			d, err := New(c.clock, cfg, f)
			var oe *temporal.OptionError
			if d != nil || !errors.As(err, &oe) || oe.Method != "debounce.New" || oe.Param != c.option {
				t.Fatalf("New = %v, %v; want an *OptionError for %s", d, err, c.option)
			}
		})
	}
	_, err := New(clock, Config{Timeout: ms, ForceMin: 2 * ms, ForceMax: ms, Trailing: true}, fn)
	if want := "debounce.New: ForceMax: want a duration >= ForceMin (PT0.002S), got PT0.001S"; err == nil || err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
}

// A push the clock refuses (a wake-up past int64 nanoseconds) returns the
// error and leaves the key pending at its old wake-up, with its old
// arguments.
func TestRefusedPushKeepsTheBurst(t *testing.T) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(1e18))) // 2001-09-09
	var got []int
	d, _ := New(onScheduler(s), Config{Timeout: 100 * ms, BusyTimeout: temporal.Duration(1<<63 - 1), Trailing: true},
		func(_ string, arg int) error { got = append(got, arg); return nil })
	if err := d.Debounce("a", 1); err != nil {
		t.Fatal(err)
	}
	var oe *temporal.OptionError
	if err := d.Debounce("a", 2); !errors.As(err, &oe) {
		t.Fatalf("a push past int64 nanoseconds: %v, want the scheduler's *OptionError", err)
	}
	if err := s.Advance(temporal.Duration(100 * ms)); err != nil || !slices.Equal(got, []int{1}) {
		t.Fatalf("Advance: %v, fired %v; want [1] at 100ms", err, got)
	}
}

// The callback runs without the debouncer's lock: it may touch its own
// key, which starts a new burst.
func TestCallbackMayTouchItsKey(t *testing.T) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	var d *Debouncer[string, int]
	var at []temporal.Duration
	d, _ = New(onScheduler(s), Config{Timeout: 10 * ms, Trailing: true}, func(key string, n int) error {
		at = append(at, s.Elapsed())
		if n < 3 {
			return d.Debounce(key, n+1)
		}
		return nil
	})
	_ = d.Debounce("a", 1)
	if err := s.Advance(temporal.Duration(temporal.Second)); err != nil {
		t.Fatal(err)
	}
	if want := []temporal.Duration{10 * ms, 20 * ms, 30 * ms}; !slices.Equal(at, want) {
		t.Fatalf("fired at %v, want %v", at, want)
	}
}

// With a Logger the debouncer reports its decisions; without one it
// reports nothing and a touch that does not move the wake-up allocates
// nothing (TestTouchAllocations).
func TestLoggerSeesDecisions(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	d, err := New(onScheduler(s), Config{Timeout: 10 * temporal.Millisecond, BusyTimeout: 5 * temporal.Millisecond, Trailing: true, Logger: log},
		func(string, int) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	_ = d.Debounce("k", 1)
	if err := s.Advance(8 * temporal.Millisecond); err != nil {
		t.Fatal(err)
	}
	_ = d.Debounce("k", 2)
	if err := s.Advance(20 * temporal.Millisecond); err != nil {
		t.Fatal(err)
	}
	_ = d.Debounce("x", 3)
	d.Cancel("x")
	want := `level=DEBUG msg="debounce: burst" now=0 wake=10000000 ceiling=9223372036854775807 leading=false key=k
level=DEBUG msg="debounce: push" now=8000000 wake=13000000 key=k
level=DEBUG msg="debounce: wake-up" now=13000000 fires=true floor=0 key=k
level=DEBUG msg="debounce: burst" now=28000000 wake=38000000 ceiling=9223372036854775807 leading=false key=x
level=DEBUG msg="debounce: cancel" was-pending=true key=x
`
	if buf.String() != want {
		t.Fatalf("log:\n%s\nwant:\n%s", buf.String(), want)
	}
}

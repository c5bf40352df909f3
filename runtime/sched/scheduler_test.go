package sched_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

const (
	ns = temporal.Nanosecond
	ms = temporal.Millisecond
	s  = temporal.Second
)

var epoch = temporal.FromUnixNano(946684800 * 1e9) // 2000-01-01T00:00:00Z

// rec records fires as "name@elapsed" using the scheduler's own Now.
type rec struct {
	s   *sched.Scheduler
	log []string
}

func newRec() *rec { return &rec{s: sched.New(temporal.Fixed(epoch))} }

func (r *rec) cb(name string) func() error {
	return func() error {
		r.log = append(r.log, name+"@"+r.elapsed())
		return nil
	}
}

func (r *rec) elapsed() string {
	d, _ := r.s.Now().Sub(epoch)
	return d.DecimalSeconds()
}

func (r *rec) take() []string { l := r.log; r.log = nil; return l }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func (r *rec) once(t *testing.T, name string, d temporal.Duration) sched.Handle {
	t.Helper()
	h, err := r.s.ScheduleOnce(d, r.cb(name))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (r *rec) every(t *testing.T, name string, d temporal.Duration) sched.Handle {
	t.Helper()
	h, err := r.s.ScheduleEvery(sched.Every{Interval: d}, r.cb(name))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// step moves time by d and checks what fired.
type step struct {
	advance temporal.Duration
	want    []string
}

func (r *rec) run(t *testing.T, steps []step) {
	t.Helper()
	for i, st := range steps {
		if err := r.s.Advance(st.advance); err != nil {
			t.Fatalf("step %d: advance(%v): %v", i, st.advance, err)
		}
		if got := r.take(); !slices.Equal(got, st.want) {
			t.Fatalf("step %d: advance(%v) fired %q, want %q", i, st.advance, got, st.want)
		}
	}
}

func TestNewTakesItsEpochFromTheClock(t *testing.T) {
	r := newRec()
	if r.s.Now() != epoch || r.s.Elapsed() != 0 {
		t.Fatalf("Now %v Elapsed %v, want %v and 0", r.s.Now(), r.s.Elapsed(), epoch)
	}
}

// Time model: deadlines are exact integer nanoseconds.
func TestDeadlinesAreExactNanoseconds(t *testing.T) {
	r := newRec()
	r.once(t, "a", 10*ms+1*ns)
	r.run(t, []step{
		{10 * ms, nil},                       // one nanosecond early: nothing
		{1 * ns, []string{"a@0.010000001s"}}, // exactly at the deadline
		{temporal.Hour, nil},                 // a one-shot fires once
	})
}

// Time model: advance drains all due work before returning, including work
// callbacks schedule inside the window, with Now at the running job's deadline.
func TestAdvanceDrainsWorkScheduledInsideTheWindow(t *testing.T) {
	r := newRec()
	must(r.s.ScheduleOnce(10*ms, func() error {
		r.log = append(r.log, "parent@"+r.elapsed())
		_, err := r.s.ScheduleOnce(5*ms, r.cb("child"))
		return err
	}))
	r.run(t, []step{{20 * ms, []string{"parent@0.01s", "child@0.015s"}}})
	if got := r.s.Elapsed(); got != 20*ms {
		t.Fatalf("Elapsed after advance = %v, want PT0.02S", got)
	}
}

func TestZeroDelayIsDueAtNow(t *testing.T) {
	r := newRec()
	r.once(t, "z", 0)
	r.run(t, []step{{0, []string{"z@0s"}}})
}

// Catch-up: one interval firing per missed interval within one call.
func TestIntervalFiresOncePerMissedInterval(t *testing.T) {
	r := newRec()
	r.every(t, "tick", 10*ms)
	r.run(t, []step{
		{35 * ms, []string{"tick@0.01s", "tick@0.02s", "tick@0.03s"}},
		{4 * ms, nil},
		{1 * ms, []string{"tick@0.04s"}},
	})
}

// Catch-up: due jobs run by deadline, then creation order; a job keeps its
// creation number across repeats.
func TestDueJobsRunByDeadlineThenCreationOrder(t *testing.T) {
	r := newRec()
	r.every(t, "every", 10*ms) // created first: wins every tie
	r.once(t, "late", 20*ms)
	r.once(t, "early", 10*ms)
	r.once(t, "also-early", 10*ms)
	r.run(t, []step{{20 * ms, []string{
		"every@0.01s", "early@0.01s", "also-early@0.01s",
		"every@0.02s", "late@0.02s",
	}}})
}

// Catch-up: callback errors propagate; time stays at the failing job's
// deadline; nothing pending is lost or run twice.
func TestCallbackErrorStopsDrainAndLosesNothing(t *testing.T) {
	r := newRec()
	boom := errors.New("boom")
	r.once(t, "a", 5*ms)
	h, _ := r.s.ScheduleOnce(10*ms, func() error { r.log = append(r.log, "bad@"+r.elapsed()); return boom })
	r.once(t, "b", 10*ms)
	r.every(t, "tick", 10*ms)
	err := r.s.Advance(100 * ms)
	var je *sched.JobError
	if !errors.Is(err, boom) || !errors.As(err, &je) || je.Job.ID != h.ID() || je.Job.Kind != sched.KindOnce {
		t.Fatalf("advance error = %v, want a *JobError wrapping boom for job %d", err, h.ID())
	}
	if got := r.take(); !slices.Equal(got, []string{"a@0.005s", "bad@0.01s"}) {
		t.Fatalf("fired %q before the error", got)
	}
	if r.s.Elapsed() != 10*ms {
		t.Fatalf("Elapsed after error = %v, want the failing deadline PT0.01S", r.s.Elapsed())
	}
	// The next call goes on from there: b and the interval are still due at 10.
	r.run(t, []step{{0, []string{"b@0.01s", "tick@0.01s"}}})
}

func TestIntervalErrorKeepsItsNextTick(t *testing.T) {
	r := newRec()
	n := 0
	must(r.s.ScheduleEvery(sched.Every{Interval: 10 * ms}, func() error {
		n++
		if n == 2 {
			return errors.New("second tick fails")
		}
		return nil
	}))
	if err := r.s.Advance(50 * ms); err == nil || !strings.Contains(err.Error(), "second tick fails") {
		t.Fatalf("advance = %v", err)
	}
	if err := r.s.Advance(30 * ms); err != nil { // from 20 to 50: ticks 30, 40, 50
		t.Fatal(err)
	}
	if n != 5 {
		t.Fatalf("interval ran %d times, want 5 (nothing lost, nothing twice)", n)
	}
}

// Lifecycle: cancelling or dropping a handle is idempotent and prevents
// future callbacks.
// Cancel and Drop report whether they stopped a pending job, as
// time.Timer.Stop does: only the first call does.
func TestCancelAndDropReportWhetherTheyStoppedAPendingJob(t *testing.T) {
	r := newRec()
	a := r.once(t, "a", 10*ms)
	b := r.every(t, "b", 10*ms)
	if !a.Active() || !b.Active() {
		t.Fatal("new handles should be active")
	}
	for i, want := range []bool{true, false} {
		if got, gotDrop := a.Cancel(), b.Drop(); got != want || gotDrop != want {
			t.Fatalf("call %d: Cancel = %v, Drop = %v; want %v", i+1, got, gotDrop, want)
		}
	}
	if a.Active() || b.Active() || r.s.Count() != 0 {
		t.Fatalf("after cancel: active %v %v, count %d", a.Active(), b.Active(), r.s.Count())
	}
	r.run(t, []step{{time100ms, nil}})
}

const time100ms = 100 * ms

func TestFiredOneShotIsInactiveAndStaleHandlesNeverTouchNewJobs(t *testing.T) {
	r := newRec()
	a := r.once(t, "a", 1*ms)
	r.run(t, []step{{1 * ms, []string{"a@0.001s"}}})
	b := r.once(t, "b", 1*ms) // may reuse a's storage
	if a.Active() {
		t.Fatal("a fired: it must be inactive")
	}
	if a.Cancel() { // stale: must not cancel b
		t.Fatal("Cancel of a fired one-shot reported stopping it")
	}
	if !b.Active() {
		t.Fatal("cancelling a stale handle cancelled another job")
	}
	r.run(t, []step{{1 * ms, []string{"b@0.002s"}}})
	var zero sched.Handle
	if zero.Active() || zero.Cancel() || zero.Drop() {
		t.Fatal("zero handle: inactive, cancel/drop false")
	}
}

// Lifecycle: cancelling an interval inside its callback stops its later
// catch-up callbacks in the same drain.
func TestCancelInsideIntervalStopsCatchUp(t *testing.T) {
	r := newRec()
	var h sched.Handle
	h = must(r.s.ScheduleEvery(sched.Every{Interval: 10 * ms}, func() error {
		r.log = append(r.log, "tick@"+r.elapsed())
		h.Cancel()
		return nil
	}))
	r.run(t, []step{{100 * ms, []string{"tick@0.01s"}}})
	if h.Active() {
		t.Fatal("cancelled interval still active")
	}
}

// Lifecycle: clear deactivates all pending work; the scheduler stays usable.
func TestClearDeactivatesAllPendingWork(t *testing.T) {
	r := newRec()
	a := r.once(t, "a", 10*ms)
	r.every(t, "b", 5*ms)
	if err := r.s.Clear(); err != nil {
		t.Fatal(err)
	}
	if a.Active() || r.s.Count() != 0 || len(r.s.List()) != 0 {
		t.Fatal("clear left work pending")
	}
	r.run(t, []step{{time100ms, nil}})
	r.once(t, "c", 1*ms)
	r.run(t, []step{{1 * ms, []string{"c@0.101s"}}})
}

// Lifecycle: clear from a callback prevents sibling jobs at the same deadline.
func TestClearInsideCallbackStopsSiblingsAtSameDeadline(t *testing.T) {
	r := newRec()
	must(r.s.ScheduleOnce(10*ms, func() error {
		r.log = append(r.log, "clearer@"+r.elapsed())
		return r.s.Clear()
	}))
	r.once(t, "sibling", 10*ms)
	r.every(t, "later", 20*ms)
	r.run(t, []step{{time100ms, []string{"clearer@0.01s"}}})
}

// Lifecycle: drop deactivates all pending work and refuses later calls.
func TestDropDeactivatesAndRefusesLaterCalls(t *testing.T) {
	r := newRec()
	h := r.once(t, "a", 10*ms)
	r.s.Drop()
	r.s.Drop() // idempotent
	if h.Active() || h.Cancel() {
		t.Fatal("handle of a dropped scheduler: inactive, cancel false")
	}
	checks := map[string]error{
		"Advance":   r.s.Advance(ms),
		"Clear":     r.s.Clear(),
		"RunAll":    r.s.RunAll(10),
		"RunToLast": r.s.RunToLast(5),
		"Jump":      r.s.Jump(ms),
		"SetLimits": r.s.SetLimits(5, 0),
	}
	_, err := r.s.ScheduleOnce(ms, r.cb("x"))
	checks["ScheduleOnce"] = err
	if at, ok := r.s.NextDeadline(); ok {
		t.Errorf("a dropped scheduler has a next deadline, %v", at)
	}
	for name, err := range checks {
		var ce *sched.CallError
		if !errors.Is(err, sched.ErrDropped) || !errors.As(err, &ce) || ce.Method != name || err.Error() != name+": scheduler dropped" {
			t.Errorf("%s after drop = %v, want %q", name, err, name+": scheduler dropped")
		}
	}
}

func TestDropInsideCallbackEndsTheDrain(t *testing.T) {
	r := newRec()
	must(r.s.ScheduleOnce(ms, func() error { r.s.Drop(); return nil }))
	r.once(t, "never", ms)
	if err := r.s.Advance(10 * ms); err != nil {
		t.Fatal(err)
	}
	if got := r.take(); len(got) != 0 {
		t.Fatalf("fired after drop: %q", got)
	}
}

func TestReentrantAdvanceIsAnError(t *testing.T) {
	r := newRec()
	var inner []error
	must(r.s.ScheduleOnce(ms, func() error {
		inner = append(inner, r.s.Advance(ms), r.s.Jump(ms), r.s.RunAll(5), r.s.RunToLast(5))
		return nil
	}))
	if err := r.s.Advance(ms); err != nil {
		t.Fatal(err)
	}
	for i, err := range inner {
		if !errors.Is(err, sched.ErrReentrant) {
			t.Errorf("call %d inside a callback = %v, want ErrReentrant", i, err)
		}
	}
	r.once(t, "after", ms) // the scheduler is usable afterwards
	r.run(t, []step{{ms, []string{"after@0.002s"}}})
}

// Bad inputs change nothing: List is equal before and after.
func TestBadInputsChangeNothing(t *testing.T) {
	r := newRec()
	r.once(t, "a", 10*ms)
	r.every(t, "b", 7*ms)
	before := r.s.List()
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"advance negative", r.s.Advance(-ms), "Advance: d: want a duration >= 0, got -PT0.001S"},
		{"jump negative", r.s.Jump(-ms), "Jump: d: want a duration >= 0, got -PT0.001S"},
		{"once negative", second(r.s.ScheduleOnce(-ns, r.cb("x"))), "ScheduleOnce: delay: want a duration >= 0, got -PT0.000000001S"},
		{"once nil", second(r.s.ScheduleOnce(ms, nil)), "ScheduleOnce: fn: want a function, got nil"},
		{"every zero", second(r.s.ScheduleEvery(sched.Every{Interval: 0}, r.cb("x"))), "ScheduleEvery: e.Interval: want a duration > 0, got PT0S"},
		{"every negative", second(r.s.ScheduleEvery(sched.Every{Interval: -s}, r.cb("x"))), "ScheduleEvery: e.Interval: want a duration > 0, got -PT1S"},
		{"every nil", second(r.s.ScheduleEvery(sched.Every{Interval: s}, nil)), "ScheduleEvery: fn: want a function, got nil"},
		{"once overflow", second(r.s.ScheduleOnce(math.MaxInt64, r.cb("x"))), "ScheduleOnce: delay: want a duration that keeps the deadline within int64 nanoseconds"},
		{"loop limit", r.s.SetLimits(-1, 0), "SetLimits: loopLimit: want an integer >= 1, or 0 to keep it, got -1"},
		{"run-all limit", r.s.RunAll(0), "RunAll: maxFires: want an integer >= 1, got 0"},
	}
	for _, c := range cases {
		var oe *temporal.OptionError
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) || !errors.As(c.err, &oe) {
			t.Errorf("%s: error %v, want an *OptionError containing %q", c.name, c.err, c.want)
		}
	}
	if after := r.s.List(); !slices.Equal(before, after) {
		t.Fatalf("List changed:\nbefore %+v\nafter  %+v", before, after)
	}
}

func second[T any](_ T, err error) error { return err }

// An interval whose next tick would pass the last representable instant
// fires its last tick and ends, in a drain and in a jump alike: no
// wrap-around, no error.
func TestIntervalEndsAtTheEndOfTime(t *testing.T) {
	last := math.MaxInt64 - epoch.UnixNano() // the last deadline, ns after the epoch
	iv := temporal.Duration(last/2 + 1)      // two periods pass it
	for _, c := range []struct {
		name string
		move func(*sched.Scheduler) error
	}{
		{"advance", func(s *sched.Scheduler) error { return s.Advance(temporal.Duration(last)) }},
		{"jump", func(s *sched.Scheduler) error { return s.Jump(iv + 5) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := sched.New(temporal.Fixed(epoch))
			fires := 0
			h, err := s.ScheduleEvery(sched.Every{Interval: iv}, func() error { fires++; return nil })
			if err != nil {
				t.Fatal(err)
			}
			if err := c.move(s); err != nil {
				t.Fatal(err)
			}
			if fires != 1 || h.Active() || s.Count() != 0 {
				t.Fatalf("fires %d, active %v, count %d; want 1, false, 0", fires, h.Active(), s.Count())
			}
		})
	}
}

// The last deadline accepted is the one whose instant is the largest int64
// ns; one ns more is refused, by every scheduling call, with nothing
// queued. An epoch before 1970 leaves the whole int64 range of elapsed ns.
func TestDeadlineRangeEdges(t *testing.T) {
	for _, c := range []struct {
		name  string
		epoch temporal.Instant
		last  int64 // largest deadline in ns after the epoch
	}{
		{"epoch 2000", epoch, math.MaxInt64 - epoch.UnixNano()},
		{"epoch 1900", temporal.FromUnixNano(-2208988800 * 1e9), math.MaxInt64},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := sched.New(temporal.Fixed(c.epoch))
			if err := s.Advance(temporal.Second); err != nil {
				t.Fatal(err)
			}
			room := temporal.Duration(c.last - int64(temporal.Second))
			nop := (func() error)(func() error { return nil })
			for _, sc := range []struct {
				name string
				fn   func(temporal.Duration) error
			}{
				{"ScheduleOnce", func(d temporal.Duration) error { return second(s.ScheduleOnce(d, nop)) }},
				{"ScheduleOnce", func(d temporal.Duration) error { return second(s.ScheduleOnce(d, nop, sched.WithLabel("l"))) }},
				{"ScheduleEvery", func(d temporal.Duration) error { return second(s.ScheduleEvery(sched.Every{Interval: d}, nop)) }},
			} {
				n := s.Count()
				err := sc.fn(room + 1)
				if want := sc.name + ": "; err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "within int64 nanoseconds") {
					t.Fatalf("%s(last+1ns) = %v, want an error naming %s and the range", sc.name, err, sc.name)
				}
				if s.Count() != n {
					t.Fatalf("%s(last+1ns) queued a job", sc.name)
				}
				if err := sc.fn(room); err != nil {
					t.Fatalf("%s(last) = %v, want it queued", sc.name, err)
				}
				if at, _ := s.NextDeadline(); s.Count() != n+1 || at.UnixNano() != c.epoch.UnixNano()+c.last {
					t.Fatalf("%s(last): count %d, next deadline %v", sc.name, s.Count(), at)
				}
			}
		})
	}
}

func TestListIsInDueOrder(t *testing.T) {
	r := newRec()
	r.once(t, "a", 30*ms)
	b := r.every(t, "b", 10*ms)
	r.once(t, "c", 10*ms)
	r.run(t, []step{{5 * ms, nil}})
	got := r.s.List()
	want := []sched.JobInfo{
		{ID: b.ID(), Kind: sched.KindEvery, DueAt: must(epoch.Add(10 * ms)), DueIn: 5 * ms, Interval: 10 * ms},
		{ID: 3, Kind: sched.KindOnce, DueAt: must(epoch.Add(10 * ms)), DueIn: 5 * ms},
		{ID: 1, Kind: sched.KindOnce, DueAt: must(epoch.Add(30 * ms)), DueIn: 25 * ms},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("List:\n got %+v\nwant %+v", got, want)
	}
}

// Loop guard: a zero-delay re-arm at one instant stops with an error naming
// the job; work scheduled before the call never counts.
func TestLoopGuardStopsZeroDelayRearm(t *testing.T) {
	r := newRec()
	if err := r.s.SetLimits(100, 0); err != nil {
		t.Fatal(err)
	}
	var rearm func() error
	rearm = func() error { _, err := r.s.ScheduleOnce(0, rearm, sched.WithLabel("spin.lua:3")); return err }
	must(r.s.ScheduleOnce(ms, rearm, sched.WithLabel("spin.lua:3")))
	err := r.s.Advance(10 * ms)
	var le *sched.LoopError
	if !errors.As(err, &le) || le.Limit != 100 || !strings.Contains(err.Error(), "once #") || !strings.Contains(err.Error(), "spin.lua:3") {
		t.Fatalf("advance = %v, want a *LoopError naming the re-arming job", err)
	}
	if r.s.Elapsed() != ms {
		t.Fatalf("elapsed = %v, want the looping instant", r.s.Elapsed())
	}
}

func TestLoopGuardDoesNotCountWorkScheduledBeforeTheCall(t *testing.T) {
	r := newRec()
	n := 0
	for i := 0; i < 20_000; i++ {
		must(r.s.ScheduleOnce(ms, func() error { n++; return nil }))
	}
	if err := r.s.Advance(ms); err != nil || n != 20_000 {
		t.Fatalf("advance = %v, ran %d of 20000", err, n)
	}
}

func TestLoopGuardCountsPerInstant(t *testing.T) {
	r := newRec()
	must(0, r.s.SetLimits(3, 0))
	// Each fire schedules the next 1 ms later: never the same instant.
	var chain func() error
	left := 50
	chain = func() error {
		if left--; left > 0 {
			_, err := r.s.ScheduleOnce(ms, chain)
			return err
		}
		return nil
	}
	must(r.s.ScheduleOnce(0, chain))
	if err := r.s.Advance(s); err != nil || left != 0 {
		t.Fatalf("advance = %v, left %d", err, left)
	}
}

func TestNextJumpsToEarliestDeadline(t *testing.T) {
	r := newRec()
	r.once(t, "a", 30*ms)
	r.once(t, "b", 10*ms)
	r.once(t, "c", 10*ms)
	ok, err := next(r.s)
	if !ok || err != nil || !slices.Equal(r.take(), []string{"b@0.01s", "c@0.01s"}) || r.s.Elapsed() != 10*ms {
		t.Fatalf("next: %v %v elapsed %v", ok, err, r.s.Elapsed())
	}
	must(next(r.s))
	if ok, err := next(r.s); ok || err != nil {
		t.Fatalf("next with nothing pending = %v, %v; want false, nil", ok, err)
	}
}

func TestRunAllRunsUntilNothingIsPending(t *testing.T) {
	r := newRec()
	r.once(t, "a", 30*ms)
	must(r.s.ScheduleOnce(10*ms, func() error { _, err := r.s.ScheduleOnce(time100ms, r.cb("chained")); return err }))
	if err := r.s.RunAll(1000); err != nil {
		t.Fatal(err)
	}
	if got := r.take(); !slices.Equal(got, []string{"a@0.03s", "chained@0.11s"}) || r.s.Elapsed() != 110*ms {
		t.Fatalf("run-all fired %q, elapsed %v", got, r.s.Elapsed())
	}
}

func TestRunAllFailsWhileAnIntervalIsActive(t *testing.T) {
	r := newRec()
	r.every(t, "tick", ms)
	err := r.s.RunAll(50)
	var rl *sched.RunLimitError
	if !errors.As(err, &rl) || rl.MaxFires != 50 || len(r.take()) != 50 ||
		err.Error() != "RunAll: more than 50 fires and work is still pending; the next is every #1 (an active interval never ends; use Advance, or raise maxFires)" {
		t.Fatalf("run-all = %v", err)
	}
}

func TestRunToLastStopsAtTheLatestDeadlinePendingAtTheCall(t *testing.T) {
	r := newRec()
	r.once(t, "a", 10*ms)
	must(r.s.ScheduleOnce(20*ms, func() error { _, err := r.s.ScheduleOnce(ms, r.cb("beyond")); return err }))
	if err := r.s.RunToLast(100); err != nil {
		t.Fatal(err)
	}
	if got := r.take(); !slices.Equal(got, []string{"a@0.01s"}) || r.s.Elapsed() != 20*ms || r.s.Count() != 1 {
		t.Fatalf("run-to-last fired %q, elapsed %v, count %d", got, r.s.Elapsed(), r.s.Count())
	}
}

// RunToLast keeps RunAll's limit: an interval far shorter than the way to
// the last deadline stops it, naming the interval, which stays pending.
func TestRunToLastStopsAtItsLimit(t *testing.T) {
	r := newRec()
	must(r.s.ScheduleEvery(sched.Every{Interval: 5 * ms}, r.cb("tick"), sched.WithLabel("f.lua:3")))
	r.once(t, "tomorrow", 24*temporal.Hour)
	err := r.s.RunToLast(1000)
	var rl *sched.RunLimitError
	if !errors.As(err, &rl) || rl.Method != "RunToLast" || len(r.take()) != 1000 || r.s.Count() != 2 ||
		err.Error() != "RunToLast: more than 1000 fires and work is still pending; the next is every #1 scheduled at f.lua:3 (an active interval never ends; use Advance, or raise maxFires)" {
		t.Fatalf("run-to-last = %v", err)
	}
	if err := r.s.RunToLast(0); err == nil {
		t.Fatal("RunToLast(0) accepted")
	}
}

// Jump: the host was suspended; each due job runs once at now+d and an
// interval stays on its grid.
func TestJumpRunsEachDueJobOnceOnItsGrid(t *testing.T) {
	r := newRec()
	r.every(t, "tick", 10*ms)
	r.once(t, "a", 5*ms)
	r.once(t, "later", 50*ms)
	if err := r.s.Jump(35 * ms); err != nil {
		t.Fatal(err)
	}
	if got := r.take(); !slices.Equal(got, []string{"a@0.035s", "tick@0.035s"}) {
		t.Fatalf("jump fired %q", got)
	}
	r.run(t, []step{{5 * ms, []string{"tick@0.04s"}}, {10 * ms, []string{"tick@0.05s", "later@0.05s"}}})
}

func TestObserverSeesEveryFire(t *testing.T) {
	r := newRec()
	var fires []sched.Fire
	r.s.SetObserver(func(f sched.Fire) { fires = append(fires, f) })
	must(r.s.ScheduleEvery(sched.Every{Interval: 10 * ms}, r.cb("t"), sched.WithLabel("game.lua:7")))
	must(0, r.s.Advance(20*ms))
	want := []sched.Fire{
		{At: must(epoch.Add(10 * ms)), ID: 1, Kind: sched.KindEvery, Label: "game.lua:7"},
		{At: must(epoch.Add(20 * ms)), ID: 1, Kind: sched.KindEvery, Label: "game.lua:7"},
	}
	if !slices.Equal(fires, want) {
		t.Fatalf("observer saw %+v", fires)
	}
}

func TestJobErrorNamesTheJob(t *testing.T) {
	r := newRec()
	must(r.s.ScheduleEvery(sched.Every{Interval: 10 * ms}, func() error { return fmt.Errorf("bad") }, sched.WithLabel("x.lua:2")))
	err := r.s.Advance(10 * ms)
	if err == nil || err.Error() != "every #1 scheduled at x.lua:2: bad" {
		t.Fatalf("error = %v", err)
	}
}

func mustInstant(s string) temporal.Instant { return must(temporal.ParseInstant(s)) }

func dailyAt0230(t *testing.T, rule string) *temporal.RecurrenceSet {
	t.Helper()
	return must(temporal.NewRecurrenceSet(temporal.RecurrenceSpec{
		DTStart: must(temporal.ParseLocalDateTime("2024-03-08T02:30:00")),
		RRules:  []string{rule},
	}))
}

type occLog struct {
	s   *sched.Scheduler
	got []string
}

func (o *occLog) cb(at temporal.Instant, index int) error {
	o.got = append(o.got, fmt.Sprintf("%d %s now=%s", index, at, o.s.Now()))
	return nil
}

// Recurrence: each occurrence is one-shot work receiving {scheduled-at,
// occurrence-index}; limit caps the fires.
func TestRecurrenceFiresEachOccurrenceWithPayload(t *testing.T) {
	s := sched.New(temporal.Fixed(mustInstant("2024-03-08T00:00:00Z")))
	o := &occLog{s: s}
	h := must(s.ScheduleRecurrence(sched.Recurrence{
		Set: dailyAt0230(t, "FREQ=DAILY"), Zone: "America/New_York",
		Disambiguation: temporal.Compatible, Limit: 4,
	}, o.cb))
	must(0, s.Advance(10*24*temporal.Hour))
	want := []string{
		"1 2024-03-08T07:30:00Z now=2024-03-08T07:30:00Z",
		"2 2024-03-09T07:30:00Z now=2024-03-09T07:30:00Z",
		"3 2024-03-10T07:30:00Z now=2024-03-10T07:30:00Z", // 02:30 does not exist: 03:30 EDT
		"4 2024-03-11T06:30:00Z now=2024-03-11T06:30:00Z",
	}
	if !slices.Equal(o.got, want) {
		t.Fatalf("fired\n%s\nwant\n%s", strings.Join(o.got, "\n"), strings.Join(want, "\n"))
	}
	if h.Active() {
		t.Fatal("limit reached: the handle must be inactive")
	}
}

// Recurrence: occurrences before Now are neither fired nor counted.
func TestRecurrenceSkipsOccurrencesBeforeNow(t *testing.T) {
	s := sched.New(temporal.Fixed(mustInstant("2024-03-09T12:00:00Z")))
	o := &occLog{s: s}
	must(s.ScheduleRecurrence(sched.Recurrence{
		Set: dailyAt0230(t, "FREQ=DAILY;COUNT=5"), Zone: "Europe/Paris", Limit: 2,
	}, o.cb))
	if l := s.List(); len(l) != 1 || l[0].OccurrenceIndex != 1 || l[0].Kind != sched.KindRecurrence {
		t.Fatalf("List = %+v", l)
	}
	must(0, s.Advance(30*24*temporal.Hour))
	want := []string{
		"1 2024-03-10T01:30:00Z now=2024-03-10T01:30:00Z",
		"2 2024-03-11T01:30:00Z now=2024-03-11T01:30:00Z",
	}
	if !slices.Equal(o.got, want) {
		t.Fatalf("fired %q", o.got)
	}
}

// Recurrence: a rejected first occurrence is an error at schedule time and
// schedules nothing.
func TestRecurrenceRejectedFirstOccurrenceFailsScheduling(t *testing.T) {
	s := sched.New(temporal.Fixed(mustInstant("2024-03-10T00:00:00Z")))
	_, err := s.ScheduleRecurrence(sched.Recurrence{Set: dailyAt0230(t, "FREQ=DAILY"), Zone: "America/New_York"}, (&occLog{s: s}).cb)
	var re *temporal.ResolveError
	if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), "ScheduleRecurrence: ") || !strings.Contains(err.Error(), "2024-03-10T02:30:00") {
		t.Fatalf("error = %v, want a ResolveError for 2024-03-10T02:30:00", err)
	}
	if s.Count() != 0 {
		t.Fatal("a failed schedule left work pending")
	}
}

// Recurrence: a rejected local time within LookAhead is an error at
// schedule time, found from the zone's transitions, unless the limit ends
// the job before it.
func TestRecurrenceRejectionAheadFailsScheduling(t *testing.T) {
	s := sched.New(temporal.Fixed(mustInstant("2024-03-08T00:00:00Z")))
	o := &occLog{s: s}
	_, err := s.ScheduleRecurrence(sched.Recurrence{Set: dailyAt0230(t, "FREQ=DAILY"), Zone: "America/New_York"}, o.cb)
	var re *temporal.ResolveError
	want := "ScheduleRecurrence: a coming occurrence: local time 2024-03-10T02:30:00 does not exist in America/New_York (skipped by a DST gap)"
	if !errors.As(err, &re) || err.Error() != want {
		t.Fatalf("error = %v\nwant %s", err, want)
	}
	if s.Count() != 0 {
		t.Fatal("a failed schedule left work pending")
	}
	// Two fires end the job before the gap night.
	must(s.ScheduleRecurrence(sched.Recurrence{Set: dailyAt0230(t, "FREQ=DAILY"), Zone: "America/New_York", Limit: 2}, o.cb))
	must(0, s.Advance(10*24*temporal.Hour))
	if len(o.got) != 2 {
		t.Fatalf("fired %q", o.got)
	}
	// Another disambiguation resolves the gap instead.
	must(s.ScheduleRecurrence(sched.Recurrence{Set: dailyAt0230(t, "FREQ=DAILY"), Zone: "America/New_York", Disambiguation: temporal.Compatible}, o.cb))
}

// Recurrence: the look-ahead is measured from the first occurrence, so a
// set that starts decades after Now() still has its gap found at once.
func TestRecurrenceLookAheadFromFirstOccurrence(t *testing.T) {
	s := sched.New(temporal.Fixed(mustInstant("2000-01-01T00:00:00Z")))
	_, err := s.ScheduleRecurrence(sched.Recurrence{Set: dailyAt0230(t, "FREQ=DAILY"), Zone: "America/New_York"}, (&occLog{s: s}).cb)
	want := "ScheduleRecurrence: a coming occurrence: local time 2024-03-10T02:30:00 does not exist in America/New_York (skipped by a DST gap)"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant %s", err, want)
	}
	if s.Count() != 0 {
		t.Fatal("a failed schedule left work pending")
	}
}

// Recurrence: a rejected local time past LookAhead comes out of the call
// that fires the occurrence before it; the handle stays active, the
// rejected time gets no index. March 14 is the second Sunday of March in
// 2038 and next in 2049, more than ten years later.
func TestRecurrenceLaterRejectionComesOutOfThePreviousFire(t *testing.T) {
	s := sched.New(temporal.Fixed(mustInstant("2039-01-01T00:00:00Z")))
	o := &occLog{s: s}
	set := must(temporal.NewRecurrenceSet(temporal.RecurrenceSpec{
		DTStart: must(temporal.ParseLocalDateTime("2039-03-14T02:30:00")),
		RRules:  []string{"FREQ=YEARLY"},
	}))
	h := must(s.ScheduleRecurrence(sched.Recurrence{Set: set, Zone: "America/New_York"}, o.cb))
	year := 365 * 24 * temporal.Hour
	must(0, s.Advance(9*year)) // fires 2039 to 2047
	err := s.Advance(year)     // fires 2048, then 2049-03-14 02:30 is rejected
	var re *temporal.ResolveError
	if !errors.As(err, &re) || len(o.got) != 10 || re.Local.String() != "2049-03-14T02:30:00" {
		t.Fatalf("advance = %v after %d fires; want the rejection of 2049-03-14T02:30:00", err, len(o.got))
	}
	if !h.Active() {
		t.Fatal("the handle must stay active after a rejection")
	}
	must(0, s.Advance(2*year))
	if got := o.got[10]; !strings.HasPrefix(got, "11 2050-03-14T06:30:00Z") {
		t.Fatalf("after the rejection fired %q", got)
	}
}

func TestRecurrenceBadInputs(t *testing.T) {
	s := sched.New(temporal.Fixed(epoch))
	set := dailyAt0230(t, "FREQ=DAILY")
	cb := (&occLog{s: s}).cb
	cases := []struct {
		r    sched.Recurrence
		fn   func(temporal.Instant, int) error
		want string
	}{
		{sched.Recurrence{Zone: "UTC"}, cb, "ScheduleRecurrence: r.Set: want a recurrence set, got nil"},
		{sched.Recurrence{Set: set, Zone: ""}, cb, `ScheduleRecurrence: r.Zone: zone ""`},
		{sched.Recurrence{Set: set, Zone: "Mars/Olympus"}, cb, `zone "Mars/Olympus"`},
		{sched.Recurrence{Set: set, Zone: "UTC", Limit: -1}, cb, "ScheduleRecurrence: r.Limit: want an integer >= 0, got -1"},
		{sched.Recurrence{Set: set, Zone: "UTC"}, nil, "ScheduleRecurrence: fn: want a function, got nil"},
	}
	for _, c := range cases {
		if _, err := s.ScheduleRecurrence(c.r, c.fn); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error = %v, want it to contain %q", err, c.want)
		}
	}
	if s.Count() != 0 {
		t.Fatal("bad input scheduled work")
	}
}

func TestJumpFiresARecurrenceOnce(t *testing.T) {
	s := sched.New(temporal.Fixed(mustInstant("2024-03-08T00:00:00Z")))
	o := &occLog{s: s}
	must(s.ScheduleRecurrence(sched.Recurrence{Set: dailyAt0230(t, "FREQ=DAILY"), Zone: "UTC"}, o.cb))
	must(0, s.Jump(3*24*temporal.Hour)) // 08, 09, 10 02:30 due: one fire at the jump's end
	must(0, s.Advance(24*temporal.Hour))
	want := []string{
		"1 2024-03-08T02:30:00Z now=2024-03-11T00:00:00Z",
		"2 2024-03-11T02:30:00Z now=2024-03-11T02:30:00Z",
	}
	if !slices.Equal(o.got, want) {
		t.Fatalf("fired %q", o.got)
	}
}

// TestLargeDrainFiresInOrder: an advance over more jobs than the sort
// threshold (the sorted-run path) still fires in (deadline, creation)
// order, with ties, negative spacing and cancels from callbacks.
func TestLargeDrainFiresInOrder(t *testing.T) {
	const n = 50_000
	s := sched.New(temporal.Fixed(epoch))
	type fire struct {
		at int64
		id uint64
	}
	var got []fire
	handles := make([]sched.Handle, n)
	cancelled := map[uint64]bool{}
	r := rand.New(rand.NewPCG(7, 7))
	for i := range n {
		d := temporal.Duration(r.Int64N(1000)) * temporal.Millisecond // many ties
		h, err := s.ScheduleOnce(d, func() error {
			got = append(got, fire{int64(s.Elapsed()), handles[i].ID()})
			if h := handles[(i+1)%n]; i%97 == 0 && h.Active() { // cancel another job, wherever it is
				h.Cancel()
				cancelled[h.ID()] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		handles[i] = h
	}
	if err := s.Advance(temporal.Second); err != nil {
		t.Fatal(err)
	}
	if s.Count() != 0 {
		t.Fatalf("%d jobs left after the drain", s.Count())
	}
	for k := 1; k < len(got); k++ {
		a, b := got[k-1], got[k]
		if a.at > b.at || (a.at == b.at && a.id > b.id) {
			t.Fatalf("fire %d: %+v after %+v", k, b, a)
		}
	}
	for _, f := range got {
		if cancelled[f.id] {
			t.Fatalf("job %d fired after it was cancelled", f.id)
		}
	}
	if want := n - len(cancelled); len(got) != want {
		t.Fatalf("%d fires, want %d", len(got), want)
	}
}

// TestCreationNumbersRunOut: once every creation number is handed out,
// scheduling fails with an error naming the function and changes nothing.
func TestCreationNumbersRunOut(t *testing.T) {
	s := sched.New(temporal.Fixed(epoch))
	s.SetCreations(sched.MaxCreations - 1)
	h := must(s.ScheduleOnce(temporal.Second, func() error { return nil }))
	if h.ID() != sched.MaxCreations {
		t.Fatalf("last job's id = %d, want %d", h.ID(), uint64(sched.MaxCreations))
	}
	before := s.List()
	for _, tt := range []struct {
		name string
		f    func() error
	}{
		{"ScheduleOnce", func() error { _, err := s.ScheduleOnce(0, func() error { return nil }); return err }},
		{"ScheduleEvery", func() error {
			_, err := s.ScheduleEvery(sched.Every{Interval: temporal.Second}, func() error { return nil })
			return err
		}},
	} {
		err := tt.f()
		if err == nil || !strings.HasPrefix(err.Error(), tt.name+": the scheduler has handed out all") {
			t.Errorf("%s: error %v, want one naming %s and the exhausted numbering", tt.name, err, tt.name)
		}
		if got := s.List(); !slices.Equal(got, before) {
			t.Errorf("%s changed the scheduler: %v, want %v", tt.name, got, before)
		}
	}
	if !h.Active() {
		t.Fatal("the last job was lost")
	}
}

// Extensions (the state of every job with an interval, a label, a group or
// a recurrence) are reused once their job leaves the queue. A job that
// cancels itself and schedules another in its callback must still be named
// by its own label, and the new job must keep its own.
func TestSelfCancelledJobKeepsItsStateThroughItsCallback(t *testing.T) {
	r := newRec()
	var h sched.Handle
	h = must(r.s.ScheduleEvery(sched.Every{Interval: 10 * ms}, func() error {
		h.Cancel()
		must(r.s.ScheduleEvery(sched.Every{Interval: 7 * ms}, r.cb("new"), sched.WithLabel("new.lua:1")))
		return errors.New("bad")
	}, sched.WithLabel("old.lua:1")))
	err := r.s.Advance(10 * ms)
	if err == nil || err.Error() != "every #1 scheduled at old.lua:1: bad" {
		t.Fatalf("error = %v, want the cancelled job named", err)
	}
	l := r.s.List()
	if len(l) != 1 || l[0].Label != "new.lua:1" || l[0].Interval != 7*ms || l[0].ID != 2 {
		t.Fatalf("List = %+v, want only job #2 every 7ms labelled new.lua:1", l)
	}
	r.run(t, []step{{14 * ms, []string{"new@0.017s", "new@0.024s"}}})
}

// Extensions freed by cancel, group clear, a fired one-shot and an ended
// recurrence are handed to new jobs; none keeps a field of its last job.
func TestReusedExtensionsStartClean(t *testing.T) {
	r := newRec()
	g := &sched.Group{Name: "g"}
	var hs []sched.Handle
	for i := range 200 {
		switch i % 4 {
		case 0:
			hs = append(hs, must(r.s.ScheduleEvery(sched.Every{Interval: temporal.Duration(i+1) * ms}, r.cb("e"), sched.WithLabel("e"))))
		case 1:
			must(r.s.ScheduleOnce(temporal.Duration(i)*ms, r.cb("g"), sched.InGroup(g)))
		case 2:
			must(r.s.ScheduleOnce(temporal.Duration(i)*ms, r.cb("o"), sched.WithLabel("o")))
		case 3:
			must(r.s.ScheduleRecurrence(sched.Recurrence{
				Set: must(temporal.NewRecurrenceSet(temporal.RecurrenceSpec{
					DTStart: must(temporal.ParseLocalDateTime("2000-01-01T00:00:01")),
					RRules:  []string{"FREQ=SECONDLY;COUNT=1"},
				})),
				Zone: "UTC",
			}, func(temporal.Instant, int) error { return nil }, sched.WithLabel("r")))
		}
	}
	for _, h := range hs {
		h.Cancel()
	}
	must(0, r.s.Clear(g))
	must(0, r.s.Advance(2*s)) // fires the labelled one-shots and ends the recurrences
	if n := r.s.Count(); n != 0 {
		t.Fatalf("Count = %d after cancelling and firing everything", n)
	}
	r.take()
	for i := range 200 {
		must(r.s.ScheduleOnce(temporal.Duration(i)*ms, r.cb("n"), sched.WithLabel("")))
	}
	for _, j := range r.s.List() {
		if j.Label != "" || j.Group != "" || j.Interval != 0 || j.OccurrenceIndex != 0 || j.Kind != sched.KindOnce {
			t.Fatalf("new one-shot shows an old job's state: %+v", j)
		}
	}
}

// Thousands of intervals in one long drain go through timerq's far ring:
// every tick fires once, in (deadline, creation) order, at its deadline;
// an interval cancelled by another's callback stops at once; one scheduled
// during the drain joins in; and a jump afterwards runs each due one once.
func TestManyIntervalsFireInOrder(t *testing.T) {
	const n = 6000
	sc := sched.New(temporal.Fixed(epoch))
	type fire struct {
		at int64
		id uint64
	}
	var got []fire
	periods := map[uint64]int64{}
	handles := make([]sched.Handle, n)
	cancelledAt := map[uint64]int64{}
	r := rand.New(rand.NewPCG(3, 3))
	for i := range n {
		p := 1000 + r.Int64N(59_000) // ms
		h, err := sc.ScheduleEvery(sched.Every{Interval: temporal.Duration(p) * ms}, func() error {
			now := int64(sc.Elapsed())
			got = append(got, fire{now, handles[i].ID()})
			if i%1000 == 7 && now < 120e9 {
				if v := handles[i+1]; v.Active() {
					v.Cancel()
					cancelledAt[v.ID()] = now
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		handles[i] = h
		periods[h.ID()] = p * 1e6
	}
	// A late interval, scheduled at 90 s by a one-shot: fire id 0.
	must(sc.ScheduleOnce(90*s, func() error {
		_, err := sc.ScheduleEvery(sched.Every{Interval: 1500 * ms}, func() error { got = append(got, fire{int64(sc.Elapsed()), 0}); return nil })
		return err
	}))
	const end = int64(600e9)
	if err := sc.Advance(temporal.Duration(end)); err != nil {
		t.Fatal(err)
	}
	// The expected trace, from the closed form.
	count := map[uint64]int{}
	lateFires := 0
	for k, f := range got {
		if k > 0 {
			a := got[k-1]
			if a.at > f.at {
				t.Fatalf("fire %d at %d ns after one at %d", k, f.at, a.at)
			}
		}
		if f.id == 0 {
			lateFires++
			if (f.at-90e9)%1500e6 != 0 {
				t.Fatalf("the late interval fired at %d ns, off its grid", f.at)
			}
			continue
		}
		count[f.id]++
		if f.at%periods[f.id] != 0 {
			t.Fatalf("interval %d (period %d) fired at %d ns, off its grid", f.id, periods[f.id], f.at)
		}
		if c, ok := cancelledAt[f.id]; ok && f.at > c {
			t.Fatalf("interval %d fired at %d ns, after it was cancelled at %d", f.id, f.at, c)
		}
	}
	for id, p := range periods {
		want := int(end / p)
		if c, ok := cancelledAt[id]; ok {
			want = int(c / p)
		}
		if count[id] != want {
			t.Fatalf("interval %d (period %d ns) fired %d times, want %d", id, p, count[id], want)
		}
	}
	if want := int((end - 90e9) / 1500e6); lateFires != want {
		t.Fatalf("the late interval fired %d times, want %d", lateFires, want)
	}
	// Ties: equal deadlines fire in creation order (the late one is newest).
	for k := 1; k < len(got); k++ {
		a, b := got[k-1], got[k]
		if a.at == b.at && b.id != 0 && (a.id == 0 || a.id > b.id) {
			t.Fatalf("at %d ns interval %d fired before %d", a.at, a.id, b.id)
		}
	}
	// A jump far ahead: each active interval runs once, at the target.
	got = got[:0]
	if err := sc.Jump(temporal.Duration(3600e9)); err != nil {
		t.Fatal(err)
	}
	if want := sc.Count(); len(got) != want {
		t.Fatalf("jump fired %d callbacks, want one per active interval (%d)", len(got), want)
	}
}

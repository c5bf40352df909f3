package sched_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

func dur(d temporal.Duration) *temporal.Duration { return &d }

func (r *rec) want(t *testing.T, advance temporal.Duration, want ...string) {
	t.Helper()
	if err := r.s.Advance(advance); err != nil {
		t.Fatal(err)
	}
	if got := r.take(); !slices.Equal(got, want) {
		t.Fatalf("after advancing %v: fired %q, want %q", advance, got, want)
	}
}

func TestScheduleEveryWithDelayAndCount(t *testing.T) {
	r := newRec()
	h := must(r.s.ScheduleEvery(sched.Every{Interval: 10 * ms, Delay: dur(3 * ms), Count: 3}, r.cb("e")))
	r.want(t, 3*ms-ns)
	r.want(t, ns, "e@0.003s")
	r.want(t, 30*ms, "e@0.013s", "e@0.023s") // the count ends the catch-up
	if h.Active() || r.s.Count() != 0 {
		t.Fatal("an interval whose count is spent is still active")
	}

	// A zero delay is due now; a jump's single fire counts once.
	r = newRec()
	h = must(r.s.ScheduleEvery(sched.Every{Interval: 10 * ms, Delay: dur(0), Count: 2}, r.cb("z")))
	r.want(t, 0, "z@0s")
	if err := r.s.Jump(35 * ms); err != nil {
		t.Fatal(err)
	}
	if got := r.take(); !slices.Equal(got, []string{"z@0.035s"}) || h.Active() {
		t.Fatalf("jump: %q, active %v", got, h.Active())
	}
}

func TestScheduleEveryWithRefusesBadInput(t *testing.T) {
	r := newRec()
	for _, c := range []struct {
		e     sched.Every
		param string
	}{
		{sched.Every{Interval: 0}, "e.Interval"},
		{sched.Every{Interval: ms, Delay: dur(-ns)}, "e.Delay"},
		{sched.Every{Interval: ms, Count: -1}, "e.Count"},
	} {
		_, err := r.s.ScheduleEvery(c.e, r.cb("x"))
		var oe *temporal.OptionError
		if !errors.As(err, &oe) || oe.Param != c.param {
			t.Errorf("%+v: %v, want an *OptionError about %s", c.e, err, c.param)
		}
	}
	if r.s.Count() != 0 {
		t.Fatal("refused jobs were scheduled")
	}
}

func TestHandleDueAndRemaining(t *testing.T) {
	r := newRec()
	h := r.once(t, "o", 10*ms)
	r.want(t, 4*ms)
	if at, ok := due(h); !ok || at.Compare(must(epoch.Add(10*ms))) != 0 {
		t.Fatalf("Due = %v %v", at, ok)
	}
	if d, ok := remaining(h); !ok || d != 6*ms {
		t.Fatalf("Remaining = %v %v", d, ok)
	}
	r.want(t, 6*ms, "o@0.01s")
	if _, ok := due(h); ok {
		t.Fatal("a fired one-shot reports a due time")
	}
	if _, ok := remaining(h); ok {
		t.Fatal("a fired one-shot reports a remaining time")
	}

	// Inside an interval's callback: its next tick.
	var e sched.Handle
	var seen []temporal.Duration
	e = must(r.s.ScheduleEvery(sched.Every{Interval: 10 * ms}, func() error {
		d, _ := remaining(e)
		seen = append(seen, d)
		return nil
	}))
	r.want(t, 20*ms)
	if !slices.Equal(seen, []temporal.Duration{10 * ms, 10 * ms}) {
		t.Fatalf("Remaining inside the callback = %v", seen)
	}
	var zero sched.Handle
	if _, ok := due(zero); ok {
		t.Fatal("the zero Handle has a due time")
	}
}

func TestHandleReset(t *testing.T) {
	r := newRec()
	h := r.once(t, "o", 10*ms)
	id := h.ID()
	r.want(t, 10*ms, "o@0.01s")
	if err := h.Reset(5 * ms); err != nil { // a fired one-shot re-arms
		t.Fatal(err)
	}
	if h.ID() != id || !h.Active() {
		t.Fatalf("after Reset: id %d (want %d), active %v", h.ID(), id, h.Active())
	}
	r.want(t, 5*ms, "o@0.015s")

	// Pending: cancel plus schedule, ordered as if scheduled at the call.
	h = r.once(t, "a", 10*ms)
	r.once(t, "b", 10*ms)
	old := h
	if err := h.Reset(10 * ms); err != nil {
		t.Fatal(err)
	}
	if old.Active() {
		t.Fatal("a copy of the handle still refers to a live job")
	}
	r.want(t, 10*ms, "b@0.025s", "a@0.025s")

	// Cancelled one-shot with options; List keeps the id and the name.
	h = must(r.s.ScheduleOnce(ms, r.cb("n"), sched.WithName("cool"), sched.WithLabel("f.lua:1"), sched.Rearmable()))
	id = h.ID()
	h.Cancel()
	if err := h.Reset(2 * ms); err != nil {
		t.Fatal(err)
	}
	if l := r.s.List(); len(l) != 1 || l[0].ID != id || l[0].Name != "cool" || l[0].Label != "f.lua:1" {
		t.Fatalf("List after Reset = %+v", l)
	}
	r.want(t, 2*ms, "n@0.027s")

	// An interval starts again from the reset, with its whole count.
	e := must(r.s.ScheduleEvery(sched.Every{Interval: 10 * ms, Count: 2}, r.cb("e"), sched.Rearmable()))
	r.want(t, 10*ms, "e@0.037s")
	if err := e.Reset(3 * ms); err != nil {
		t.Fatal(err)
	}
	r.want(t, 30*ms, "e@0.04s", "e@0.05s")
	if e.Active() {
		t.Fatal("count not honoured after Reset")
	}
}

// notResettable reports whether err is Reset's refusal of a job it cannot
// schedule again.
func notResettable(err error) bool {
	var ce *sched.CallError
	return errors.As(err, &ce) && ce.Method == "Handle.Reset" && strings.Contains(ce.Err.Error(), "cannot be reset")
}

func TestHandleResetRefusals(t *testing.T) {
	r := newRec()
	h := r.once(t, "o", ms)
	if err := h.Reset(-ns); !errors.As(err, new(*temporal.OptionError)) || !h.Active() {
		t.Fatalf("Reset(-1ns) = %v; active %v", err, h.Active())
	}
	var zero sched.Handle
	if err := zero.Reset(ms); !notResettable(err) {
		t.Fatalf("zero Handle Reset = %v", err)
	}
	plain := must(r.s.ScheduleEvery(sched.Every{Interval: ms}, r.cb("e")))
	if err := plain.Reset(ms); !notResettable(err) || !plain.Active() {
		t.Fatalf("Reset of an interval without Rearmable = %v", err)
	}
	rh := must(r.s.ScheduleRecurrence(sched.Recurrence{Set: dailyAt0230(t, "FREQ=DAILY"), Zone: "UTC"}, func(temporal.Instant, int) error { return nil }))
	if err := rh.Reset(ms); !notResettable(err) {
		t.Fatalf("recurrence Reset = %v", err)
	}
}

func TestJobNameInErrorsAndTraces(t *testing.T) {
	r := newRec()
	var fires []sched.Fire
	r.s.SetObserver(func(f sched.Fire) { fires = append(fires, f) })
	must(r.s.ScheduleEvery(sched.Every{Interval: ms}, func() error { return errors.New("boom") }, sched.WithName("regen"), sched.WithLabel("game.lua:14")))
	err := r.s.Advance(ms)
	if err == nil || !strings.Contains(err.Error(), "every #1 'regen' scheduled at game.lua:14: boom") {
		t.Fatalf("error = %v", err)
	}
	if len(fires) != 1 || fires[0].Name != "regen" {
		t.Fatalf("fires = %+v", fires)
	}
	if got := (sched.JobInfo{ID: 3, Kind: sched.KindOnce}).String(); got != "once #3" {
		t.Fatalf("Job.String = %q", got)
	}
}

func TestTimerDueAndRemaining(t *testing.T) {
	r := newRec()
	var inside temporal.Duration
	var tm sched.Handle
	tm = must(r.s.RegisterTimer("k", sched.TimerOptions{Interval: 10 * ms, Delay: dur(4 * ms)}, func(*sched.Step) error {
		inside, _ = remaining(tm)
		return nil
	}))
	if at, ok := due(tm); !ok || at.Compare(must(epoch.Add(4*ms))) != 0 {
		t.Fatalf("Due = %v %v", at, ok)
	}
	r.want(t, 4*ms)
	if inside != 10*ms {
		t.Fatalf("Remaining inside the handler = %v, want the next tick's", inside)
	}
	tm.Cancel()
	if _, ok := remaining(tm); ok {
		t.Fatal("a cancelled timer reports a remaining time")
	}
}

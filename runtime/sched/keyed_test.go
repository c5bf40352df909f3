package sched_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// ticks records keyed ticks as "key/g d=1 s=1 k=0 @0.01s".
type ticks struct {
	s   *sched.Scheduler
	log []string
	all []sched.Step
}

func newTicks() *ticks { return &ticks{s: newScheduler()} }

func newScheduler() *sched.Scheduler {
	start, _ := temporal.ParseInstant("2024-03-08T12:00:00Z")
	return sched.New(temporal.Fixed(start))
}

func (r *ticks) record(t *sched.Step) {
	r.all = append(r.all, *t)
	r.log = append(r.log, fmt.Sprintf("%s/%d d=%d s=%d k=%d @%s", t.Key, t.Generation, t.DeliveryIndex, t.ScheduledIndex, t.SkippedTicks, r.s.Elapsed().DecimalSeconds()))
}

func (r *ticks) take() []string {
	out := r.log
	r.log = nil
	return out
}

// busy returns a handler that records its tick and then runs for d.
func (r *ticks) busy(d temporal.Duration) func(*sched.Step) error {
	return func(t *sched.Step) error {
		r.record(t)
		if d == 0 {
			return nil
		}
		return t.Wait(d, func(*sched.Step) error {
			r.log = append(r.log, fmt.Sprintf("%s/%d end @%s", t.Key, t.Generation, r.s.Elapsed().DecimalSeconds()))
			return nil
		})
	}
}

func (r *ticks) register(t *testing.T, o *sched.Owner, key string, opts sched.TimerOptions, fn func(*sched.Step) error) sched.Handle {
	t.Helper()
	opts.Owner = o
	tm, err := r.s.RegisterTimer(key, opts, fn)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func (r *ticks) want(t *testing.T, want ...string) {
	t.Helper()
	if got := r.take(); !slices.Equal(got, want) {
		t.Fatalf("got\n\t%q\nwant\n\t%q", got, want)
	}
}

func every(d temporal.Duration) sched.TimerOptions { return sched.TimerOptions{Interval: d} }

func adv(t *testing.T, s *sched.Scheduler, d temporal.Duration) {
	t.Helper()
	if err := s.Advance(d); err != nil {
		t.Fatal(err)
	}
}

func jump(t *testing.T, s *sched.Scheduler, d temporal.Duration) {
	t.Helper()
	if err := s.Jump(d); err != nil {
		t.Fatal(err)
	}
}

func TestKeyedOnTimeEveryTickIsDelivered(t *testing.T) {
	r := newTicks()
	r.register(t, nil, "a", every(10*ms), r.busy(0))
	adv(t, r.s, 10*ms-1)
	r.want(t)
	adv(t, r.s, 21*ms)
	r.want(t, "a/1 d=1 s=1 k=0 @0.01s", "a/1 d=2 s=2 k=0 @0.02s", "a/1 d=3 s=3 k=0 @0.03s")
	if got := r.s.List(); len(got) != 1 || got[0].Kind != sched.KindTimer || got[0].Key != "a" || got[0].Generation != 1 || got[0].Interval != 10*ms {
		t.Fatalf("List = %+v", got)
	}
}

// Re-registering the same key means an already-pending tick
// from an earlier generation does not run its callback.
func TestKeyedReRegisterDropsThePendingOldTick(t *testing.T) {
	r := newTicks()
	old := r.register(t, nil, "a", every(10*ms), func(*sched.Step) error { r.log = append(r.log, "old"); return nil })
	// The old generation's tick is due at 10; it is pending at this instant.
	adv(t, r.s, 10*ms-1)
	r.register(t, nil, "a", every(4*ms), r.busy(0))
	adv(t, r.s, 20*ms)
	r.want(t, "a/2 d=1 s=1 k=0 @0.013999999s", "a/2 d=2 s=2 k=0 @0.017999999s", "a/2 d=3 s=3 k=0 @0.021999999s",
		"a/2 d=4 s=4 k=0 @0.025999999s", "a/2 d=5 s=5 k=0 @0.029999999s")
	if old.Active() || old.Cancel() {
		t.Fatal("the superseded generation is active, or a cancel still stopped it")
	}
	if r.s.Count() != 1 {
		t.Fatalf("Count = %d, want 1", r.s.Count())
	}
}

// After cancel, no tick of the generation starts, but a
// callback already running at the cancel runs to completion.
func TestKeyedCancelLetsTheRunningCallbackFinish(t *testing.T) {
	r := newTicks()
	cleaned := 0
	tm := r.register(t, nil, "a", sched.TimerOptions{Interval: 10 * ms, OnCancel: func() { cleaned++ }}, r.busy(25*ms))
	adv(t, r.s, 15*ms)
	r.want(t, "a/1 d=1 s=1 k=0 @0.01s")
	if !tm.Cancel() || cleaned != 0 {
		t.Fatal("cancel did not stop the generation, or completed while the handler was running")
	}
	adv(t, r.s, 100*ms)
	r.want(t, "a/1 end @0.035s")
	if cleaned != 1 {
		t.Fatalf("after the handler: cleanups %d, want 1", cleaned)
	}
	if r.s.Count() != 0 {
		t.Fatalf("Count = %d, want 0", r.s.Count())
	}
}

// Several cancels of one generation end it once: the first stops it, and
// the cleanup runs once, after the running callback.
func TestKeyedRepeatedCancelsEndItOnce(t *testing.T) {
	r := newTicks()
	cleaned := 0
	tm := r.register(t, nil, "a", sched.TimerOptions{Interval: 10 * ms, OnCancel: func() { cleaned++ }}, r.busy(5*ms))
	adv(t, r.s, 12*ms)
	if c1, c2 := tm.Cancel(), tm.Cancel(); !c1 || c2 || cleaned != 0 {
		t.Fatalf("cancels %v, %v with %d cleanups; want true, false before the handler ended", c1, c2, cleaned)
	}
	adv(t, r.s, 3*ms)
	if tm.Cancel() || cleaned != 1 {
		t.Fatalf("cleanups %d, want 1", cleaned)
	}
}

// With a period shorter than the handler, the key's callback
// never runs twice at once.
func TestKeyedNeverConcurrent(t *testing.T) {
	r := newTicks()
	running := false
	fn := func(tk *sched.Step) error {
		if running {
			t.Fatal("callback started while another ran")
		}
		running = true
		r.record(tk)
		return tk.Wait(25*ms, func(*sched.Step) error { running = false; return nil })
	}
	r.register(t, nil, "a", every(10*ms), fn)
	adv(t, r.s, 100*ms)
	// Skip-late-ticks: each handler ends at 35, 70...: the late tick runs at
	// once with the latest due index.
	r.want(t, "a/1 d=1 s=1 k=0 @0.01s", "a/1 d=2 s=3 k=1 @0.035s", "a/1 d=3 s=6 k=2 @0.06s", "a/1 d=4 s=8 k=1 @0.085s")
}

// Never concurrent across generations: the new generation's first tick
// waits for the old handler to end.
func TestKeyedNewGenerationWaitsForTheOldHandler(t *testing.T) {
	r := newTicks()
	r.register(t, nil, "a", every(10*ms), r.busy(20*ms))
	adv(t, r.s, 10*ms)
	r.register(t, nil, "a", sched.TimerOptions{Interval: 5 * ms}, r.busy(0))
	adv(t, r.s, 25*ms)
	r.want(t, "a/1 d=1 s=1 k=0 @0.01s", "a/1 end @0.03s", "a/2 d=1 s=4 k=3 @0.03s", "a/2 d=2 s=5 k=0 @0.035s")
}

// Tick information: delivery +1, scheduled never decreasing and
// >= delivery, skipped as the formula says, under every policy.
func TestKeyedTickInvariants(t *testing.T) {
	for _, p := range []cadence.Policy{cadence.SkipLateTicks, cadence.CatchUpBounded, cadence.DelayNextTick} {
		t.Run(p.String(), func(t *testing.T) {
			r := newTicks()
			n := 0
			r.register(t, nil, "a", sched.TimerOptions{Interval: 3 * ms, Overrun: cadence.Overrun{Policy: p, MaxCatchUpTicks: 2}}, func(tk *sched.Step) error {
				r.record(tk)
				n++
				return tk.Wait(temporal.Duration(n%7)*ms, func(*sched.Step) error { return nil })
			})
			for i := 0; i < 20; i++ {
				adv(t, r.s, temporal.Duration(i%5)*ms)
				jump(t, r.s, temporal.Duration(i%3)*4*ms)
			}
			if len(r.all) < 10 {
				t.Fatalf("only %d ticks", len(r.all))
			}
			var prev int64
			for i, tk := range r.all {
				if tk.DeliveryIndex != int64(i+1) {
					t.Fatalf("tick %d: delivery %d", i, tk.DeliveryIndex)
				}
				if tk.ScheduledIndex < prev || tk.ScheduledIndex < tk.DeliveryIndex {
					t.Fatalf("tick %d: scheduled %d after %d, delivery %d", i, tk.ScheduledIndex, prev, tk.DeliveryIndex)
				}
				if tk.SkippedTicks != tk.ScheduledIndex-prev-1 {
					t.Fatalf("tick %d: skipped %d, scheduled %d after %d", i, tk.SkippedTicks, tk.ScheduledIndex, prev)
				}
				prev = tk.ScheduledIndex
			}
		})
	}
}

// Overrun: the three policies after a stall (Jump) and after a
// handler that overran.
func TestKeyedOverrunPolicies(t *testing.T) {
	cases := []struct {
		name string
		o    cadence.Overrun
		stall,
		overrun []string
	}{
		{"skip-late-ticks", cadence.Overrun{}, []string{
			"a/1 d=1 s=3 k=2 @0.035s", "a/1 d=2 s=4 k=0 @0.04s", "a/1 d=3 s=5 k=0 @0.05s",
		}, []string{
			"a/1 d=1 s=1 k=0 @0.01s", "a/1 end @0.045s", "a/1 d=2 s=4 k=2 @0.045s", "a/1 d=3 s=5 k=0 @0.05s",
		}},
		{"catch-up-bounded", cadence.Overrun{Policy: cadence.CatchUpBounded, MaxCatchUpTicks: 2}, []string{
			"a/1 d=1 s=2 k=1 @0.035s", "a/1 d=2 s=3 k=0 @0.035s", "a/1 d=3 s=4 k=0 @0.04s", "a/1 d=4 s=5 k=0 @0.05s",
		}, []string{
			"a/1 d=1 s=1 k=0 @0.01s", "a/1 end @0.045s", "a/1 d=2 s=3 k=1 @0.045s", "a/1 d=3 s=4 k=0 @0.045s", "a/1 d=4 s=5 k=0 @0.05s",
		}},
		{"delay-next-tick", cadence.Overrun{Policy: cadence.DelayNextTick}, []string{
			"a/1 d=1 s=3 k=2 @0.035s", "a/1 d=2 s=4 k=0 @0.045s", "a/1 d=3 s=5 k=0 @0.055s",
		}, []string{
			"a/1 d=1 s=1 k=0 @0.01s", "a/1 end @0.045s", "a/1 d=2 s=5 k=3 @0.055s",
		}},
	}
	for _, c := range cases {
		t.Run(c.name+"/stall", func(t *testing.T) {
			r := newTicks()
			r.register(t, nil, "a", sched.TimerOptions{Interval: 10 * ms, Overrun: c.o}, r.busy(0))
			jump(t, r.s, 35*ms)
			adv(t, r.s, 20*ms)
			r.want(t, c.stall...)
		})
		t.Run(c.name+"/overrun", func(t *testing.T) {
			r := newTicks()
			r.register(t, nil, "a", sched.TimerOptions{Interval: 10 * ms, Overrun: c.o}, func(tk *sched.Step) error {
				if tk.DeliveryIndex == 1 {
					return r.busy(35 * ms)(tk)
				}
				return r.busy(0)(tk)
			})
			adv(t, r.s, 55*ms)
			r.want(t, c.overrun...)
		})
	}
}

// An owner's lease: past the deadline no tick starts, and a long
// stall without renewal releases no burst.
func TestKeyedLeaseExpiry(t *testing.T) {
	r := newTicks()
	o, err := r.s.NewOwner(sched.OwnerOptions{Lease: 25 * ms})
	if err != nil {
		t.Fatal(err)
	}
	r.register(t, o, "a", every(10*ms), r.busy(0))
	adv(t, r.s, 100*ms)
	r.want(t, "a/1 d=1 s=1 k=0 @0.01s", "a/1 d=2 s=2 k=0 @0.02s")
	if r.s.Count() != 0 {
		t.Fatalf("an expired lease's timer is pending: Count = %d", r.s.Count())
	}
	jump(t, r.s, 10*temporal.Second)
	r.want(t)
	if err := o.Renew(); err != nil {
		t.Fatal(err)
	}
	adv(t, r.s, 30*ms)
	// Renewed at 10.1s: it goes on from the next nominal tick not before
	// then, 10.1s itself (index 1010), counting the gap as skipped; the
	// lease now ends at 10.125s.
	r.want(t, "a/1 d=3 s=1010 k=1007 @10.1s", "a/1 d=4 s=1011 k=0 @10.11s", "a/1 d=5 s=1012 k=0 @10.12s")
}

func TestKeyedTransferDropsTheOldAuthoritysTicks(t *testing.T) {
	r := newTicks()
	o, _ := r.s.NewOwner(sched.OwnerOptions{Lease: 100 * ms})
	r.register(t, o, "a", every(10*ms), r.busy(25*ms))
	adv(t, r.s, 20*ms) // handler runs 10..35; ticks 2 and 3 come due while it runs
	if err := o.Transfer(); err != nil {
		t.Fatal(err)
	}
	adv(t, r.s, 30*ms)
	r.want(t, "a/1 d=1 s=1 k=0 @0.01s", "a/1 end @0.035s", "a/1 d=2 s=3 k=1 @0.035s")
}

func TestKeyedClearCancelsAndRunsCleanup(t *testing.T) {
	r := newTicks()
	ended := map[string]bool{}
	opts := func(key string) sched.TimerOptions {
		return sched.TimerOptions{Interval: 10 * ms, OnCancel: func() { ended[key] = true }}
	}
	a := r.register(t, nil, "a", opts("a"), r.busy(0))
	b := r.register(t, nil, "b", opts("b"), r.busy(15*ms))
	adv(t, r.s, 12*ms)
	r.take()
	if err := r.s.Clear(); err != nil {
		t.Fatal(err)
	}
	if !ended["a"] || ended["b"] || a.Active() || b.Active() {
		t.Fatalf("after Clear: ended %v, active %v %v", ended, a.Active(), b.Active())
	}
	adv(t, r.s, 20*ms)
	r.want(t, "b/1 end @0.025s")
	if !ended["b"] || r.s.Count() != 0 {
		t.Fatalf("ended %v, count %d", ended, r.s.Count())
	}
}

func TestKeyedDropEndsEveryGeneration(t *testing.T) {
	r := newTicks()
	ended := false
	r.register(t, nil, "a", sched.TimerOptions{Interval: 10 * ms, OnCancel: func() { ended = true }}, r.busy(15*ms))
	adv(t, r.s, 12*ms)
	r.s.Drop()
	if !ended {
		t.Fatal("a running generation outlived Drop")
	}
	if _, err := r.s.RegisterTimer("b", every(ms), r.busy(0)); !errors.Is(err, sched.ErrDropped) {
		t.Fatalf("RegisterTimer after Drop: %v", err)
	}
}

func TestKeyedSharesTheOrderWithPlainJobs(t *testing.T) {
	r := newTicks()
	r.s.ScheduleOnce(10*ms, func() error { r.log = append(r.log, "once"); return nil })
	r.register(t, nil, "a", every(10*ms), r.busy(0))
	r.s.ScheduleOnce(10*ms, func() error { r.log = append(r.log, "once2"); return nil })
	if ok, err := next(r.s); !ok || err != nil {
		t.Fatal(ok, err)
	}
	r.want(t, "once", "a/1 d=1 s=1 k=0 @0.01s", "once2")
	if r.s.Count() != 1 {
		t.Fatalf("Count = %d", r.s.Count())
	}
	if err := r.s.RunAll(3); err == nil {
		t.Fatal("RunAll ended while a keyed timer is active")
	}
}

func TestKeyedBadOptionsRegisterNothing(t *testing.T) {
	s := newScheduler()
	fn := func(*sched.Step) error { return nil }
	neg := -ms
	for _, c := range []struct {
		name, key string
		opts      sched.TimerOptions
		fn        func(*sched.Step) error
		want      string
	}{
		{"empty key", "", every(ms), fn, "RegisterTimer: key: want a non-empty string"},
		{"zero interval", "k", every(0), fn, "RegisterTimer: opts.Interval: want a duration > 0"},
		{"bad policy", "k", sched.TimerOptions{Interval: ms, Overrun: cadence.Overrun{Policy: 9}}, fn, "RegisterTimer: opts.Overrun: policy"},
		{"max out of range", "k", sched.TimerOptions{Interval: ms, Overrun: cadence.Overrun{Policy: cadence.CatchUpBounded, MaxCatchUpTicks: -1}}, fn, "max catch-up ticks"},
		{"nil fn", "k", every(ms), nil, "RegisterTimer: fn: want a function"},
		{"negative delay", "k", sched.TimerOptions{Interval: ms, Delay: &neg}, fn, "RegisterTimer: opts.Delay: want a duration >= 0"},
	} {
		_, err := s.RegisterTimer(c.key, c.opts, c.fn)
		var oe *temporal.OptionError
		if !errors.As(err, &oe) || !contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an *OptionError with %q", c.name, err, c.want)
		}
	}
	if s.Count() != 0 {
		t.Fatalf("bad registrations left %d jobs", s.Count())
	}
	if _, err := s.NewOwner(sched.OwnerOptions{}); err == nil {
		t.Fatal("NewOwner accepted a zero lease")
	}
}

func TestKeyedWaitOutsideItsHandler(t *testing.T) {
	r := newTicks()
	var kept *sched.Step
	r.register(t, nil, "a", every(10*ms), func(tk *sched.Step) error { kept = tk; return nil })
	adv(t, r.s, 10*ms)
	var ce *sched.CallError
	if err := kept.Wait(ms, func(*sched.Step) error { return nil }); !errors.As(err, &ce) {
		t.Fatalf("Wait outside the handler: %v", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

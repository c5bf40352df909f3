package keyed_test

// One test per rule of the package doc, on real goroutines: a fake clock inside a synctest bubble, so every step is
// deterministic and nothing sleeps.

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// Re-registering the same key means an already-pending tick from an
// earlier generation does not run its callback.
func TestContractReRegisterDropsPendingTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		paused := make(chan *keyed.Timer)
		resume := make(chan struct{})
		h := newHarness(t, keyed.Options{}, keyed.Hooks{BeforeStart: func(tm *keyed.Timer) {
			if tm.Generation() == 1 {
				paused <- tm
				<-resume
			}
		}})
		r := newRecorder(h.clk)
		register(t, h.s, keyed.Config{Key: "k", Interval: 10 * ms, Callback: r.callback})
		go h.clk.Set(int64(10 * ms))
		<-paused // generation 1's tick is handed to a worker, not started
		t2 := register(t, h.s, keyed.Config{Key: "k", Interval: 10 * ms, Callback: r.callback})
		close(resume)
		h.advance(25 * ms) // to 35ms
		got := r.take()
		for _, f := range got {
			if f.Generation != 2 {
				t.Fatalf("generation %d ran after re-registration: %+v", f.Generation, f)
			}
		}
		// Generation 2 counts from its registration at 10ms: 20 and 30.
		if want := []cadence.Tick{{DeliveryIndex: 1, ScheduledIndex: 1, SkippedTicks: 0}, {DeliveryIndex: 2, ScheduledIndex: 2, SkippedTicks: 0}}; !slices.Equal(ticks(got), want) || t2.Generation() != 2 {
			t.Fatalf("got %v, want %v", ticks(got), want)
		}
	})
}

// After cancel is called, a tick from that generation onward does not
// start its callback, but a callback already running at the moment of
// cancel runs to completion.
func TestContractCancelLetsTheRunningCallbackFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, keyed.Options{}, keyed.Hooks{})
		r := newRecorder(h.clk)
		release := r.hold("k")
		var finished bool
		tm := register(t, h.s, keyed.Config{Key: "k", Interval: 10 * ms, Callback: func(f keyed.Fire) {
			r.callback(f)
			finished = true
		}})
		h.advance(10 * ms)
		if r.busy("k") != 1 {
			t.Fatal("the first callback is not running")
		}
		done := tm.Cancel()
		h.advance(30 * ms) // ticks come due while it runs
		select {
		case <-done.Done():
			t.Fatal("cancel completed while the callback runs")
		default:
		}
		release()
		if err := done.Wait(); err != nil || !finished {
			t.Fatalf("result %v, callback finished %v", err, finished)
		}
		h.advance(100 * ms)
		if got := r.take(); len(got) != 1 {
			t.Fatalf("%d callbacks, want the one that was running: %v", len(got), got)
		}
	})
}

// When cancel is called concurrently more than once for the same
// generation, every result completes after the running callback and the
// timer-owned cleanup finished, and every caller sees the same failure.
func TestContractConcurrentCancelsShareOneResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, keyed.Options{}, keyed.Hooks{})
		r := newRecorder(h.clk)
		release := r.hold("k")
		errCleanup := errors.New("cleanup failed")
		var mu sync.Mutex
		var order []string
		tm := register(t, h.s, keyed.Config{Key: "k", Interval: 10 * ms,
			Callback: func(f keyed.Fire) {
				r.callback(f)
				mu.Lock()
				order = append(order, "callback")
				mu.Unlock()
			},
			OnCancel: func() error {
				mu.Lock()
				order = append(order, "cleanup")
				mu.Unlock()
				return errCleanup
			}})
		h.advance(10 * ms)
		const callers = 8
		var wg sync.WaitGroup
		results := make([]error, callers)
		comps := make([]*keyed.Completion, callers)
		for i := range callers {
			wg.Go(func() {
				comps[i] = tm.Cancel()
				results[i] = comps[i].Wait()
				mu.Lock()
				order = append(order, "result")
				mu.Unlock()
			})
		}
		synctest.Wait()
		release()
		wg.Wait()
		for i := range callers {
			if comps[i] != comps[0] || !errors.Is(results[i], errCleanup) {
				t.Fatalf("caller %d: %p %v, caller 0: %p", i, comps[i], results[i], comps[0])
			}
		}
		if order[0] != "callback" || order[1] != "cleanup" || len(order) != 2+callers {
			t.Fatalf("order %v", order)
		}
	})
}

// Even if the repeating period is shorter than the handler's execution
// time, the same key's callback is never run twice concurrently, across
// generations too.
func TestContractNeverConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, keyed.Options{Workers: 4}, keyed.Hooks{})
		r := newRecorder(h.clk)
		cfg := keyed.Config{Key: "k", Interval: ms, Callback: r.callback}
		register(t, h.s, cfg)
		for round := range 20 {
			release := r.hold("k")
			h.advance(5 * ms) // five periods per handler
			if round%4 == 3 {
				register(t, h.s, cfg) // the new generation waits for the old handler
			}
			h.advance(3 * ms)
			release()
			synctest.Wait()
		}
		h.advance(10 * ms)
		if r.overlap {
			t.Fatal("two callbacks of one key ran at once")
		}
		if n := len(r.take()); n < 20 {
			t.Fatalf("%d callbacks", n)
		}
	})
}

// checkTicks checks section 1's invariants over one generation's fires.
func checkTicks(t *testing.T, fs []fired) {
	t.Helper()
	var prev cadence.Tick
	for _, f := range fs {
		tk := f.Tick
		if tk.DeliveryIndex != prev.DeliveryIndex+1 {
			t.Fatalf("delivery index %d after %d", tk.DeliveryIndex, prev.DeliveryIndex)
		}
		if tk.ScheduledIndex < prev.ScheduledIndex || tk.ScheduledIndex < tk.DeliveryIndex {
			t.Fatalf("scheduled index %d after %d, delivery %d", tk.ScheduledIndex, prev.ScheduledIndex, tk.DeliveryIndex)
		}
		if tk.SkippedTicks != tk.ScheduledIndex-prev.ScheduledIndex-1 {
			t.Fatalf("skipped %d at scheduled %d after %d", tk.SkippedTicks, tk.ScheduledIndex, prev.ScheduledIndex)
		}
		prev = tk
	}
}

// tickRun drives one timer per policy through on-time ticks, handlers
// that overrun and suspensions, and returns each timer's fires.
func tickRun(t *testing.T, check func(*testing.T, []fired)) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, keyed.Options{}, keyed.Hooks{})
		r := newRecorder(h.clk)
		keys := []string{"skip", "catch", "delay"}
		for i, p := range []cadence.Policy{cadence.SkipLateTicks, cadence.CatchUpBounded, cadence.DelayNextTick} {
			register(t, h.s, keyed.Config{Key: keys[i], Interval: 10 * ms, Overrun: cadence.Overrun{Policy: p, MaxCatchUpTicks: 3}, Callback: r.callback})
		}
		for round := range 12 {
			switch round % 3 {
			case 0:
				h.advance(40 * ms)
			case 1:
				var rel []func()
				for _, k := range keys {
					rel = append(rel, r.hold(k))
				}
				h.advance(temporal.Duration(round*7) * ms)
				for _, f := range rel {
					f()
				}
			case 2:
				h.jump(temporal.Duration(round*11) * ms)
			}
		}
		h.advance(30 * ms)
		all := r.take()
		for _, k := range keys {
			var fs []fired
			for _, f := range all {
				if f.Key == k {
					fs = append(fs, f)
				}
			}
			if len(fs) < 10 {
				t.Fatalf("%s: %d fires", k, len(fs))
			}
			check(t, fs)
		}
	})
}

// DeliveryIndex increases by exactly one per callback.
func TestContractDeliveryIndexCountsCallbacks(t *testing.T) {
	tickRun(t, func(t *testing.T, fs []fired) {
		for i, f := range fs {
			if f.DeliveryIndex != int64(i+1) {
				t.Fatalf("callback %d has delivery index %d", i+1, f.DeliveryIndex)
			}
		}
	})
}

// ScheduledIndex never decreases and is always at least DeliveryIndex.
func TestContractScheduledIndexNeverDecreases(t *testing.T) {
	tickRun(t, func(t *testing.T, fs []fired) {
		prev := int64(0)
		for _, f := range fs {
			if f.ScheduledIndex < prev || f.ScheduledIndex < f.DeliveryIndex {
				t.Fatalf("scheduled %d after %d (delivery %d)", f.ScheduledIndex, prev, f.DeliveryIndex)
			}
			prev = f.ScheduledIndex
		}
	})
}

// SkippedTicks equals ScheduledIndex - 1 on the first callback, and
// afterward current ScheduledIndex - previous ScheduledIndex - 1.
func TestContractSkippedTicksCountsTheGap(t *testing.T) {
	tickRun(t, func(t *testing.T, fs []fired) {
		if fs[0].SkippedTicks != fs[0].ScheduledIndex-1 {
			t.Fatalf("first: %+v", fs[0].Tick)
		}
		checkTicks(t, fs)
	})
}

// A timer registered with SkipLateTicks that falls behind receives only
// the single latest tick next, SkippedTicks counting the ones skipped.
func TestContractSkipLateTicksDeliversTheLatest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, keyed.Options{}, keyed.Hooks{})
		r := newRecorder(h.clk)
		register(t, h.s, keyed.Config{Key: "k", Interval: 10 * ms, Callback: r.callback})
		release := r.hold("k")
		h.advance(10 * ms) // the handler starts at 10ms and runs to 37ms
		h.advance(27 * ms)
		release()
		h.advance(3 * ms) // to 40
		got := r.take()
		want := []fired{{keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 1, ScheduledIndex: 1, SkippedTicks: 0}}, 10 * ms}, {keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 2, ScheduledIndex: 3, SkippedTicks: 1}}, 37 * ms}, {keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 3, ScheduledIndex: 4, SkippedTicks: 0}}, 40 * ms}}
		if !sameTimes(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		h.jump(55 * ms) // suspended until 95: one tick, the 9th
		if got := r.take(); !sameTimes(got, []fired{{keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 4, ScheduledIndex: 9, SkippedTicks: 4}}, 95 * ms}}) {
			t.Fatalf("after the jump: %v", got)
		}
	})
}

// A timer registered with CatchUpBounded that falls behind receives up to
// MaxCatchUpTicks ticks in order; older ones are skipped.
func TestContractCatchUpBoundedDeliversAtMostMax(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, keyed.Options{}, keyed.Hooks{})
		r := newRecorder(h.clk)
		register(t, h.s, keyed.Config{Key: "k", Interval: 10 * ms, Overrun: cadence.Overrun{Policy: cadence.CatchUpBounded, MaxCatchUpTicks: 2}, Callback: r.callback})
		h.advance(10 * ms)
		h.jump(45 * ms) // to 55: ticks 2..5 due; 4 and 5 are delivered
		h.advance(5 * ms)
		got := r.take()
		want := []fired{{keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 1, ScheduledIndex: 1, SkippedTicks: 0}}, 10 * ms}, {keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 2, ScheduledIndex: 4, SkippedTicks: 2}}, 55 * ms}, {keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 3, ScheduledIndex: 5, SkippedTicks: 0}}, 55 * ms}, {keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 4, ScheduledIndex: 6, SkippedTicks: 0}}, 60 * ms}}
		if !sameTimes(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}

// A timer registered with DelayNextTick has its next tick recomputed from
// the moment the handler ends.
func TestContractDelayNextTickCountsFromTheHandlersEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, keyed.Options{}, keyed.Hooks{})
		r := newRecorder(h.clk)
		register(t, h.s, keyed.Config{Key: "k", Interval: 10 * ms, Overrun: cadence.Overrun{Policy: cadence.DelayNextTick}, Callback: r.callback})
		release := r.hold("k")
		h.advance(10 * ms) // runs from 10 to 27
		h.advance(17 * ms)
		release()
		h.advance(19 * ms) // to 46: one more at 37, the next due at 47
		got := r.take()
		want := []fired{{keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 1, ScheduledIndex: 1, SkippedTicks: 0}}, 10 * ms}, {keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 2, ScheduledIndex: 3, SkippedTicks: 1}}, 37 * ms}}
		if !sameTimes(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}

// After the owner lease expires, a new tick does not start its callback,
// and while it is not renewed, backed-up ticks do not all run at once even
// if the process was suspended and then resumed.
func TestContractExpiredLeaseStartsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, keyed.Options{}, keyed.Hooks{})
		r := newRecorder(h.clk)
		o, err := h.s.NewOwner(50 * ms)
		if err != nil {
			t.Fatal(err)
		}
		register(t, o, keyed.Config{Key: "k", Interval: 10 * ms, Overrun: cadence.Overrun{Policy: cadence.CatchUpBounded, MaxCatchUpTicks: 100}, Callback: r.callback})
		h.advance(45 * ms)
		if n := len(r.take()); n != 4 {
			t.Fatalf("%d ticks before the deadline, want 4", n)
		}
		h.jump(155 * ms) // suspended across the deadline (50ms) to 200ms
		h.advance(100 * ms)
		if got := r.take(); len(got) != 0 {
			t.Fatalf("ticks after the lease expired: %v", got)
		}
		if err := o.Renew(); err != nil {
			t.Fatal(err)
		}
		h.advance(15 * ms) // renewed at 300: ticks at 300 and 310, not a burst
		got := r.take()
		want := []fired{{keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 5, ScheduledIndex: 30, SkippedTicks: 25}}, 300 * ms}, {keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 6, ScheduledIndex: 31, SkippedTicks: 0}}, 310 * ms}}
		if !sameTimes(got, want) {
			t.Fatalf("after renewal: got %v, want %v", got, want)
		}
	})
}

// sameTimes compares ticks and start times, ignoring key and generation.
func sameTimes(got, want []fired) bool {
	return slices.EqualFunc(got, want, func(a, b fired) bool { return a.Tick == b.Tick && a.at == b.at })
}

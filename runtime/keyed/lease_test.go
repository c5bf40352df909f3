package keyed_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/keyed"
)

// A tick queued before the deadline but reaching its worker after a
// suspension across it does not start: the authority is asked again
// before the callback starts.
func TestLeaseCheckedAgainAtStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var h *harness
		var once sync.Once
		h = newHarness(t, keyed.Options{}, keyed.Hooks{BeforeStart: func(*keyed.Timer) {
			once.Do(func() { h.clk.Advance(100 * ms) }) // suspended between queueing and start
		}})
		r := newRecorder(h.clk)
		o, _ := h.s.NewOwner(50 * ms)
		register(t, o, keyed.Config{Key: "k", Interval: 40 * ms, Callback: r.callback})
		h.advance(40 * ms)
		if got := r.take(); len(got) != 0 {
			t.Fatalf("started past the deadline: %v", got)
		}
		if err := o.Renew(); err != nil { // at 140: tick 4 is due at 160
			t.Fatal(err)
		}
		h.advance(20 * ms)
		if got := r.take(); !sameTimes(got, []fired{{keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 1, ScheduledIndex: 4, SkippedTicks: 3}}, 160 * ms}}) {
			t.Fatalf("after renewal: %v", got)
		}
	})
}

// Transfer gives a new fence: a tick queued under the old one never
// starts, and the next carries the new fence.
func TestLeaseTransferDropsTicksOfTheOldAuthority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		paused := make(chan struct{})
		resume := make(chan struct{})
		var pause atomic.Bool
		pause.Store(true)
		h := newHarness(t, keyed.Options{}, keyed.Hooks{BeforeStart: func(*keyed.Timer) {
			if pause.CompareAndSwap(true, false) {
				paused <- struct{}{}
				<-resume
			}
		}})
		r := newRecorder(h.clk)
		o, _ := h.s.NewOwner(time100s)
		register(t, o, keyed.Config{Key: "k", Interval: 10 * ms, Callback: r.callback})
		go h.clk.Set(int64(10 * ms))
		<-paused
		old := firstFence(t, o)
		if err := o.Transfer(); err != nil {
			t.Fatal(err)
		}
		close(resume)
		h.advance(15 * ms) // to 25
		got := r.take()
		if len(got) != 1 || got[0].Fence == old || got[0].at != 20*ms || got[0].Tick != (cadence.Tick{DeliveryIndex: 1, ScheduledIndex: 2, SkippedTicks: 1}) {
			t.Fatalf("old fence %d, got %v", old, got)
		}
	})
}

const time100s = 100_000 * ms

func firstFence(t *testing.T, o *keyed.Owner) uint64 {
	t.Helper()
	var f uint64
	a := o.Authority()
	l, _ := a.Lease()
	f = l.Fence
	return f
}

// extAuthority stands in for a distributed lease: the test sets its
// answer and calls Refresh, as a keep-alive loop would.
type extAuthority struct {
	mu    sync.Mutex
	l     cadence.Lease
	held  bool
	reads atomic.Int64
}

func (a *extAuthority) Lease() (cadence.Lease, bool) {
	a.reads.Add(1)
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.l, a.held
}

func (a *extAuthority) set(l cadence.Lease, held bool) {
	a.mu.Lock()
	a.l, a.held = l, held
	a.mu.Unlock()
}

// An external authority is asked before each tick is queued and started;
// a standby's timers park, and a takeover under a new fence resumes them
// from the next nominal tick with that fence.
func TestLeaseExternalAuthority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, keyed.Options{}, keyed.Hooks{})
		r := newRecorder(h.clk)
		a := &extAuthority{l: cadence.Lease{Fence: 7, Deadline: int64(35 * ms)}, held: true}
		o, err := h.s.NewOwnerAuthority(a)
		if err != nil {
			t.Fatal(err)
		}
		register(t, o, keyed.Config{Key: "k", Interval: 10 * ms, Callback: r.callback})
		h.advance(100 * ms)
		got := r.take()
		if len(got) != 3 || got[2].Fence != 7 || a.reads.Load() < 6 {
			t.Fatalf("got %v, %d reads", got, a.reads.Load())
		}
		a.set(cadence.Lease{Fence: 9, Deadline: int64(200 * ms)}, true)
		o.Refresh()
		h.advance(25 * ms) // taken over at 100: the tick due then was the old authority's
		got = r.take()
		if len(got) != 2 || got[0].Fence != 9 || got[0].Tick != (cadence.Tick{DeliveryIndex: 4, ScheduledIndex: 11, SkippedTicks: 7}) || got[0].at != 110*ms {
			t.Fatalf("after takeover: %v", got)
		}
		if err := o.Renew(); !errors.Is(err, keyed.ErrNotLocal) {
			t.Fatalf("Renew on an external authority: %v", err)
		}
		a.set(cadence.Lease{Fence: 9, Deadline: int64(200 * ms)}, false) // a standby now
		h.advance(50 * ms)
		if got := r.take(); len(got) != 0 {
			t.Fatalf("ticks while standby: %v", got)
		}
	})
}

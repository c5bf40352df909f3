package keyed_test

import (
	"sync"
	"testing"
	"testing/synctest"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/keyed"
)

// switchGate grants key "k" execution while open, other keys always, and
// counts what it did.
type switchGate struct {
	mu       sync.Mutex
	open     bool
	held     int
	refused  int
	released int
}

func (g *switchGate) Acquire(t *keyed.Timer) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.open && t.Key() == "k" {
		g.refused++
		return false
	}
	g.held++
	return true
}

func (g *switchGate) Release(*keyed.Timer) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held--
	g.released++
}

func (g *switchGate) counts() (held, refused, released int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held, g.refused, g.released
}

func (g *switchGate) set(open bool) {
	g.mu.Lock()
	g.open = open
	g.mu.Unlock()
}

// A tick that cannot get the execution gate is retained and runs at the
// next opportunity (Retry, or any later wake-up), never lost.
func TestGateRefusedTickIsRetained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &switchGate{}
		h := newHarness(t, keyed.Options{Gate: g}, keyed.Hooks{})
		r := newRecorder(h.clk)
		register(t, h.s, keyed.Config{Key: "k", Interval: 100 * ms, Callback: r.callback})
		h.advance(100 * ms)
		if got := r.take(); len(got) != 0 {
			t.Fatalf("ran through a closed gate: %v", got)
		}
		h.advance(50 * ms)
		g.set(true)
		h.s.Retry()
		synctest.Wait()
		got := r.take()
		if !sameTimes(got, []fired{{keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 1, ScheduledIndex: 1, SkippedTicks: 0}}, 150 * ms}}) {
			t.Fatalf("after the gate opened: %v", got)
		}
		// Retried at a wake-up that is not a Retry: another timer's tick.
		g.set(false)
		register(t, h.s, keyed.Config{Key: "other", Interval: 30 * ms, Callback: func(f keyed.Fire) {
			if f.DeliveryIndex == 2 {
				g.set(true)
			}
		}})
		h.advance(70 * ms) // k refused at 200; "other"'s second tick opens the gate at 210
		held, refused, released := g.counts()
		if got := r.take(); !sameTimes(got, []fired{{keyed.Fire{Tick: cadence.Tick{DeliveryIndex: 2, ScheduledIndex: 2, SkippedTicks: 0}}, 210 * ms}}) || held != 0 || refused < 2 || released < 3 {
			t.Fatalf("retained tick: %v, gate %d %d %d", got, held, refused, released)
		}
	})
}

// The records that expire at one wake-up go to the pool as one batch.
func TestBatchOnePerWakeUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var batches []int
		h := newHarness(t, keyed.Options{}, keyed.Hooks{OnBatch: func(n int) {
			mu.Lock()
			batches = append(batches, n)
			mu.Unlock()
		}})
		for i := range 100 {
			register(t, h.s, keyed.Config{Key: string(rune('a'+i%26)) + string(rune('0'+i/26)), Interval: 10 * ms, Callback: func(keyed.Fire) {}})
		}
		h.jump(10 * ms)
		h.jump(10 * ms)
		mu.Lock()
		defer mu.Unlock()
		if len(batches) != 2 || batches[0] != 100 || batches[1] != 100 {
			t.Fatalf("batches %v, want two of 100", batches)
		}
	})
}

package loop_test

import (
	"errors"
	"testing"

	"github.com/metronome-rt/metronome/temporal"

	"github.com/metronome-rt/metronome/runtime/loop"
)

// The test-clock verbs, one test each, and the loop limit under them.

func (h *host) timer(t *testing.T, name string, d temporal.Duration, repeat bool) int {
	t.Helper()
	s := h.s()
	id, err := s.SetTimer(func(int) { h.log.Add("%s@%v", name, s.Now()) }, d, repeat)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestVerbAdvance(t *testing.T) {
	h := newHost(loop.NewVirtualClock(100 * ms))
	h.timer(t, "a", 10*ms, false)
	h.timer(t, "b", 30*ms, false)
	if err := loop.Advance(h, 20*ms); err != nil {
		t.Fatal(err)
	}
	if h.s().Now() != 120*ms {
		t.Fatalf("now %v, want 120ms", h.s().Now())
	}
	if err := loop.Advance(h, 0); err != nil {
		t.Fatal(err)
	}
	wantLog(t, h.log, "a@110ms")
}

func TestVerbNext(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	h.timer(t, "a", 10*ms, false)
	h.timer(t, "b", 10*ms, false)
	s.RequestFrame(func(at temporal.Duration) { h.log.Add("frame@%v", at) })
	s.QueueTask(h.add("task"))
	for range 5 {
		if _, err := loop.Next(h); err != nil {
			t.Fatal(err)
		}
	}
	if ran, err := loop.Next(h); ran || err != nil {
		t.Fatalf("next with nothing pending: %v, %v", ran, err)
	}
	wantLog(t, h.log, "task a@10ms b@10ms frame@16ms")
	if _, err := loop.Next(newHost(loop.NewRealClock())); !errors.Is(err, loop.ErrRealClock) {
		t.Fatalf("next on a real clock: %v", err)
	}
}

// An interval due three times on the way fires once, late, and repeats
// from the new now; the timers due on the way keep their order.
func TestVerbJump(t *testing.T) {
	h := newHost(nil)
	h.timer(t, "iv", 10*ms, true)
	h.timer(t, "a", 5*ms, false)
	h.timer(t, "later", 50*ms, false)
	if err := loop.Jump(h, 35*ms); err != nil {
		t.Fatal(err)
	}
	wantLog(t, h.log, "iv@35ms a@35ms")
	h.log.Take()
	h.run(t, 50*ms)
	wantLog(t, h.log, "iv@45ms later@50ms")
}

func TestVerbRunToFrame(t *testing.T) {
	h := newHost(loop.NewVirtualClock(20 * ms))
	s := h.s()
	h.timer(t, "a", 5*ms, false)
	h.timer(t, "b", 20*ms, false)
	s.RequestFrame(func(at temporal.Duration) { h.log.Add("frame@%v", at) })
	if err := loop.RunToFrame(h); err != nil {
		t.Fatal(err)
	}
	if s.Now() != 32*ms {
		t.Fatalf("now %v, want 32ms", s.Now())
	}
	wantLog(t, h.log, "a@25ms frame@32ms")
}

func TestVerbRunToLast(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	h.timer(t, "a", 10*ms, false)
	s.SetTimer(func(int) { h.timer(t, "beyond", ms, false) }, 20*ms, false)
	if err := loop.RunToLast(h); err != nil {
		t.Fatal(err)
	}
	if s.Now() != 20*ms || s.Pending() != 1 {
		t.Fatalf("now %v, pending %d", s.Now(), s.Pending())
	}
	wantLog(t, h.log, "a@10ms")
}

func TestVerbCount(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	h.timer(t, "a", 10*ms, false)
	h.timer(t, "iv", 10*ms, true)
	s.QueueTask(h.add("task"))
	s.RequestFrame(func(temporal.Duration) {})
	if n := s.Pending(); n != 4 {
		t.Fatalf("pending %d, want 4", n)
	}
}

func TestVerbReset(t *testing.T) {
	h := newHost(loop.NewVirtualClock(200 * ms))
	s := h.s()
	old := h.timer(t, "a", 10*ms, false)
	s.QueueTask(h.add("task"))
	s.RequestFrame(func(temporal.Duration) { h.log.Add("frame") })
	h.run(t, 205*ms)
	h.log.Take()
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if s.Now() != 200*ms || s.Pending() != 0 {
		t.Fatalf("after reset: now %v, pending %d", s.Now(), s.Pending())
	}
	id := h.timer(t, "b", ms, false)
	s.ClearTimer(old) // an id from before the reset clears nothing new
	h.run(t, loop.Never)
	wantLog(t, h.log, "b@201ms")
	if id == old {
		t.Fatalf("reset reused id %d", id)
	}
	s.QueueTask(func() {
		if err := s.Reset(); !errors.Is(err, loop.ErrReentrant) {
			t.Errorf("reset inside a run: %v", err)
		}
	})
	h.run(t, loop.Never)
}

// Per run: an interval stops run-all at the limit, the next fire still
// queued.
func TestLoopLimitPerRun(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	h.timer(t, "iv", 5*ms, true)
	s.SetLoopLimit(3, true)
	if err := loop.Run(h, loop.Never); !errors.Is(err, loop.ErrLoopLimit) {
		t.Fatalf("run = %v", err)
	}
	wantLog(t, h.log, "iv@5ms iv@10ms iv@15ms")
	if s.Pending() != 1 || !s.LimitReached() {
		t.Fatalf("pending %d, reached %v", s.Pending(), s.LimitReached())
	}
	s.SetLoopLimit(0, false)
	h.log.Take()
	h.run(t, 20*ms)
	wantLog(t, h.log, "iv@20ms")
}

// Per instant: a timer whose callback sets a 0 ms timer never lets time
// move; the limit stops it while time-moving work is untouched.
func TestLoopLimitPerInstant(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	n := 0
	var chain func(int)
	chain = func(int) {
		n++
		s.BeginCheckpoint() // as from a microtask: never clamped
		s.SetTimer(chain, 0, false)
		s.EndCheckpoint()
	}
	h.timer(t, "iv", ms, true)
	s.SetTimer(chain, 3*ms, false)
	s.SetLoopLimit(100, false)
	err := loop.Advance(h, 10*ms)
	if !errors.Is(err, loop.ErrLoopLimit) || n != 99 || s.Now() != 3*ms {
		t.Fatalf("advance = %v after %d links at %v", err, n, s.Now())
	}
	wantLog(t, h.log, "iv@1ms iv@2ms iv@3ms")
}

// What the host counts with Admit (a binding's microtasks) shares the
// limit; the frame callbacks it stopped stay due at their frame.
func TestLoopLimitAdmitAndFrames(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	for i := range 3 {
		s.RequestFrame(func(at temporal.Duration) {
			h.log.Add("f%d@%v", i, at)
			if !s.Admit() { // one microtask after each
				h.log.Add("refused")
			}
		})
	}
	s.SetLoopLimit(3, true)
	if err := loop.Run(h, loop.Never); !errors.Is(err, loop.ErrLoopLimit) {
		t.Fatalf("run = %v", err)
	}
	wantLog(t, h.log, "f0@16ms f1@16ms refused")
	if at, ok := s.FrameDue(); !ok || at != 16*ms || s.Pending() != 1 {
		t.Fatalf("frame due %v %v, pending %d", at, ok, s.Pending())
	}
	s.SetLoopLimit(0, false)
	h.log.Take()
	h.run(t, loop.Never)
	wantLog(t, h.log, "f2@16ms")
}

package keyed_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// Each bad input is a *temporal.OptionError naming the method and the
// option, and
// registers nothing.
func TestBadInputsRegisterNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, keyed.Options{}, keyed.Hooks{})
		r := newRecorder(h.clk)
		ok := keyed.Config{Key: "k", Interval: 10 * ms, Callback: r.callback}
		for _, tc := range []struct {
			name  string
			edit  func(*keyed.Config)
			param string
		}{
			{"empty key", func(c *keyed.Config) { c.Key = "" }, "Key"},
			{"zero interval", func(c *keyed.Config) { c.Interval = 0 }, "Interval"},
			{"negative interval", func(c *keyed.Config) { c.Interval = -ms }, "Interval"},
			{"negative delay", func(c *keyed.Config) { c.Delay = -1 }, "Delay"},
			{"nil callback", func(c *keyed.Config) { c.Callback = nil }, "Callback"},
			{"unknown policy", func(c *keyed.Config) { c.Overrun.Policy = 3 }, "Overrun"},
			{"negative max", func(c *keyed.Config) {
				c.Overrun = cadence.Overrun{Policy: cadence.CatchUpBounded, MaxCatchUpTicks: -1}
			}, "Overrun"},
			{"max over MaxInt32", func(c *keyed.Config) {
				c.Overrun = cadence.Overrun{Policy: cadence.CatchUpBounded, MaxCatchUpTicks: cadence.MaxCatchUpTicksLimit + 1}
			}, "Overrun"},
		} {
			c := ok
			c.Key = "k-" + tc.name
			tc.edit(&c)
			tm, err := h.s.Register(c)
			var oe *temporal.OptionError
			if tm != nil || !errors.As(err, &oe) || oe.Method != "Register" || oe.Param != tc.param || !strings.Contains(err.Error(), "want") {
				t.Errorf("%s: %v, %v", tc.name, tm, err)
			}
		}
		// Ignored outside CatchUpBounded.
		c := ok
		c.Overrun = cadence.Overrun{Policy: cadence.DelayNextTick, MaxCatchUpTicks: -5}
		if _, err := h.s.Register(c); err != nil {
			t.Errorf("MaxCatchUpTicks outside CatchUpBounded: %v", err)
		}
		for _, d := range []temporal.Duration{0, -ms} {
			o, err := h.s.NewOwner(d)
			var oe *temporal.OptionError
			if o != nil || !errors.As(err, &oe) || oe.Method != "NewOwner" || oe.Param != "lease" {
				t.Errorf("lease %d: %v", d, err)
			}
		}
		if _, err := h.s.NewOwnerAuthority(nil); err == nil {
			t.Error("nil authority accepted")
		}
		for _, o := range []keyed.Options{{Workers: -1}, {Workers: keyed.MaxWorkers + 1}, {Capacity: -1}, {Capacity: 1 << 30}} {
			var oe *temporal.OptionError
			if s, err := keyed.New(o); s != nil || !errors.As(err, &oe) || oe.Method != "New" {
				t.Errorf("New(%+v): %v", o, err)
			}
		}
		h.advance(100 * ms)
		fs := r.take()
		for _, f := range fs {
			if f.Key != "k" { // the DelayNextTick registration
				t.Fatalf("a refused registration ticked: %+v", f)
			}
		}
		if len(fs) != 10 {
			t.Fatalf("%d ticks of the valid registration", len(fs))
		}
	})
}

// Close cancels every generation, returns the cleanups' errors and
// refuses registrations afterwards.
func TestCloseReturnsCleanupErrors(t *testing.T) {
	s, err := keyed.New(keyed.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	tm, _ := s.Register(keyed.Config{Key: "a", Interval: 1 << 40, Callback: func(keyed.Fire) {}, OnCancel: func() error { return boom }})
	if err := s.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close: %v", err)
	}
	if err := tm.Cancel().Err(); !errors.Is(err, boom) {
		t.Fatalf("Cancel after Close: %v", err)
	}
	if _, err := s.Register(keyed.Config{Key: "b", Interval: 1, Callback: func(keyed.Fire) {}}); !errors.Is(err, keyed.ErrClosed) {
		t.Fatalf("Register after Close: %v", err)
	}
	if err := s.Close(); !errors.Is(err, boom) {
		t.Fatalf("second Close: %v", err)
	}
}

// Close waits for the generations cancelled before it too: one whose
// callback still runs gets its OnCancel and its completion before Close
// returns, not never.
func TestCloseFinishesEarlierCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, keyed.Options{Workers: 1}, keyed.Hooks{})
		r := newRecorder(h.clk)
		release := r.hold("k")
		var cleanups atomic.Int32
		tm := register(t, h.s, keyed.Config{Key: "k", Interval: 10 * ms, Callback: r.callback,
			OnCancel: func() error { cleanups.Add(1); return nil }})
		h.advance(10 * ms)
		if r.busy("k") != 1 {
			t.Fatal("the callback is not running")
		}
		c := tm.Cancel()
		closed := make(chan struct{})
		go func() {
			defer close(closed)
			h.s.Close()
		}()
		synctest.Wait()
		release()
		<-closed
		if !isDone(c) || cleanups.Load() != 1 {
			t.Fatalf("after Close: completion done %v, OnCancel ran %d times, want true and 1", isDone(c), cleanups.Load())
		}
	})
}

package keyed_test

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// A clock without alarms of its own is slept on with the time package's
// timers, measured on the clock: in a synctest bubble the ticks come at
// their exact instants.
func TestClockWithoutAlarms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := struct{ temporal.Clock }{keyed.SystemClock()} // Now only
		s, err := keyed.New(keyed.Options{Clock: clock, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		start := time.Now()
		var mu sync.Mutex
		var at []time.Duration
		if _, err := s.Register(keyed.Config{Key: "k", Interval: 10 * ms, Callback: func(keyed.Fire) {
			mu.Lock()
			at = append(at, time.Since(start))
			mu.Unlock()
		}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(35 * time.Millisecond)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond}; !slices.Equal(at, want) {
			t.Fatalf("ticks at %v, want %v", at, want)
		}
	})
}

// SystemClock reads the wall time and never goes back.
func TestSystemClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := keyed.SystemClock()
		a := c.Now()
		if a.UnixNano() != time.Now().UnixNano() {
			t.Fatalf("Now %v, wall %v", a, time.Now())
		}
		time.Sleep(time.Second)
		if d, _ := c.Now().Sub(a); d != temporal.Second {
			t.Fatalf("a second later: %v", d)
		}
	})
}

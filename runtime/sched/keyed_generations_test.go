package sched_test

import (
	"strconv"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// A key's handler holds it across every later generation: registered twice
// while the first generation's handler waits, the third generation's first
// tick waits for that handler to end, though the second one, which it
// replaced, never ran.
func TestKeyedNeverConcurrentAcrossSeveralGenerations(t *testing.T) {
	const ms = temporal.Millisecond
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	var log []string
	running := false
	handler := func(name string, wait temporal.Duration) func(*sched.Step) error {
		return func(tk *sched.Step) error {
			if running {
				t.Errorf("%s ran at %v while another generation's handler ran", name, s.Now())
			}
			log = append(log, name+"@"+strconv.FormatInt(int64(s.Elapsed()/ms), 10))
			if wait == 0 {
				return nil
			}
			running = true
			return tk.Wait(wait, func(*sched.Step) error { running = false; return nil })
		}
	}
	if _, err := s.RegisterTimer("k", sched.TimerOptions{Interval: 10 * ms}, handler("g1", 25*ms)); err != nil {
		t.Fatal(err)
	}
	if err := s.Advance(12 * ms); err != nil { // g1 runs 10..35
		t.Fatal(err)
	}
	for _, g := range []string{"g2", "g3"} {
		if _, err := s.RegisterTimer("k", sched.TimerOptions{Interval: 10 * ms, Delay: new(temporal.Duration)}, handler(g, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Advance(30 * ms); err != nil {
		t.Fatal(err)
	}
	if got, want := len(log), 3; got < want || log[0] != "g1@10" || log[1] != "g3@35" {
		t.Fatalf("ticks %v; want g1@10ms, then g3 first at 35ms", log)
	}
}

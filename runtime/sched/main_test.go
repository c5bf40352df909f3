package sched_test

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// TestMain runs the suite twice: on the heap, then with every scheduler
// New makes on the timer wheel, which must behave the same in every test.
// Benchmarks run once, on the heap (they name their queue where it
// matters). The package promises no goroutines: it fails if a test leaves
// one behind.
func TestMain(m *testing.M) {
	code := m.Run()
	if b := flag.Lookup("test.bench"); code == 0 && (b == nil || b.Value.String() == "") {
		fmt.Fprintln(os.Stderr, "sched: the suite again, every scheduler on the timer wheel")
		restore := sched.SetNewOnWheel(true)
		code = m.Run()
		restore()
		if code != 0 {
			fmt.Fprintln(os.Stderr, "sched: FAIL on the timer wheel (the heap passed)")
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// next runs what is due at s's earliest deadline, as a host's RunNext
// does; it reports false when nothing is pending.
func next(s *sched.Scheduler) (bool, error) {
	at, ok := s.NextDeadline()
	if !ok {
		return false, nil
	}
	d, err := at.Sub(s.Now())
	if err != nil {
		return false, err
	}
	return true, s.Advance(max(d, 0))
}

// due is h.Due without the time left.
func due(h sched.Handle) (temporal.Instant, bool) {
	at, _, ok := h.Due()
	return at, ok
}

// remaining is h.Due's time left.
func remaining(h sched.Handle) (temporal.Duration, bool) {
	_, d, ok := h.Due()
	return d, ok
}

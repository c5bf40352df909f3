package debounce

import (
	"strconv"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

func benchDebouncer(b *testing.B, c Config) (*sched.Scheduler, *Debouncer[int, int]) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	d, err := New(onScheduler(s), c, func(int, int) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
	return s, d
}

// A touch that moves a pending key's wake-up: the old job is cancelled
// and a new one scheduled (BusyTimeout pushes every touch).
func BenchmarkTouchPush(b *testing.B) {
	for _, keys := range []int{1, 1000} {
		b.Run("keys="+strconv.Itoa(keys), func(b *testing.B) {
			s, d := benchDebouncer(b, Config{Timeout: temporal.Second, Trailing: true})
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := d.Debounce(i%keys, i); err != nil {
					b.Fatal(err)
				}
				i++
				if i%keys == 0 {
					_ = s.Advance(1) // every touch moves the wake-up
				}
			}
		})
	}
}

// A touch that leaves the wake-up where it is (pinned at the ceiling): it
// only records the arguments.
func BenchmarkTouchAtCeiling(b *testing.B) {
	_, d := benchDebouncer(b, Config{Timeout: temporal.Millisecond, BusyTimeout: temporal.Hour, ForceMin: temporal.Second, ForceMax: temporal.Second, Trailing: true})
	_ = d.Debounce(0, 0)
	_ = d.Debounce(0, 0)
	b.ReportAllocs()
	for b.Loop() {
		_ = d.Debounce(0, 1)
	}
}

// A burst's whole life: first touch, a push, the firing.
func BenchmarkBurst(b *testing.B) {
	s, d := benchDebouncer(b, Config{Timeout: temporal.Millisecond, Trailing: true})
	b.ReportAllocs()
	for b.Loop() {
		_ = d.Debounce(0, 0)
		_ = d.Debounce(0, 1)
		_ = s.Advance(temporal.Duration(temporal.Millisecond))
	}
}

// Real time, touches from every P at once on keys spread over 1,024.
func BenchmarkTouchRealParallel(b *testing.B) {
	d, err := New(RealTime(nil), Config{Timeout: temporal.Hour, Trailing: true}, func(int, int) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			_ = d.Debounce(i&1023, i)
			i++
		}
	})
	for k := range 1024 {
		d.Cancel(k)
	}
}

// The allocation budget of a touch: none when the wake-up stays, two (the
// timer's callback and its handle) when it moves.
func TestTouchAllocations(t *testing.T) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	d, _ := New(onScheduler(s), Config{Timeout: temporal.Second, ForceMin: temporal.Hour, ForceMax: temporal.Hour, Trailing: true}, func(int, int) error { return nil })
	_ = d.Debounce(1, 0)
	if n := testing.AllocsPerRun(100, func() { _ = d.Debounce(1, 0) }); n != 0 {
		t.Errorf("a touch at the same instant: %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = s.Advance(1); _ = d.Debounce(1, 0) }); n > 2 {
		t.Errorf("a push: %v allocations, want at most 2", n)
	}
}

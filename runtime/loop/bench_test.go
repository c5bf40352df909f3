package loop_test

import (
	"testing"

	"github.com/metronome-rt/metronome/temporal"

	"github.com/metronome-rt/metronome/runtime/loop"
)

// BenchmarkRunTasks is queued tasks through Run: ns per task.
func BenchmarkRunTasks(b *testing.B) {
	h := loop.NewSimpleHost(nil)
	s := h.Scheduler()
	n := 0
	f := func() { n++ }
	b.ReportAllocs()
	for b.Loop() {
		for range 1000 {
			s.QueueTask(f)
		}
		if err := loop.Run(h, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/task")
}

// BenchmarkNestedTimers is a chain of 0 ms timers, each set by the one
// before: past level 5 every one goes through the clamp.
func BenchmarkNestedTimers(b *testing.B) {
	h := loop.NewSimpleHost(nil)
	s := h.Scheduler()
	fired := 0
	left := 0
	var next func(int)
	next = func(int) {
		fired++
		if left--; left > 0 {
			s.SetTimer(next, 0, false)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		left = 1000
		s.SetTimer(next, 0, false)
		if err := loop.Run(h, loop.Never); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(fired), "ns/timer")
}

// BenchmarkChecks is NeedsFrame and NextTimer with the six sources.
func BenchmarkChecks(b *testing.B) {
	h, srcs := sixSources()
	srcs[5].SetDeadline(temporal.Second, func() {})
	h.Scheduler().SetTimer(func(int) {}, 10*ms, false)
	b.Run("NeedsFrame", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			loop.NeedsFrame(h)
		}
	})
	b.Run("NextTimer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			loop.NextTimer(h)
		}
	})
}

package sched_test

import (
	"encoding/json"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/runtime/sched/snapshot"
	"github.com/metronome-rt/metronome/temporal"
)

const saveJobs = 100_000

// saveWorkload schedules saveJobs labelled one-shots spread over 1,000 s,
// some sharing a deadline.
func saveWorkload(b *testing.B, s *sched.Scheduler, fn func() error) {
	name := sched.WithName("bomb")
	for i := range saveJobs {
		if _, err := s.ScheduleOnce(temporal.Duration(i*7919%1_000_000)*ms, fn, name); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSaveRestore compares, for saveJobs pending jobs, scheduling
// them with Snapshot, the JSON text both ways and Restore; it reports the
// text's bytes per job.
func BenchmarkSaveRestore(b *testing.B) {
	fn := func() error { return nil }
	handlers := map[string]any{"bomb": fn}
	b.Run("schedule", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			saveWorkload(b, sched.New(temporal.Fixed(epoch)), fn)
		}
	})
	s := sched.New(temporal.Fixed(epoch))
	saveWorkload(b, s, fn)
	snap, err := s.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	text, err := json.Marshal(snap)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("snapshot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Snapshot(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("restore", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sched.New(temporal.Fixed(epoch)).Restore(snap, sched.RestoreOptions{Handlers: handlers}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(snap); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(text))/saveJobs, "bytes/job")
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := snapshot.Decode(text); err != nil {
				b.Fatal(err)
			}
		}
	})
}

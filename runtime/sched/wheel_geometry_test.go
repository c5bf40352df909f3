package sched_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/runtime/wheel"
	"github.com/metronome-rt/metronome/temporal"
)

// On the wheel deadlines stay exact to the nanosecond, and a timer two
// days out, past the wheel's 24-hour horizon, waits on its overflow level.
func TestWheelKeepsExactAndFarDeadlines(t *testing.T) {
	start, _ := temporal.ParseInstant("2024-03-08T12:00:00Z")
	s, err := sched.NewOnWheel(temporal.Fixed(start), wheel.Default())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	s.ScheduleOnce(1500*temporal.Microsecond+1, func() error {
		got = append(got, fmt.Sprint("once at ", s.Elapsed()))
		return nil
	})
	s.ScheduleOnce(48*temporal.Hour, func() error {
		got = append(got, fmt.Sprint("far at ", s.Elapsed()))
		return nil
	})
	if err := s.RunAll(10); err != nil {
		t.Fatal(err)
	}
	if want := []string{"once at PT0.001500001S", "far at PT48H"}; !slices.Equal(got, want) {
		t.Fatalf("fired %q, want %q", got, want)
	}
	_, err = sched.NewOnWheel(temporal.Fixed(start), wheel.Geometry{Tick: 0, Slots: []int{64}})
	if err == nil || err.Error() != "NewOnWheel: g.Tick: want a duration > 0, got PT0S" {
		t.Fatalf("a zero tick: %v", err)
	}
}

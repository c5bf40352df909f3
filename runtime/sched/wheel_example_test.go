package sched_test

import (
	"fmt"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

func ExampleNewOnWheel() {
	start, _ := temporal.ParseInstant("2024-03-08T12:00:00Z")
	s, err := sched.NewOnWheel(temporal.Fixed(start), sched.DefaultWheelGeometry())
	if err != nil {
		panic(err)
	}
	// Deadlines stay exact to the nanosecond, and a timer two days out,
	// past the wheel's 24-hour horizon, waits on its overflow level.
	s.ScheduleOnce(1500*temporal.Microsecond+1, func() error {
		fmt.Println("once at", s.Elapsed())
		return nil
	})
	s.ScheduleOnce(48*temporal.Hour, func() error {
		fmt.Println("far at", s.Elapsed())
		return nil
	})
	s.RunAll(10)

	_, err = sched.NewOnWheel(temporal.Fixed(start), sched.WheelGeometry{Tick: 0, Slots: []int{64}})
	fmt.Println(err)
	// Output:
	// once at PT0.001500001S
	// far at PT48H
	// NewOnWheel: g.Tick: want a duration > 0, got PT0S
}

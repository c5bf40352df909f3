package sched_test

import (
	"fmt"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

func newExampleScheduler() *sched.Scheduler {
	start, _ := temporal.ParseInstant("2024-03-08T12:00:00Z")
	return sched.New(temporal.Fixed(start))
}

func ExampleScheduler_ScheduleEvery() {
	s := newExampleScheduler()
	s.ScheduleEvery(sched.Every{Interval: 10 * temporal.Millisecond}, func() error {
		fmt.Println("tick at", s.Elapsed().DecimalSeconds())
		return nil
	})
	// One call passes three periods: the interval fires once for each.
	s.Advance(35 * temporal.Millisecond)
	fmt.Println("now", s.Elapsed().DecimalSeconds())
	// Output:
	// tick at 0.01s
	// tick at 0.02s
	// tick at 0.03s
	// now 0.035s
}

func ExampleScheduler_Jump() {
	s := newExampleScheduler()
	s.ScheduleEvery(sched.Every{Interval: 10 * temporal.Millisecond}, func() error {
		fmt.Println("tick at", s.Elapsed().DecimalSeconds())
		return nil
	})
	// The host was suspended: each due job runs once, and the interval
	// stays on its grid.
	s.Jump(35 * temporal.Millisecond)
	s.Advance(5 * temporal.Millisecond)
	// Output:
	// tick at 0.035s
	// tick at 0.04s
}

func ExampleScheduler_Advance_error() {
	s := newExampleScheduler()
	s.ScheduleOnce(5*temporal.Millisecond, func() error { return fmt.Errorf("out of ammo") })
	s.ScheduleOnce(5*temporal.Millisecond, func() error { fmt.Println("sibling runs on the next call"); return nil })
	err := s.Advance(temporal.Second)
	fmt.Println(err)
	fmt.Println("stopped at", s.Elapsed().DecimalSeconds())
	s.Advance(0)
	// Output:
	// once #1: out of ammo
	// stopped at 0.005s
	// sibling runs on the next call
}

func ExampleScheduler_ScheduleRecurrence() {
	s := newExampleScheduler() // 2024-03-08T12:00:00Z
	dtstart, _ := temporal.ParseLocalDateTime("2024-03-08T02:30:00")
	set, _ := temporal.NewRecurrenceSet(temporal.RecurrenceSpec{DTStart: dtstart, RRules: []string{"FREQ=DAILY"}})
	s.ScheduleRecurrence(sched.Recurrence{
		Set: set, Zone: "America/New_York", Disambiguation: temporal.Compatible, Limit: 3,
	}, func(at temporal.Instant, index int) error {
		local, _ := at.ZonedString("America/New_York")
		fmt.Println(index, local)
		return nil
	})
	s.Advance(7 * 24 * temporal.Hour)
	// Output:
	// 1 2024-03-09T02:30:00-05:00[America/New_York]
	// 2 2024-03-10T03:30:00-04:00[America/New_York]
	// 3 2024-03-11T02:30:00-04:00[America/New_York]
}

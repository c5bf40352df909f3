package sched_test

import (
	"fmt"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

func ExampleScheduler_RegisterTimer() {
	s := newExampleScheduler()
	ms := temporal.Millisecond
	// A handler that takes 25ms of virtual time on its first tick: the
	// ticks due meanwhile are late, and skip-late-ticks delivers only the
	// latest when it ends.
	s.RegisterTimer("regen", sched.TimerOptions{Interval: 10 * ms}, func(t *sched.Step) error {
		fmt.Printf("at %s: delivery %d, scheduled %d, skipped %d\n",
			s.Elapsed().DecimalSeconds(), t.DeliveryIndex, t.ScheduledIndex, t.SkippedTicks)
		if t.DeliveryIndex > 1 {
			return nil
		}
		return t.Wait(25*ms, func(*sched.Step) error { return nil })
	})
	s.Advance(50 * ms)
	// Output:
	// at 0.01s: delivery 1, scheduled 1, skipped 0
	// at 0.035s: delivery 2, scheduled 3, skipped 1
	// at 0.04s: delivery 3, scheduled 4, skipped 0
	// at 0.05s: delivery 4, scheduled 5, skipped 0
}

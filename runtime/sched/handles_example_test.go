package sched_test

import (
	"fmt"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

func ExampleHandle_Reset() {
	s := newExampleScheduler()
	const ms = temporal.Millisecond
	// A cooldown: the fireball is ready 400ms after each cast.
	ready, _ := s.ScheduleOnce(400*ms, func() error {
		fmt.Println("ready at", s.Elapsed().DecimalSeconds())
		return nil
	})
	s.Advance(400 * ms)
	ready.Reset(400 * ms) // cast again: the one-shot fired, and re-arms
	_, left, _ := ready.Due()
	fmt.Println("ready in", left.DecimalSeconds())
	s.Advance(400 * ms)
	// Output:
	// ready at 0.4s
	// ready in 0.4s
	// ready at 0.8s
}

func ExampleScheduler_ScheduleEvery_count() {
	s := newExampleScheduler()
	const ms = temporal.Millisecond
	first := 3 * ms
	s.ScheduleEvery(sched.Every{Interval: 10 * ms, Delay: &first, Count: 3}, func() error {
		fmt.Println("tick at", s.Elapsed().DecimalSeconds())
		return nil
	})
	s.Advance(100 * ms)
	fmt.Println("pending", s.Count())
	// Output:
	// tick at 0.003s
	// tick at 0.013s
	// tick at 0.023s
	// pending 0
}

func ExampleScheduler_Spawn() {
	s := newExampleScheduler()
	const ms = temporal.Millisecond
	// Each step names the next; Wait ends a step and says when the next runs.
	s.Spawn(func(t *sched.Step) error {
		fmt.Println("door opens at", s.Elapsed().DecimalSeconds())
		return t.Wait(2000*ms, func(t *sched.Step) error {
			fmt.Println("door closes at", s.Elapsed().DecimalSeconds(), "after", t.Waited.DecimalSeconds())
			return nil
		})
	})
	fmt.Println("pending", s.Count())
	s.Advance(3000 * ms)
	// Output:
	// door opens at 0s
	// pending 1
	// door closes at 2s after 2s
}

package compat_test

import (
	"fmt"

	"github.com/metronome-rt/metronome/compat"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// A debouncer fires once, delay-ms after the latest call, with that call's
// arguments.
func ExampleTimers_Debouncer() {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	timers := compat.New(s)
	d, _ := timers.Debouncer(100, func(args []any) error {
		fmt.Println("search for", args[0], "at", s.Elapsed().DecimalSeconds())
		return nil
	})
	d.Call("m")
	s.Advance(50 * temporal.Millisecond)
	d.Call("me") // pushes the deadline to 150 ms
	s.Advance(50 * temporal.Millisecond)
	d.Call("met")
	s.Advance(temporal.Second)
	// Output:
	// search for met at 0.2s
}

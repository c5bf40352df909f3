package hostservices_test

import (
	"fmt"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// Paused updates move nothing and bank nothing; a step moves both jobs and
// facets while paused.
func ExampleHost_SetPaused() {
	h := hostservices.New(temporal.Fixed(temporal.FromUnixNano(0)))
	h.ScheduleEvery(sched.Every{Interval: 10 * temporal.Millisecond}, func() error {
		fmt.Println("job at", h.Scheduler().Elapsed().DecimalSeconds())
		return nil
	})
	h.Register("physics", hostservices.FacetFunc(func(dt float64) error {
		fmt.Println("facet, dt", dt)
		return nil
	}))
	h.SetPaused(true)
	for range 10 {
		h.Update(1000) // nothing happens, and no time is banked
	}
	h.Step(10) // one frame while paused
	h.SetPaused(false)
	h.Update(16)
	// Output:
	// job at 0.01s
	// facet, dt 10
	// job at 0.02s
	// facet, dt 16
}

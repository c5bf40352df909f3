package debounce_test

import (
	"fmt"
	"time"

	"github.com/metronome-rt/metronome/runtime/debounce"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// The package doc's first timeline, on the typed scheduler in virtual
// time.
func Example() {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	d, err := debounce.New(debounce.OnScheduler(s, nil), debounce.Config{
		Timeout: 100 * time.Millisecond, BusyTimeout: 50 * time.Millisecond,
		ForceMin: 300 * time.Millisecond, ForceMax: 300 * time.Millisecond,
		Trailing: true,
	}, func(key string, touch int) error {
		fmt.Printf("%v: %s with the touch at %d ms\n", s.Elapsed().Std(), key, touch)
		return nil
	})
	if err != nil {
		panic(err)
	}
	for _, at := range []int{0, 30, 70, 80, 100, 140, 180, 220, 260, 290} {
		_ = s.Advance(temporal.Duration(time.Duration(at)*time.Millisecond - s.Elapsed().Std()))
		_ = d.Debounce("doc", at)
		fmt.Printf("touch at %d ms: due in %v\n", at, s.List()[0].DueIn.Std())
	}
	_ = s.Advance(temporal.Duration(time.Second))
	// Output:
	// touch at 0 ms: due in 100ms
	// touch at 30 ms: due in 70ms
	// touch at 70 ms: due in 50ms
	// touch at 80 ms: due in 50ms
	// touch at 100 ms: due in 50ms
	// touch at 140 ms: due in 50ms
	// touch at 180 ms: due in 50ms
	// touch at 220 ms: due in 50ms
	// touch at 260 ms: due in 40ms
	// touch at 290 ms: due in 10ms
	// 300ms: doc with the touch at 290 ms
}

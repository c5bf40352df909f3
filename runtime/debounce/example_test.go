package debounce_test

import (
	"fmt"

	"github.com/metronome-rt/metronome/runtime/debounce"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// jobs is debounce.Timers on the typed scheduler: each wake-up is a
// one-shot job, moved by the scheduler's Advance.
type jobs struct{ s *sched.Scheduler }

func (j jobs) Now() temporal.Instant { return j.s.Now() }

func (j jobs) AfterFunc(d temporal.Duration, _ any, f func() error) (debounce.Timer, error) {
	h, err := j.s.ScheduleOnce(d, f)
	if err != nil {
		return nil, err
	}
	return job{h}, nil
}

type job struct{ h sched.Handle }

func (j job) Stop() bool { return j.h.Cancel() }

// The package doc's first timeline, on the typed scheduler in virtual
// time.
func Example() {
	const ms = temporal.Millisecond
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	d, err := debounce.New(jobs{s}, debounce.Config{
		Timeout: 100 * ms, BusyTimeout: 50 * ms,
		ForceMin: 300 * ms, ForceMax: 300 * ms,
		Trailing: true,
	}, func(key string, touch int) error {
		fmt.Printf("%v: %s with the touch at %d ms\n", s.Elapsed().Std(), key, touch)
		return nil
	})
	if err != nil {
		panic(err)
	}
	for _, at := range []int{0, 30, 70, 80, 100, 140, 180, 220, 260, 290} {
		_ = s.Advance(temporal.Duration(at)*ms - s.Elapsed())
		_ = d.Debounce("doc", at)
		fmt.Printf("touch at %d ms: due in %v\n", at, s.List()[0].DueIn.Std())
	}
	_ = s.Advance(temporal.Second)
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

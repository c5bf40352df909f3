package driver_test

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/temporal"
)

// BenchmarkServiceScheduleStop schedules a callback an hour out and stops
// it, from one goroutine and from two at once, beside time.AfterFunc and
// Stop; trace-off and trace-disabled show what the slog seam costs when
// it prints nothing: trace-off has no Logger, trace-disabled one whose
// handler takes only errors. Each service holds 1,000 pending callbacks.
func BenchmarkServiceScheduleStop(b *testing.B) {
	f := func() {}
	quiet := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))
	for _, g := range []int{1, 2} {
		for _, c := range []struct {
			name string
			log  *slog.Logger
		}{{"trace-off", nil}, {"trace-disabled", quiet}} {
			b.Run("service/"+c.name+"/g"+string(rune('0'+g)), func(b *testing.B) {
				s, err := driver.NewService(driver.ServiceOptions{Logger: c.log})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Stop(context.Background())
				for i := range 1000 {
					s.Schedule(temporal.Hour+temporal.Duration(i), f)
				}
				runParts(b, g, func(n int) {
					for i := range n {
						t, _ := s.Schedule(temporal.Hour+temporal.Duration(i&1023)*temporal.Millisecond, f)
						t.Stop()
					}
				})
			})
		}
		b.Run("afterfunc/g"+string(rune('0'+g)), func(b *testing.B) {
			var ts []*time.Timer
			for i := range 1000 {
				ts = append(ts, time.AfterFunc(time.Hour+time.Duration(i), f))
			}
			defer func() {
				for _, t := range ts {
					t.Stop()
				}
			}()
			runParts(b, g, func(n int) {
				for i := range n {
					time.AfterFunc(time.Hour+time.Duration(i&1023)*time.Millisecond, f).Stop()
				}
			})
		})
	}
}

// runParts runs b.N operations split over g goroutines, timed from start
// to the last one's end.
func runParts(b *testing.B, g int, part func(n int)) {
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range g {
		wg.Go(func() { part((b.N + g - 1) / g) })
	}
	wg.Wait()
}

// BenchmarkLateness schedules 100,000 callbacks at random deadlines over
// 10 s of wall time, all at the start, and reports how late each started
// (its start minus its deadline): p50, p99 and max, with the most
// goroutines seen by a callback. It takes 10 s a run and a peer, so it is
// skipped unless METRONOME_LATENESS is set: `make bench-lateness`.
func BenchmarkLateness(b *testing.B) {
	if os.Getenv("METRONOME_LATENESS") == "" {
		b.Skip("set METRONOME_LATENESS=1 (make bench-lateness): 10 s of wall time per peer")
	}
	const n, spread = 100_000, 10 * time.Second
	r := rand.New(rand.NewPCG(1, 2))
	offsets := make([]time.Duration, n)
	for i := range offsets {
		offsets[i] = time.Duration(r.Int64N(int64(spread)))
	}
	peers := []struct {
		name     string
		strategy *driver.Strategy
	}{
		{"service-inline", ptr(driver.Inline())},
		{"service-pool4", ptr(driver.Pool(4))},
		{"afterfunc", nil},
	}
	for _, p := range peers {
		b.Run(p.name, func(b *testing.B) {
			for range b.N {
				late := make([]time.Duration, n)
				var wg sync.WaitGroup
				var maxG atomic.Int64
				wg.Add(n)
				var s *driver.Service
				if p.strategy != nil {
					var err error
					s, err = driver.NewService(driver.ServiceOptions{Strategy: *p.strategy})
					if err != nil {
						b.Fatal(err)
					}
				}
				start := time.Now()
				for i, off := range offsets {
					fire := func() {
						late[i] = time.Since(start) - off
						g := int64(runtime.NumGoroutine())
						for cur := maxG.Load(); g > cur && !maxG.CompareAndSwap(cur, g); cur = maxG.Load() {
						}
						wg.Done()
					}
					// Deadlines are start+off, whenever the loop gets here.
					d := off - time.Since(start)
					if s != nil {
						if _, err := s.Schedule(temporal.Duration(max(d, 0)), fire); err != nil {
							b.Fatal(err)
						}
					} else {
						time.AfterFunc(d, fire)
					}
				}
				wg.Wait()
				if s != nil {
					s.Stop(context.Background())
				}
				slices.Sort(late)
				b.ReportMetric(float64(late[n/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(late[n*99/100].Microseconds()), "p99-µs")
				b.ReportMetric(float64(late[n-1].Microseconds()), "max-µs")
				b.ReportMetric(float64(maxG.Load()), "goroutines")
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

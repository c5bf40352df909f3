package keyed_test

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

const (
	benchTimers = 20_000
	benchPeriod = 100 * ms
	benchSpan   = 60 * temporal.Second
)

// BenchmarkKeyedShared is the keyed scene through the shared scheduler:
// 20,000 keyed timers at 100 ms for 60 s of a fake clock (12 million
// ticks) to no-op callbacks (the ticks are counted afterwards from each
// timer's deliveries, so that no shared counter is part of the cost), the
// clock jumping to the next deadline whenever nothing is in flight. phases=1 registers every timer
// at one instant (each wake-up a batch of 20,000); phases=100 spreads
// them over 100 instants 1 ms apart (batches of 200). One op is the whole
// scene; ticks/s is the throughput, cpu-ns/tick the CPU time all
// goroutines spent per tick (user + system, which the other processes on a
// shared machine change less than wall time), goroutines the scheduler's
// (1 + pool), wakeups/wave how often the scheduler goroutine woke up per
// batch, handoffs/wave the batch sends to the workers per batch, and
// early/tick the share of records a worker ran while the scheduler was
// still draining their batch.
func BenchmarkKeyedShared(b *testing.B) {
	for _, phases := range []int{1, 100} {
		b.Run(fmt.Sprintf("phases=%d", phases), func(b *testing.B) {
			b.ReportAllocs()
			var ticks, wakeups, batches, handoffs, early int64
			var elapsed, cpu time.Duration
			goroutines, base := 0, runtime.NumGoroutine()
			for b.Loop() {
				done := make(chan struct{})
				var once sync.Once
				var started atomic.Bool
				clk := &fakeClock{}
				s, err := keyed.NewWithHooks(keyed.Options{Clock: clk, Capacity: benchTimers}, keyed.Hooks{Idle: func() {
					if !started.Load() {
						return
					}
					if at, ok := clk.NextAlarm(); ok && at <= int64(benchSpan) {
						clk.Set(at)
						return
					}
					once.Do(func() { close(done) })
				}})
				if err != nil {
					b.Fatal(err)
				}
				fn := func(keyed.Fire) {}
				b.StopTimer()
				timers := make([]*keyed.Timer, benchTimers)
				for i := range benchTimers {
					if timers[i], err = s.Register(keyed.Config{Key: fmt.Sprint("t", i), Interval: benchPeriod,
						Delay: benchPeriod + temporal.Duration(i%phases)*ms, Callback: fn}); err != nil {
						b.Fatal(err)
					}
				}
				goroutines = runtime.NumGoroutine() - base
				start, cpu0 := time.Now(), cpuTime()
				b.StartTimer()
				started.Store(true)
				s.Retry() // the first wake-up: the clock starts moving
				<-done
				b.StopTimer()
				elapsed += time.Since(start)
				cpu += cpuTime() - cpu0
				for _, t := range timers {
					ticks += keyed.Delivered(t)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				w, n, h, e := keyed.Stats(s)
				wakeups, batches, handoffs, early = wakeups+w, batches+n, handoffs+h, early+e
				b.StartTimer()
			}
			b.ReportMetric(float64(ticks)/elapsed.Seconds(), "ticks/s")
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(ticks), "ns/tick")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(ticks), "cpu-ns/tick")
			b.ReportMetric(float64(goroutines), "goroutines")
			b.ReportMetric(float64(ticks)/float64(b.N), "ticks/op")
			b.ReportMetric(float64(wakeups)/float64(batches), "wakeups/wave")
			b.ReportMetric(float64(handoffs)/float64(batches), "handoffs/wave")
			b.ReportMetric(float64(early)/float64(ticks), "early/tick")
		})
	}
}

// cpuTime is the process's user and system CPU time: on a shared machine
// it says what a tick costs where wall time says how busy the others were.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// memInUse is the live heap plus goroutine stacks, after a collection.
func memInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

// BenchmarkKeyedResources compares what 20,000 registered timers hold,
// heap and goroutine stacks: the shared scheduler (one goroutine, one
// queue entry each, a pool of GOMAXPROCS) beside the dedicated approach
// (a time.Ticker and a goroutine per timer).
func BenchmarkKeyedResources(b *testing.B) {
	b.Run("shared", func(b *testing.B) {
		var per, gs float64
		for b.Loop() {
			base, h0 := runtime.NumGoroutine(), memInUse()
			s, _ := keyed.New(keyed.Options{})
			for i := range benchTimers {
				s.Register(keyed.Config{Key: fmt.Sprint("t", i), Interval: benchPeriod, Delay: temporal.Hour, Callback: func(keyed.Fire) {}})
			}
			per = float64(memInUse()-h0) / benchTimers
			gs = float64(runtime.NumGoroutine() - base)
			s.Close()
		}
		b.ReportMetric(per, "B/timer")
		b.ReportMetric(gs, "goroutines")
	})
	b.Run("dedicated", func(b *testing.B) {
		var per, gs float64
		for b.Loop() {
			base, h0 := runtime.NumGoroutine(), memInUse()
			stop := make(chan struct{})
			var wg sync.WaitGroup
			started := make(chan struct{}, benchTimers)
			for range benchTimers {
				wg.Go(func() {
					tk := time.NewTicker(benchPeriod.Std())
					defer tk.Stop()
					started <- struct{}{}
					for {
						select {
						case <-tk.C:
						case <-stop:
							return
						}
					}
				})
			}
			for range benchTimers {
				<-started
			}
			per = float64(memInUse()-h0) / benchTimers
			gs = float64(runtime.NumGoroutine() - base)
			close(stop)
			wg.Wait()
		}
		b.ReportMetric(per, "B/timer")
		b.ReportMetric(gs, "goroutines")
	})
}

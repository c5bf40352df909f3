package bench

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing/synctest"
	"time"
)

// The time.AfterFunc peer fires only when its clock reaches a deadline. On
// the wall clock that means waiting, which no benchmark here does, so the
// fire-path figures for time.AfterFunc are taken in a testing/synctest
// bubble, whose fake clock jumps to the next deadline as soon as every
// goroutine in the bubble is blocked. synctest.Test needs a *testing.T,
// which a benchmark does not have; cmd/synctestpeers runs these
// functions as tests and prints their figures as benchmark lines.
//
// Every function below must run inside a bubble: each starts with
// synctest.Wait, which panics outside one, so none can ever sleep on the
// wall clock by mistake.

// Measured is one timed section: Ops operations in Elapsed real time, with
// the heap allocations (count and bytes) made meanwhile.
type Measured struct {
	Ops     int
	Elapsed time.Duration
	Allocs  uint64
	Bytes   uint64
}

// RealClock reads the wall clock from inside a bubble, where time.Now is
// fake: a goroutine started outside the bubble answers each Now. Its
// channels are made outside the bubble too, so waiting on them does not
// count as durably blocked and never lets the fake clock move.
type RealClock struct {
	req  chan struct{}
	resp chan time.Time
}

// StartRealClock starts the clock's goroutine; call it outside any bubble
// and Stop the clock when done.
func StartRealClock() *RealClock {
	c := &RealClock{req: make(chan struct{}), resp: make(chan time.Time)}
	go func() {
		for range c.req {
			c.resp <- time.Now()
		}
	}()
	return c
}

// Now returns the wall-clock time (with its monotonic reading).
func (c *RealClock) Now() time.Time {
	c.req <- struct{}{}
	return <-c.resp
}

// Stop ends the clock's goroutine.
func (c *RealClock) Stop() { close(c.req) }

// measure times f on the real clock and counts its allocations. The GC
// before it collects setup garbage.
func measure(clock *RealClock, ops int, f func()) Measured {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := clock.Now()
	f()
	t1 := clock.Now()
	runtime.ReadMemStats(&m1)
	return Measured{Ops: ops, Elapsed: t1.Sub(t0), Allocs: m1.Mallocs - m0.Mallocs, Bytes: m1.TotalAlloc - m0.TotalAlloc}
}

// The delay tables below are those of runtime/sched/bench_test.go: the same PCG
// generators and draws, so the afterfunc rows match the other
// implementations'.
const (
	tableMin     = 1 << 16
	tableWindow  = int64(1) << 40   // deadlines spread over ~18 minutes of ns
	tablePending = int64(time.Hour) // pending deadlines: tablePending + [0, tableWindow)
	tableSeed    = 1
)

// delayTable returns the random delays in [0, tableWindow) that
// runtime/bench_test.go uses for n pending jobs; index it with i&(len-1).
func delayTable(n int) []int64 {
	size := max(tableMin, 1<<bits.Len(uint(n-1)))
	r := rand.New(rand.NewPCG(tableSeed, uint64(n)))
	delays := make([]int64, size)
	for i := range delays {
		delays[i] = r.Int64N(tableWindow)
		r.IntN(n) // the pick drawn alongside in runtime/bench_test.go
	}
	return delays
}

func neverFire() { panic("bench: a pending timer fired: the deadlines are wrong") }

// AfterFuncScheduleFire runs ScheduleFire for time.AfterFunc: with n
// timers pending an hour or more ahead, it schedules one timer due at the
// next nanosecond and waits until its callback has run, k times in one
// timed section, for each k that next returns given the sections so far
// (starting with none), until next returns 0. The pending timers stay
// from one section to the next.
func AfterFuncScheduleFire(clock *RealClock, n int, next func(done []Measured) int) []Measured {
	synctest.Wait() // panics outside a bubble
	delays := delayTable(n)
	mask := len(delays) - 1
	timers := make([]*time.Timer, n)
	for i := range timers {
		timers[i] = time.AfterFunc(time.Duration(tablePending+delays[i&mask]), neverFire)
	}
	done := make(chan struct{})
	fired := func() { done <- struct{}{} }
	var out []Measured
	for k := next(out); k > 0; k = next(out) {
		out = append(out, measure(clock, k, func() {
			for range k {
				time.AfterFunc(1, fired)
				<-done // durably blocked: the clock moves 1ns and the timer fires
			}
		}))
	}
	for _, t := range timers {
		t.Stop()
	}
	return out
}

// AfterFuncDrain runs Drain for time.AfterFunc: n timers with random
// deadlines (outside the timed section), then one sleep past all of them
// and a wait until every callback has run. It returns the section (one
// operation: the whole drain) and the number of callbacks that ran.
func AfterFuncDrain(clock *RealClock, n int) (Measured, int64) {
	synctest.Wait() // panics outside a bubble
	delays := delayTable(n)
	mask := len(delays) - 1
	var fires atomic.Int64
	fire := func() { fires.Add(1) }
	for i := range n {
		time.AfterFunc(time.Duration(delays[i&mask]), fire)
	}
	m := measure(clock, 1, func() {
		time.Sleep(time.Duration(tableWindow))
		synctest.Wait()
	})
	return m, fires.Load()
}

// RunIntervalsAfterFunc runs the intervals scene with time.AfterFunc inside a
// bubble and returns the fire count. An interval is a timer whose callback
// re-arms it with Reset; in the bubble the callback runs at its deadline
// exactly, so the intervals do not drift. Callbacks run on their own
// goroutines, so the count is atomic.
func RunIntervalsAfterFunc(n int, hours float64) int64 {
	synctest.Wait() // panics outside a bubble
	var (
		fires     atomic.Int64
		mu        sync.Mutex
		intervals = make([]*time.Timer, 0, n)
	)
	tick := func() { fires.Add(1) }
	scene := IntervalsScene(n)
	onces := make([]*time.Timer, len(scene))
	for i, iv := range scene {
		period := time.Duration(iv.Period) * time.Millisecond
		onces[i] = time.AfterFunc(time.Duration(iv.Phase)*time.Millisecond, func() {
			tick()
			// Made stopped-in-effect (due in ~292 years) and armed by Reset
			// once t is set: the callback reads t, and Reset orders the
			// write before the fire for the race detector.
			var t *time.Timer
			t = time.AfterFunc(math.MaxInt64, func() { tick(); t.Reset(period) })
			t.Reset(period)
			mu.Lock()
			intervals = append(intervals, t)
			mu.Unlock()
		})
	}
	time.Sleep(time.Duration(IntervalsEndMs(hours)) * time.Millisecond)
	synctest.Wait() // the callbacks due at the end have run
	for _, t := range onces {
		t.Stop()
	}
	mu.Lock()
	for _, t := range intervals {
		t.Stop()
	}
	mu.Unlock()
	return fires.Load()
}

package bench_test

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/internal/bench"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// The scheduler benchmarks run one workload on runtime/sched and its two
// peers, with the same sub-benchmark names, so one run gives the ratios
// (scripts/bench.sh renders them; docs/benchmarks.md explains them):
//
//	metronome       sched.Scheduler, Go callbacks, handles
//	container-heap  the textbook container/heap scheduler below: pointer
//	                items with an index field, Fix / Remove
//	afterfunc       time.AfterFunc + Stop on the Go runtime's timers
//
// Workloads, each with N other one-shots pending (pending=1k, 100k, 1M):
//
//	ScheduleCancel  schedule one Go callback, cancel it
//	RandomCancel    cancel a random pending job, schedule a replacement
//	ScheduleFire    schedule one due at the next ns, fire it through Advance
//	Drain1M         1M due one-shots drained by one Advance (ns/fire)
//	MemoryPerPendingOnce  heap bytes per pending one-shot (B/pending)
//
// Every callback is one shared func value, so no closure is allocated on
// the timed path and the memory figure excludes the callback. Deadlines and
// picks come from tables filled by a PCG with a fixed start value. The
// pending jobs are due an hour or more after the scheduler's start, so none
// fires during a benchmark: the afterfunc timers are real runtime timers
// and must never be due (no benchmark sleeps or waits on the wall clock).
// time.AfterFunc
// fires only on the wall clock, so its ScheduleFire and Drain1M rows come
// from a testing/synctest bubble in internal/bench/cmd/synctestpeers, under the same
// names; here they skip.
//
// The pending set of a size is built once per sub-benchmark, on first use,
// and reused by every b.N round (the timed loops leave N pending), so
// building 1M timers is not repeated for each round.

var bmSizes = []struct {
	name string
	n    int
}{
	{"1k", 1_000},
	{"100k", 100_000},
	{"1M", 1_000_000},
}

const (
	bmDrainSize  = 1_000_000
	bmMinTable   = 1 << 16
	bmWindow     = int64(1) << 40   // deadlines spread over ~18 minutes of ns
	bmPending    = int64(time.Hour) // pending jobs are due at bmPending + [0, bmWindow)
	bmSkipFire   = "time.AfterFunc fires only on the wall clock: measured in a testing/synctest bubble by `go run ./internal/bench/cmd/synctestpeers` under this name"
	bmGCRounds   = 2 // GC cycles before reading MemStats
	bmNoFire     = "a pending job fired: the benchmark's deadlines are wrong"
	bmLostFire   = "fires counted do not match the jobs fired"
	bmTableStart = 1 // the PCG's start value
)

var bmEpoch = temporal.FromUnixNano(946684800 * 1e9) // 2000-01-01T00:00:00Z

// bmData holds the random delays and picks for one pending size; index
// them with i&mask.
type bmData struct {
	delays []int64 // uniform in [0, bmWindow)
	picks  []int32 // uniform in [0, n)
	mask   int
}

func newBMData(n int) bmData {
	size := max(bmMinTable, 1<<bits.Len(uint(n-1)))
	r := rand.New(rand.NewPCG(bmTableStart, uint64(n)))
	d := bmData{delays: make([]int64, size), picks: make([]int32, size), mask: size - 1}
	for i := range d.delays {
		d.delays[i] = r.Int64N(bmWindow)
		d.picks[i] = int32(r.IntN(n))
	}
	return d
}

// bmStart collects setup garbage, then resets the benchmark timer: a GC
// cycle running during the loop would turn on write barriers and share
// the caches.
func bmStart(b *testing.B) {
	b.Helper()
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
}

// The shared callbacks. bmFires counts fires (benchmarks run one at a
// time, on one goroutine); bmNever fails loudly if a pending job fires.
var (
	bmFires   int
	bmFired   = func() { bmFires++ }
	bmFiredFn = (func() error)(func() error { bmFires++; return nil })
	bmNever   = func() { panic(bmNoFire) }
	bmNeverFn = (func() error)(func() error { panic(bmNoFire) })
)

// ---- metronome ----

type bmMetronome struct {
	s       *sched.Scheduler
	handles []sched.Handle
}

func newBMMetronome(b *testing.B, n int, d bmData) *bmMetronome {
	m := &bmMetronome{s: sched.New(temporal.Fixed(bmEpoch)), handles: make([]sched.Handle, n)}
	// n pending plus the jobs an op adds pass the default cap at n = 1M.
	if err := m.s.SetLimits(0, n+1_000_000); err != nil {
		b.Fatal(err)
	}
	for i := range m.handles {
		h, err := m.s.ScheduleOnce(temporal.Duration(bmPending+d.delays[i]), bmNeverFn)
		if err != nil {
			b.Fatal(err)
		}
		m.handles[i] = h
	}
	return m
}

// ---- container-heap: the textbook scheduler (bench.HeapScheduler) ----

type bmContainerHeap struct {
	s    *bench.HeapScheduler
	jobs []*bench.HeapJob
}

func newBMContainerHeap(n int, d bmData) *bmContainerHeap {
	c := &bmContainerHeap{s: &bench.HeapScheduler{}, jobs: make([]*bench.HeapJob, n)}
	for i := range c.jobs {
		c.jobs[i] = c.s.ScheduleOnce(bmPending+d.delays[i], bmNever)
	}
	return c
}

// ---- afterfunc ----

type bmAfterFunc struct{ timers []*time.Timer }

func newBMAfterFunc(n int, d bmData) *bmAfterFunc {
	a := &bmAfterFunc{timers: make([]*time.Timer, n)}
	for i := range a.timers {
		a.timers[i] = time.AfterFunc(time.Duration(bmPending+d.delays[i]), bmNever)
	}
	return a
}

func (a *bmAfterFunc) stop() {
	for _, t := range a.timers {
		t.Stop()
	}
}

// ---- benchmarks ----

// bmLazy builds a fixture on the first round of a sub-benchmark and keeps
// it for the later rounds; done releases it.
type bmLazy[F any] struct {
	fx      *F
	build   func(b *testing.B) *F
	release func(*F)
}

func (l *bmLazy[F]) get(b *testing.B) *F {
	if l.fx == nil {
		b.StopTimer()
		l.fx = l.build(b)
		b.StartTimer()
	}
	return l.fx
}

func (l *bmLazy[F]) done() {
	if l.fx != nil && l.release != nil {
		l.release(l.fx)
	}
	l.fx = nil
	runtime.GC()
}

func lazyMetronome(n int, d bmData) *bmLazy[bmMetronome] {
	return &bmLazy[bmMetronome]{build: func(b *testing.B) *bmMetronome { return newBMMetronome(b, n, d) }}
}

func lazyContainerHeap(n int, d bmData) *bmLazy[bmContainerHeap] {
	return &bmLazy[bmContainerHeap]{build: func(*testing.B) *bmContainerHeap { return newBMContainerHeap(n, d) }}
}

func lazyAfterFunc(n int, d bmData) *bmLazy[bmAfterFunc] {
	return &bmLazy[bmAfterFunc]{
		build:   func(*testing.B) *bmAfterFunc { return newBMAfterFunc(n, d) },
		release: (*bmAfterFunc).stop,
	}
}

// BenchmarkScheduleCancel schedules one Go callback and cancels it, with N
// other one-shots pending. The new job's deadline is random within the
// pending window, so it lands at a random depth. Target (metronome):
// <= 30 ns and 0 allocs/op.
func BenchmarkScheduleCancel(b *testing.B) {
	for _, size := range bmSizes {
		d := newBMData(size.n)

		m := lazyMetronome(size.n, d)
		b.Run("metronome/pending="+size.name, func(b *testing.B) {
			s := m.get(b).s
			bmStart(b)
			for i := 0; i < b.N; i++ {
				h, err := s.ScheduleOnce(temporal.Duration(bmPending+d.delays[i&d.mask]), bmNeverFn)
				if err != nil {
					b.Fatal(err)
				}
				h.Cancel()
			}
		})
		m.done()

		c := lazyContainerHeap(size.n, d)
		b.Run("container-heap/pending="+size.name, func(b *testing.B) {
			s := c.get(b).s
			bmStart(b)
			for i := 0; i < b.N; i++ {
				s.Cancel(s.ScheduleOnce(bmPending+d.delays[i&d.mask], bmNever))
			}
		})
		c.done()

		a := lazyAfterFunc(size.n, d)
		b.Run("afterfunc/pending="+size.name, func(b *testing.B) {
			a.get(b)
			bmStart(b)
			for i := 0; i < b.N; i++ {
				time.AfterFunc(time.Duration(bmPending+d.delays[i&d.mask]), bmNever).Stop()
			}
		})
		a.done()
	}
}

// BenchmarkRandomCancel cancels a random one of the N pending one-shots
// and schedules a replacement with a new random deadline, keeping N
// pending. Targets (metronome): <= 40 ns at 1k; at least twice as fast as
// container-heap at 100k and 1M.
func BenchmarkRandomCancel(b *testing.B) {
	for _, size := range bmSizes {
		d := newBMData(size.n)

		m := lazyMetronome(size.n, d)
		b.Run("metronome/pending="+size.name, func(b *testing.B) {
			fx := m.get(b)
			s, hs := fx.s, fx.handles
			bmStart(b)
			for i := 0; i < b.N; i++ {
				k := d.picks[i&d.mask]
				hs[k].Cancel()
				h, err := s.ScheduleOnce(temporal.Duration(bmPending+d.delays[(i+7)&d.mask]), bmNeverFn)
				if err != nil {
					b.Fatal(err)
				}
				hs[k] = h
			}
		})
		m.done()

		c := lazyContainerHeap(size.n, d)
		b.Run("container-heap/pending="+size.name, func(b *testing.B) {
			fx := c.get(b)
			s, jobs := fx.s, fx.jobs
			bmStart(b)
			for i := 0; i < b.N; i++ {
				k := d.picks[i&d.mask]
				s.Cancel(jobs[k])
				jobs[k] = s.ScheduleOnce(bmPending+d.delays[(i+7)&d.mask], bmNever)
			}
		})
		c.done()

		a := lazyAfterFunc(size.n, d)
		b.Run("afterfunc/pending="+size.name, func(b *testing.B) {
			ts := a.get(b).timers
			bmStart(b)
			for i := 0; i < b.N; i++ {
				k := d.picks[i&d.mask]
				ts[k].Stop()
				ts[k] = time.AfterFunc(time.Duration(bmPending+d.delays[(i+7)&d.mask]), bmNever)
			}
		})
		a.done()
	}
}

// BenchmarkScheduleFire schedules one Go callback due at the next
// nanosecond and fires it through Advance(1ns), with N one-shots pending
// later. Target (metronome): <= 100 ns per fire.
func BenchmarkScheduleFire(b *testing.B) {
	for _, size := range bmSizes {
		d := newBMData(size.n)

		m := lazyMetronome(size.n, d)
		b.Run("metronome/pending="+size.name, func(b *testing.B) {
			s := m.get(b).s
			bmFires = 0
			bmStart(b)
			for i := 0; i < b.N; i++ {
				if _, err := s.ScheduleOnce(temporal.Nanosecond, bmFiredFn); err != nil {
					b.Fatal(err)
				}
				if err := s.Advance(temporal.Nanosecond); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if bmFires != b.N {
				b.Fatalf("%s: %d fires for %d jobs", bmLostFire, bmFires, b.N)
			}
		})
		m.done()

		c := lazyContainerHeap(size.n, d)
		b.Run("container-heap/pending="+size.name, func(b *testing.B) {
			s := c.get(b).s
			bmFires = 0
			bmStart(b)
			for i := 0; i < b.N; i++ {
				s.ScheduleOnce(1, bmFired)
				s.Advance(1)
			}
			b.StopTimer()
			if bmFires != b.N {
				b.Fatalf("%s: %d fires for %d jobs", bmLostFire, bmFires, b.N)
			}
		})
		c.done()

		b.Run("afterfunc/pending="+size.name, func(b *testing.B) { b.Skip(bmSkipFire) })
	}
}

// BenchmarkDrain1M schedules 1M one-shots with random deadlines (outside
// the timer) and drains them all with one Advance. ns/op is the whole
// drain; ns/fire divides it by 1M. Target (metronome): <= 100 ns/fire.
func BenchmarkDrain1M(b *testing.B) {
	d := newBMData(bmDrainSize)
	drain := func(b *testing.B, setup func(), run func()) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			setup()
			bmFires = 0
			runtime.GC()
			b.StartTimer()
			run()
			b.StopTimer()
			if bmFires != bmDrainSize {
				b.Fatalf("%s: %d fires for %d jobs", bmLostFire, bmFires, bmDrainSize)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/bmDrainSize, "ns/fire")
	}

	b.Run("metronome", func(b *testing.B) {
		var s *sched.Scheduler
		drain(b, func() {
			s = sched.New(temporal.Fixed(bmEpoch))
			for i := range bmDrainSize {
				if _, err := s.ScheduleOnce(temporal.Duration(d.delays[i&d.mask]), bmFiredFn); err != nil {
					b.Fatal(err)
				}
			}
		}, func() {
			if err := s.Advance(temporal.Duration(bmWindow)); err != nil {
				b.Fatal(err)
			}
		})
	})

	b.Run("container-heap", func(b *testing.B) {
		var s *bench.HeapScheduler
		drain(b, func() {
			s = &bench.HeapScheduler{}
			for i := range bmDrainSize {
				s.ScheduleOnce(d.delays[i&d.mask], bmFired)
			}
		}, func() { s.Advance(bmWindow) })
	})

	b.Run("afterfunc", func(b *testing.B) { b.Skip(bmSkipFire) })
}

// BenchmarkMemoryPerPendingOnce schedules N one-shots that share one func
// value and reports the live heap they add, per job, after GC (B/pending):
// its queue slot, its position-table entry and their spare capacity; not the callback,
// not the scheduler itself and not a handle (the caller may drop it; a
// kept sched.Handle is 24 bytes more). ns/op and B/op cover scheduling
// all N. Target (metronome): <= 48 B/pending.
func BenchmarkMemoryPerPendingOnce(b *testing.B) {
	// measure runs prepare (untimed, unmeasured), then fill under the
	// timer and between two MemStats readings, then release.
	measure := func(b *testing.B, n int, prepare func() any, fill func(any), release func(any)) {
		b.ReportAllocs()
		var total float64
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			fx := prepare()
			before := bmHeapAlloc()
			b.StartTimer()
			fill(fx)
			b.StopTimer()
			total += float64(int64(bmHeapAlloc())-int64(before)) / float64(n)
			if release != nil {
				release(fx)
			}
			runtime.KeepAlive(fx)
			b.StartTimer()
		}
		b.ReportMetric(total/float64(b.N), "B/pending")
	}
	for _, size := range bmSizes[1:] { // at 1k, MemStats noise is a few B/pending
		d := newBMData(size.n)
		b.Run("metronome/pending="+size.name, func(b *testing.B) {
			measure(b, size.n, func() any { return sched.New(temporal.Fixed(bmEpoch)) }, func(fx any) {
				s := fx.(*sched.Scheduler)
				for i := range size.n {
					if _, err := s.ScheduleOnce(temporal.Duration(bmPending+d.delays[i&d.mask]), bmNeverFn); err != nil {
						b.Fatal(err)
					}
				}
			}, nil)
		})
		b.Run("container-heap/pending="+size.name, func(b *testing.B) {
			measure(b, size.n, func() any { return &bench.HeapScheduler{} }, func(fx any) {
				s := fx.(*bench.HeapScheduler)
				for i := range size.n {
					s.ScheduleOnce(bmPending+d.delays[i&d.mask], bmNever)
				}
			}, nil)
		})
		b.Run("afterfunc/pending="+size.name, func(b *testing.B) {
			// The *Timer slice a caller needs to Stop them is made in
			// prepare, so it is not counted; the runtime keeps the timers
			// alive in its own heaps until they fire or stop.
			measure(b, size.n, func() any { return &bmAfterFunc{timers: make([]*time.Timer, size.n)} }, func(fx any) {
				ts := fx.(*bmAfterFunc).timers
				for i := range ts {
					ts[i] = time.AfterFunc(time.Duration(bmPending+d.delays[i&d.mask]), bmNever)
				}
			}, func(fx any) { fx.(*bmAfterFunc).stop() })
		})
	}
}

// bmHeapAlloc returns the live heap after full collections.
func bmHeapAlloc() uint64 {
	var ms runtime.MemStats
	for range bmGCRounds {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

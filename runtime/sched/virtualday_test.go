package sched_test

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/runtime/wheel"
	"github.com/metronome-rt/metronome/temporal"
)

// The 24-hour virtual run: 10,000 intervals with periods drawn from 1 to
// 60 s and a random phase each, advanced a second at a time for a day,
// about 61 million fires. Each fire folds (Now, job ID) into a trace hash,
// so two runs fired the same jobs at the same instants in the same order
// when their hashes match.
const (
	dayJobs = 10_000
	dayStep = temporal.Second
)

// dayData returns the intervals' periods and phases (first delays), in
// ns, from a PCG with a fixed start value: the same as timerq's
// BenchmarkVirtualDay.
func dayData(n int) (periods, phases []int64) {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	periods, phases = make([]int64, n), make([]int64, n)
	for i := range periods {
		periods[i] = 1e9 + r.Int64N(59e9)
		phases[i] = r.Int64N(periods[i])
	}
	return periods, phases
}

// dayRun is one scheduler's run, set up and ready to go.
type dayRun struct {
	s     *sched.Scheduler
	fires int
	trace uint64
}

func newDayRun(tb testing.TB, s *sched.Scheduler, periods, phases []int64) *dayRun {
	r := &dayRun{s: s}
	for i := range periods {
		var id uint64
		delay := temporal.Duration(phases[i])
		h, err := s.ScheduleEvery(sched.Every{Interval: temporal.Duration(periods[i]), Delay: &delay}, func() error {
			r.fires++
			r.trace = mixFire(r.trace, int64(s.Elapsed()), id)
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
		id = h.ID()
	}
	return r
}

// run advances the scheduler a second at a time for d.
func (r *dayRun) run(tb testing.TB, d temporal.Duration) {
	for t := dayStep; t <= d; t += dayStep {
		if err := r.s.Advance(dayStep); err != nil {
			tb.Fatal(err)
		}
	}
}

// mixFire folds a fire into a trace hash.
func mixFire(h uint64, at int64, id uint64) uint64 {
	h ^= uint64(at)*0x9e3779b97f4a7c15 + id
	return h*0xff51afd7ed558ccd + 1
}

func dayOnHeap(tb testing.TB, periods, phases []int64) *dayRun {
	return newDayRun(tb, newOnHeap(temporal.Fixed(epoch)), periods, phases)
}

func dayOnWheel(tb testing.TB, periods, phases []int64) *dayRun {
	s, err := sched.NewOnWheel(temporal.Fixed(epoch), wheel.Default())
	if err != nil {
		tb.Fatal(err)
	}
	return newDayRun(tb, s, periods, phases)
}

// The heap-backed and the wheel-backed scheduler fire the same trace over
// the virtual run: the first hour here (5 minutes under -race), the whole
// day under METRONOME_SOAK=1 (make soak).
func TestVirtualDaySameTrace(t *testing.T) {
	skipOnWheelRun(t)
	span, wantFires := temporal.Hour, 2_400_000
	switch {
	case os.Getenv("METRONOME_SOAK") != "":
		span, wantFires = 24*temporal.Hour, 58_000_000
	case raceOn:
		span, wantFires = 5*temporal.Minute, 190_000
	}
	periods, phases := dayData(dayJobs)
	h, w := dayOnHeap(t, periods, phases), dayOnWheel(t, periods, phases)
	h.run(t, span)
	w.run(t, span)
	if h.fires < wantFires {
		t.Fatalf("the heap fired %d times in %s, want at least %d", h.fires, span, wantFires)
	}
	if w.fires != h.fires || w.trace != h.trace {
		t.Fatalf("over %s the wheel fired %d times (trace %#x), the heap %d (trace %#x)", span, w.fires, w.trace, h.fires, h.trace)
	}
	t.Logf("%s: %d fires on both queues, trace %#x", span, h.fires, h.trace)
}

// BenchmarkVirtualDay is the 24-hour virtual run on the typed scheduler,
// on the heap and on the wheel (go test -run '^$' -bench VirtualDay
// -benchtime 1x ./runtime/sched). ns/op is the whole day; ns/fire divides
// it by the fires. The wheel's run fails if its trace differs from the
// heap's in the same process.
func BenchmarkVirtualDay(b *testing.B) {
	periods, phases := dayData(dayJobs)
	var heapTrace uint64
	for _, q := range []struct {
		name string
		new  func(testing.TB, []int64, []int64) *dayRun
	}{{"heap", dayOnHeap}, {"wheel", dayOnWheel}} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			fires := 0
			for range b.N {
				b.StopTimer()
				r := q.new(b, periods, phases)
				b.StartTimer()
				r.run(b, 24*temporal.Hour)
				b.StopTimer()
				fires += r.fires
				switch {
				case q.name == "heap":
					heapTrace = r.trace
				case heapTrace != 0 && r.trace != heapTrace:
					b.Fatalf("the wheel's trace %#x differs from the heap's %#x", r.trace, heapTrace)
				}
			}
			b.ReportMetric(float64(fires)/float64(b.N), "fires")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(fires), "ns/fire")
		})
	}
}

package keyed_test

import (
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/metronome-rt/metronome/runtime/keyed"
)

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// schedulerGoroutines counts the goroutines of the caller's synctest
// bubble that run the package's code. runtime.NumGoroutine also counts
// those of the test binary outside the bubble, which may start or end
// meanwhile.
func schedulerGoroutines() int {
	var b strings.Builder
	pprof.Lookup("goroutine").WriteTo(&b, 2)
	gs := strings.Split(b.String(), "\n\n")
	bubble := func(g string) string {
		head, _, _ := strings.Cut(g, "\n")
		_, tag, _ := strings.Cut(head, "synctest bubble ")
		return tag
	}
	mine := ""
	for _, g := range gs {
		if strings.Contains(g, "[running") {
			mine = bubble(g)
		}
	}
	n := 0
	for _, g := range gs {
		if mine != "" && bubble(g) == mine && strings.Contains(g, "runtime/keyed.(*Scheduler).") {
			n++
		}
	}
	return n
}

// 10,000 owners with two timers each run on 1 + Workers goroutines, the
// same count as with no timer at all. The heap per
// registered timer is logged.
func TestResourcesDoNotScaleWithTimers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const workers = 2
		h := newHarness(t, keyed.Options{Workers: workers}, keyed.Hooks{})
		synctest.Wait()
		idle := schedulerGoroutines()
		if idle != 1+workers {
			t.Fatalf("%d scheduler goroutines with no timer, want %d", idle, 1+workers)
		}
		var fires atomic.Int64
		before := heapAlloc()
		owners := make([]*keyed.Owner, 10_000)
		for i := range owners {
			o, err := h.s.NewOwner(time100s)
			if err != nil {
				t.Fatal(err)
			}
			owners[i] = o
			for _, k := range []string{"regen", "save"} {
				register(t, o, keyed.Config{Key: k, Interval: 100 * ms, Delay: ms, Callback: func(keyed.Fire) { fires.Add(1) }})
			}
		}
		after := heapAlloc()
		t.Logf("heap per registered timer (with its owner's share): %d bytes", (after-before)/20_000)
		if per := (after - before) / 20_000; per > 2048 {
			t.Errorf("%d bytes per timer", per)
		}
		h.advance(301 * ms) // ticks at 1, 101, 201, 301 ms
		if n := schedulerGoroutines(); n != idle {
			t.Fatalf("%d scheduler goroutines with 20,000 timers ticking, %d with none", n, idle)
		}
		if n := fires.Load(); n != 4*20_000 {
			t.Fatalf("%d ticks, want %d", n, 4*20_000)
		}
		runtime.KeepAlive(owners)
	})
}

// autoRun starts a scheduler on a fake clock that jumps to the next
// deadline whenever nothing is in flight: it runs as fast as the machine
// goes.
func autoRun(t testing.TB, workers int) (*keyed.Scheduler, *fakeClock) {
	clk := &fakeClock{}
	s, err := keyed.NewWithHooks(keyed.Options{Clock: clk, Workers: workers}, keyed.Hooks{Idle: func() { clk.ToNextAlarm() }})
	if err != nil {
		t.Fatal(err)
	}
	return s, clk
}

// A timer that ran a million ticks holds no more memory than one that ran
// a thousand: tick statistics are not accumulated. The
// first measure comes after a thousand ticks, not ten, so that what the
// scheduler and the runtime allocate once (and what earlier tests leave
// to free) has settled.
func TestMemoryFlatOverAMillionTicks(t *testing.T) {
	n := int64(1_000_000)
	if raceOn || testing.Short() {
		n = 100_000
	}
	var count atomic.Int64
	var mu sync.Mutex
	const first = 1000
	marks := map[int64]chan struct{}{first: make(chan struct{}), n: make(chan struct{})}
	gate := make(chan struct{})
	s, _ := autoRun(t, 1)
	defer s.Close()
	_, err := s.Register(keyed.Config{Key: "k", Interval: ms, Callback: func(keyed.Fire) {
		c := count.Add(1)
		mu.Lock()
		ch := marks[c]
		mu.Unlock()
		if ch != nil {
			close(ch)
			if c == first {
				<-gate // hold the timer while the heap is measured
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	<-marks[first]
	atFirst := heapAlloc()
	close(gate)
	<-marks[n]
	atN := heapAlloc()
	t.Logf("heap after %d ticks %d, after %d ticks %d", first, atFirst, n, atN)
	// Any record kept per tick, one byte even, would add n bytes; the
	// bound leaves room for what the runtime and earlier tests free late.
	if bound := max(uint64(n)/4, 64<<10); atN > atFirst+bound {
		t.Fatalf("heap grew by %d bytes over %d ticks (bound %d)", atN-atFirst, n, bound)
	}
}

package scripting

import (
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
	"go.uber.org/goleak"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/temporal"
)

// Create-schedule-drop cycles must leave nothing behind: no goroutine and
// no live heap beyond maxCycleGrowth. The full counts take about a minute
// (a state costs about 0.6 ms to make and close, 1.5 ms under -race), so
// make test runs a tenth of the in-state cycles and a few hundred states;
// METRONOME_SOAK=1 (make soak) runs 100,000 of each.

const maxCycleGrowth = 10 << 20

// soak reports whether the full cycle counts were asked for.
func soak() bool { return os.Getenv("METRONOME_SOAK") != "" }

// cycleScript returns a function that runs n cycles of create, schedule a
// one-shot and an interval, and drop.
const cycleScript = `
local T = require "temporal"
local S = require "runtime-scheduler"
local clock = T.clock.fixed(T.instant.parse("2024-03-09T00:00:00Z"))
local d = T.duration{ milliseconds = 5 }
local f = function() end
return function(n)
	for _ = 1, n do
		local s = S.create{ clock = clock }
		s:schedule_once{ delay = d, callback = f }
		s:schedule_every{ interval = d, callback = f }
		s:drop()
	end
end`

// cycleState returns a new state with cycleScript's function on its stack.
func cycleState(t testing.TB) *lua.LState {
	h := hostservices.New(temporal.Fixed(fuzzEpoch))
	L := NewState(Options{Stdout: io.Discard, Now: fuzzEpoch.Time, Modules: HostModules(h, nil)})
	if err := L.DoString(cycleScript); err != nil {
		L.Close()
		t.Fatal(err)
	}
	return L
}

func runCycles(t testing.TB, L *lua.LState, n int) {
	L.Push(L.Get(-1))
	L.Push(lua.LNumber(n))
	if err := L.PCall(1, 0, nil); err != nil {
		t.Fatal(err)
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// baseline is what a run of cycles is measured against: the goroutines
// alive and the live heap before it.
type baseline struct {
	goroutines goleak.Option // ignores the goroutines alive before
	heap       uint64
}

func takeBaseline() baseline {
	return baseline{goroutines: goleak.IgnoreCurrent(), heap: liveHeap()}
}

// leftGoroutines reports the goroutines started since b that are still
// alive. Goroutines that end meanwhile (another test's, the runtime's
// finalizer goroutine) are waited for with goleak's bounded retries rather
// than compared by count at one instant.
func (b baseline) leftGoroutines() error { return goleak.Find(b.goroutines) }

// check fails t when goroutines are left or the live heap grew past what
// was measured before the cycles.
func (b baseline) check(t *testing.T, cycles int) {
	t.Helper()
	if err := b.leftGoroutines(); err != nil {
		t.Errorf("after %d cycles: %v", cycles, err)
	}
	after := liveHeap()
	growth := int64(after) - int64(b.heap)
	if growth > maxCycleGrowth {
		t.Errorf("after %d cycles the live heap grew by %d bytes (%d -> %d): want at most %d", cycles, growth, b.heap, after, maxCycleGrowth)
	}
	t.Logf("%d cycles: live heap %d -> %d bytes (%+d)", cycles, b.heap, after, growth)
}

// TestCreateScheduleDropCycles runs create-schedule-drop cycles in one state:
// dropped schedulers, their jobs and their callbacks' references must all
// be released.
func TestCreateScheduleDropCycles(t *testing.T) {
	defer goleak.VerifyNone(t)
	n := 10_000
	if soak() {
		n = 100_000
	}
	L := cycleState(t)
	defer L.Close()
	runCycles(t, L, 100) // warm up: caches that fill once (zones, metatables)
	b := takeBaseline()
	runCycles(t, L, n)
	b.check(t, n)
}

// TestStateCycles makes and closes a state per cycle, each running one
// create-schedule-drop cycle: closing a state releases all of it.
func TestStateCycles(t *testing.T) {
	defer goleak.VerifyNone(t)
	n := 300
	if soak() {
		n = 100_000
	}
	cycle := func() {
		L := cycleState(t)
		runCycles(t, L, 1)
		L.Close()
	}
	for range 20 {
		cycle()
	}
	b := takeBaseline()
	for range n {
		cycle()
	}
	b.check(t, n)
}

// TestBaselineGoroutines checks the goroutine part of the baseline: a
// goroutine alive at the baseline that ends before the check is no leak;
// one started after it and still running is.
func TestBaselineGoroutines(t *testing.T) {
	release := make(chan struct{})
	done := make(chan struct{})
	go func() { <-release; close(done) }()
	before := runtime.NumGoroutine()
	b := takeBaseline()
	close(release)
	<-done
	// Wait, bounded, until the goroutine has exited, so that the count is
	// below the baseline's.
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() >= before && time.Now().Before(deadline); {
		runtime.Gosched()
	}
	if err := b.leftGoroutines(); err != nil {
		t.Errorf("a goroutine that ended after the baseline: %v", err)
	}

	stop := make(chan struct{})
	ended := make(chan struct{})
	go func() { <-stop; close(ended) }()
	err := b.leftGoroutines()
	close(stop)
	<-ended
	if err == nil {
		t.Error("a goroutine started after the baseline and still running: no error")
	}
}

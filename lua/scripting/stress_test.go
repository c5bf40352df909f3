package scripting

import (
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/yuin/gopher-lua"
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

// checkBaseline fails t when goroutines or the live heap grew past what was
// measured before the cycles.
func checkBaseline(t *testing.T, cycles, goroutines int, heap uint64) {
	t.Helper()
	if n := runtime.NumGoroutine(); n != goroutines {
		t.Errorf("after %d cycles: %d goroutines, %d before", cycles, n, goroutines)
	}
	after := liveHeap()
	growth := int64(after) - int64(heap)
	if growth > maxCycleGrowth {
		t.Errorf("after %d cycles the live heap grew by %d bytes (%d -> %d): want at most %d", cycles, growth, heap, after, maxCycleGrowth)
	}
	t.Logf("%d cycles: live heap %d -> %d bytes (%+d)", cycles, heap, after, growth)
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
	goroutines, heap := runtime.NumGoroutine(), liveHeap()
	runCycles(t, L, n)
	checkBaseline(t, n, goroutines, heap)
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
	goroutines, heap := runtime.NumGoroutine(), liveHeap()
	for range n {
		cycle()
	}
	checkBaseline(t, n, goroutines, heap)
}

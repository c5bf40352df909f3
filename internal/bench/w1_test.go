package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
)

// TestIntervalsScriptMatchesShared checks that w1.lua is still the shared
// scene, byte for byte, when ../shared/bench/w1.lua is present (it is not in
// CI).
func TestIntervalsScriptMatchesShared(t *testing.T) {
	shared, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "bench", "w1.lua"))
	if err != nil {
		t.Skipf("no shared scene to compare with: %v", err)
	}
	if !bytes.Equal(shared, IntervalsScript) {
		t.Fatal("internal/bench/w1.lua differs from ../shared/bench/w1.lua: copy it again")
	}
}

func TestIntervalsScene(t *testing.T) {
	if got := IntervalsExpectedFires(10_000, 1); got != IntervalsFires10000x1 {
		t.Fatalf("IntervalsExpectedFires(10000, 1) = %d, want %d", got, IntervalsFires10000x1)
	}
	for _, iv := range IntervalsScene(10_000) {
		if iv.Period < 1000 || iv.Period >= 60_000 || iv.Phase < 0 || iv.Phase >= iv.Period {
			t.Fatalf("interval %+v out of range", iv)
		}
	}
}

// TestIntervalsPeers runs a small intervals scene on every peer: each must fire
// exactly as often as the closed form says. The full scene is checked by
// BenchmarkIntervals.
func TestIntervalsPeers(t *testing.T) {
	for _, c := range []struct {
		n     int
		hours float64
	}{{200, 0.25}, {50, 0.01}, {1, 1}} {
		want := IntervalsExpectedFires(c.n, c.hours)
		check := func(peer string, got int64, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s N=%d H=%v: %v", peer, c.n, c.hours, err)
			}
			if got != want {
				t.Errorf("%s N=%d H=%v: %d fires, want %d", peer, c.n, c.hours, got, want)
			}
		}
		got, err := RunIntervalsMetronomeGo(c.n, c.hours)
		check("metronome-go", got, err)
		got, err = RunIntervalsMetronomeGoKeyed(c.n, c.hours)
		check("metronome-go-keyed", got, err)
		got, err = RunIntervalsEventLoopGo(c.n, c.hours)
		check("metronome-go-event-loop", got, err)
		check("go-container-heap", RunIntervalsContainerHeap(c.n, c.hours), nil)
		got, err = RunIntervalsLua(IntervalsScript, "w1.lua", c.n, c.hours)
		check("metronome-lua", got, err)
		got, err = RunIntervalsLua(IntervalsEventLoopScript, "w1_eventloop.lua", c.n, c.hours)
		check("metronome-event-loop", got, err)
		got, err = RunIntervalsLua(IntervalsNoopScript, "w1_noop.lua", c.n, c.hours)
		check("metronome-lua-noop", got, err)
		got, err = RunIntervalsLua(IntervalsKeyedScript, "w1_keyed.lua", c.n, c.hours)
		check("metronome-lua-keyed", got, err)
		got, err = RunIntervalsLua(IntervalsKeyedTickScript, "w1_keyed_tick.lua", c.n, c.hours)
		check("metronome-lua-keyed-tick", got, err)
		got, err = RunIntervalsLua(IntervalsPureLuaScript, "w1_pure_lua.lua", c.n, c.hours)
		check("pure-lua-heap", got, err)
		synctest.Test(t, func(*testing.T) { got = RunIntervalsAfterFunc(c.n, c.hours) })
		check("afterfunc-synctest", got, nil)
	}
}

// BenchmarkIntervals runs the intervals scene (N=10000, H=1) once per iteration
// on each peer, checks the fire count and reports ns/fire: the whole scene
// (making the state or scheduler, scheduling, the advance) divided by the
// fires. afterfunc-synctest needs a synctest bubble, which a benchmark cannot
// open: `go run ./internal/bench/cmd/synctestpeers` prints its line.
func BenchmarkIntervals(b *testing.B) {
	const n, hours = 10_000, 1.0
	run := func(name string, scene func() (int64, error)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				fires, err := scene()
				if err != nil {
					b.Fatal(err)
				}
				if fires != IntervalsFires10000x1 {
					b.Fatalf("%s: %d fires, want %d", name, fires, IntervalsFires10000x1)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/IntervalsFires10000x1, "ns/fire")
		})
	}
	run("metronome-lua", func() (int64, error) { return RunIntervalsLua(IntervalsScript, "w1.lua", n, hours) })
	run("metronome-event-loop", func() (int64, error) { return RunIntervalsLua(IntervalsEventLoopScript, "w1_eventloop.lua", n, hours) })
	run("metronome-lua-keyed", func() (int64, error) { return RunIntervalsLua(IntervalsKeyedScript, "w1_keyed.lua", n, hours) })
	run("metronome-lua-keyed-tick", func() (int64, error) { return RunIntervalsLua(IntervalsKeyedTickScript, "w1_keyed_tick.lua", n, hours) })
	run("metronome-lua-noop", func() (int64, error) { return RunIntervalsLua(IntervalsNoopScript, "w1_noop.lua", n, hours) })
	run("metronome-go", func() (int64, error) { return RunIntervalsMetronomeGo(n, hours) })
	run("metronome-go-keyed", func() (int64, error) { return RunIntervalsMetronomeGoKeyed(n, hours) })
	run("metronome-go-event-loop", func() (int64, error) { return RunIntervalsEventLoopGo(n, hours) })
	run("pure-lua-heap", func() (int64, error) { return RunIntervalsLua(IntervalsPureLuaScript, "w1_pure_lua.lua", n, hours) })
	run("go-container-heap", func() (int64, error) { return RunIntervalsContainerHeap(n, hours), nil })
	b.Run("afterfunc-synctest", func(b *testing.B) {
		b.Skip("needs a testing/synctest bubble: measured by `go run ./internal/bench/cmd/synctestpeers` under this name")
	})
}

// TestLuaCallFloor checks that the floor's three calls run and report a
// time: the figures themselves are read by make bench-gate.
func TestLuaCallFloor(t *testing.T) {
	leaf, calling, resumed, err := LuaCallFloor(1000)
	if err != nil {
		t.Fatal(err)
	}
	if leaf <= 0 || calling <= 0 || resumed <= 0 {
		t.Fatalf("floor %v %v %v ns per call; want each > 0", leaf, calling, resumed)
	}
}

// TestLuaSetupFloor checks that the setup floor runs both scenes'
// statements and keeps one first callback per interval.
func TestLuaSetupFloor(t *testing.T) {
	for _, eventLoop := range []bool{false, true} {
		took, err := LuaSetupFloor(100, eventLoop)
		if err != nil {
			t.Fatalf("event loop %v: %v", eventLoop, err)
		}
		if took <= 0 {
			t.Fatalf("event loop %v: took %v; want > 0", eventLoop, took)
		}
	}
}

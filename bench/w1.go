package bench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// W1Fires10000x1 is the fire count of scene W1 for N = 10000, H = 1.
const W1Fires10000x1 = 2_560_973

// W1Script is scene W1 on runtime-scheduler: a byte-identical copy of
// ../shared/bench/w1.lua (TestW1ScriptMatchesShared checks it when that
// file is present).
//
//go:embed w1.lua
var W1Script []byte

// W1PureLuaScript is scene W1 on a binary-heap scheduler written in Lua.
//
//go:embed w1_pure_lua.lua
var W1PureLuaScript []byte

// W1NoopScript is scene W1 with empty interval callbacks (bench/w1_noop.lua):
// what a no-op Lua callback costs through advance.
//
//go:embed w1_noop.lua
var W1NoopScript []byte

// W1KeyedScript is scene W1 on keyed timers (bench/w1_keyed.lua): each
// interval a register-timer with its phase as the first delay.
//
//go:embed w1_keyed.lua
var W1KeyedScript []byte

// W1KeyedTickScript is W1KeyedScript with callbacks that take their tick
// (bench/w1_keyed_tick.lua): each fire also refills a tick table.
//
//go:embed w1_keyed_tick.lua
var W1KeyedTickScript []byte

// W1Interval is one interval of scene W1, in milliseconds.
type W1Interval struct {
	Period int64 // 1000 .. 59999
	Phase  int64 // 0 .. Period-1: the one-shot that creates the interval
}

// W1Scene returns the n intervals of scene W1, drawn as w1.lua draws them:
// a MINSTD generator with seed 42, the same float operations in the same
// order, so the values are identical.
func W1Scene(n int) []W1Interval {
	seed := int64(42)
	rnd := func() float64 {
		seed = seed * 48271 % 2147483647
		return float64(seed) / 2147483647
	}
	out := make([]W1Interval, n)
	for i := range out {
		period := 1000 + math.Floor(rnd()*59000)
		phase := math.Floor(rnd() * period)
		out[i] = W1Interval{Period: int64(period), Phase: int64(phase)}
	}
	return out
}

// W1EndMs is how far scene W1 advances for H hours: floor(H * 3600000) ms.
func W1EndMs(hours float64) int64 { return int64(math.Floor(hours * 3600000)) }

// W1ExpectedFires computes the fire count of scene W1 in closed form: per
// interval, the one-shot at its phase and one fire per period after it,
// up to and including the end.
func W1ExpectedFires(n int, hours float64) int64 {
	end, total := W1EndMs(hours), int64(0)
	for _, iv := range W1Scene(n) {
		if iv.Phase <= end {
			total += 1 + (end-iv.Phase)/iv.Period
		}
	}
	return total
}

// RunW1MetronomeGo runs scene W1 on sched.Scheduler with Go callbacks
// and returns the fire count.
func RunW1MetronomeGo(n int, hours float64) (int64, error) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	var fires int64
	cb := func() error { fires++; return nil }
	for _, iv := range W1Scene(n) {
		period := temporal.Duration(iv.Period) * temporal.Millisecond
		_, err := s.ScheduleOnce(temporal.Duration(iv.Phase)*temporal.Millisecond, func() error {
			fires++
			_, err := s.ScheduleEvery(sched.Every{Interval: period}, cb)
			return err
		})
		if err != nil {
			return 0, err
		}
	}
	err := s.Advance(temporal.Duration(W1EndMs(hours)) * temporal.Millisecond)
	return fires, err
}

// RunW1MetronomeGoKeyed runs scene W1 on sched keyed timers with one
// shared Go handler, each first due at its phase, and returns the fire
// count: the Go side of bench/w1_keyed.lua.
func RunW1MetronomeGoKeyed(n int, hours float64) (int64, error) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	var fires int64
	cb := func(*sched.Step) error { fires++; return nil }
	for i, iv := range W1Scene(n) {
		delay := temporal.Duration(iv.Phase) * temporal.Millisecond
		opts := sched.TimerOptions{Interval: temporal.Duration(iv.Period) * temporal.Millisecond, Delay: &delay}
		if _, err := s.RegisterTimer(strconv.Itoa(i), opts, cb); err != nil {
			return 0, err
		}
	}
	err := s.Advance(temporal.Duration(W1EndMs(hours)) * temporal.Millisecond)
	return fires, err
}

// RunW1ContainerHeap runs scene W1 on a HeapScheduler (milliseconds) with
// Go callbacks and returns the fire count.
func RunW1ContainerHeap(n int, hours float64) int64 {
	var s HeapScheduler
	var fires int64
	cb := func() { fires++ }
	for _, iv := range W1Scene(n) {
		period := iv.Period
		s.ScheduleOnce(iv.Phase, func() {
			fires++
			s.ScheduleEvery(period, cb)
		})
	}
	s.Advance(W1EndMs(hours))
	return fires
}

// RunW1Lua runs a W1 script (W1Script or W1PureLuaScript) with arguments
// n and hours in a state from scripting.NewState, and returns the fire count the
// script prints.
func RunW1Lua(script []byte, chunkname string, n int, hours float64) (int64, error) {
	return runW1Lua(script, chunkname, n, hours, scripting.Options{}, nil)
}

// runW1Lua is RunW1Lua on a state made with opts (its Stdout is the
// script's report) and then given to setup, when setup is not nil; what
// setup returns runs when the scene is done.
func runW1Lua(script []byte, chunkname string, n int, hours float64, opts scripting.Options, setup func(*lua.LState) (done func())) (int64, error) {
	var out bytes.Buffer
	opts.Stdout = &out
	L := scripting.NewState(opts)
	defer L.Close()
	if setup != nil {
		defer setup(L)()
	}
	fn, err := L.Load(bytes.NewReader(script), chunkname)
	if err != nil {
		return 0, err
	}
	L.Push(fn)
	L.Push(lua.LString(fmt.Sprint(n)))
	L.Push(lua.LString(fmt.Sprint(hours)))
	if err := scripting.PCall(L, 2, 0, nil); err != nil { // as metronome run runs a script
		return 0, err
	}
	var res struct {
		Fires *int64 `json:"fires"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Fires == nil {
		return 0, fmt.Errorf("%s printed %q: want one JSON object with \"fires\"", chunkname, out.String())
	}
	return *res.Fires, nil
}

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

// IntervalsFires10000x1 is the fire count of the intervals scene for N = 10000,
// H = 1.
const IntervalsFires10000x1 = 2_560_973

// IntervalsScript is the intervals scene on runtime-scheduler: a byte-identical
// copy of ../shared/bench/w1.lua (TestIntervalsScriptMatchesShared checks it
// when that file is present).
//
//go:embed w1.lua
var IntervalsScript []byte

// IntervalsPureLuaScript is the intervals scene on a binary-heap scheduler
// written in Lua.
//
//go:embed w1_pure_lua.lua
var IntervalsPureLuaScript []byte

// IntervalsNoopScript is the intervals scene with empty interval callbacks
// (w1_noop.lua): what a no-op Lua callback costs through advance.
//
//go:embed w1_noop.lua
var IntervalsNoopScript []byte

// IntervalsKeyedScript is the intervals scene on keyed timers (w1_keyed.lua):
// each interval a register-timer with its phase as the first delay.
//
//go:embed w1_keyed.lua
var IntervalsKeyedScript []byte

// IntervalsKeyedTickScript is IntervalsKeyedScript with callbacks that take
// their tick (w1_keyed_tick.lua): each fire also refills a tick table.
//
//go:embed w1_keyed_tick.lua
var IntervalsKeyedTickScript []byte

// Interval is one interval of the intervals scene, in milliseconds.
type Interval struct {
	Period int64 // 1000 .. 59999
	Phase  int64 // 0 .. Period-1: the one-shot that creates the interval
}

// IntervalsScene returns the n intervals of the intervals scene, drawn as
// w1.lua draws them: a MINSTD generator starting at 42, the same float
// operations in the same order, so the values are identical.
func IntervalsScene(n int) []Interval {
	x := int64(42)
	rnd := func() float64 {
		x = x * 48271 % 2147483647
		return float64(x) / 2147483647
	}
	out := make([]Interval, n)
	for i := range out {
		period := 1000 + math.Floor(rnd()*59000)
		phase := math.Floor(rnd() * period)
		out[i] = Interval{Period: int64(period), Phase: int64(phase)}
	}
	return out
}

// IntervalsEndMs is how far the intervals scene advances for H hours: floor(H *
// 3600000) ms.
func IntervalsEndMs(hours float64) int64 { return int64(math.Floor(hours * 3600000)) }

// IntervalsExpectedFires computes the fire count of the intervals scene in
// closed form: per interval, the one-shot at its phase and one fire per period
// after it, up to and including the end.
func IntervalsExpectedFires(n int, hours float64) int64 {
	end, total := IntervalsEndMs(hours), int64(0)
	for _, iv := range IntervalsScene(n) {
		if iv.Phase <= end {
			total += 1 + (end-iv.Phase)/iv.Period
		}
	}
	return total
}

// RunIntervalsMetronomeGo runs the intervals scene on sched.Scheduler with Go
// callbacks and returns the fire count.
func RunIntervalsMetronomeGo(n int, hours float64) (int64, error) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	var fires int64
	cb := func() error { fires++; return nil }
	for _, iv := range IntervalsScene(n) {
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
	err := s.Advance(temporal.Duration(IntervalsEndMs(hours)) * temporal.Millisecond)
	return fires, err
}

// RunIntervalsMetronomeGoKeyed runs the intervals scene on sched keyed timers
// with one shared Go handler, each first due at its phase, and returns the
// fire count: the Go side of w1_keyed.lua.
func RunIntervalsMetronomeGoKeyed(n int, hours float64) (int64, error) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	var fires int64
	cb := func(*sched.Step) error { fires++; return nil }
	for i, iv := range IntervalsScene(n) {
		delay := temporal.Duration(iv.Phase) * temporal.Millisecond
		opts := sched.TimerOptions{Interval: temporal.Duration(iv.Period) * temporal.Millisecond, Delay: &delay}
		if _, err := s.RegisterTimer(strconv.Itoa(i), opts, cb); err != nil {
			return 0, err
		}
	}
	err := s.Advance(temporal.Duration(IntervalsEndMs(hours)) * temporal.Millisecond)
	return fires, err
}

// RunIntervalsContainerHeap runs the intervals scene on a HeapScheduler
// (milliseconds) with Go callbacks and returns the fire count.
func RunIntervalsContainerHeap(n int, hours float64) int64 {
	var s HeapScheduler
	var fires int64
	cb := func() { fires++ }
	for _, iv := range IntervalsScene(n) {
		period := iv.Period
		s.ScheduleOnce(iv.Phase, func() {
			fires++
			s.ScheduleEvery(period, cb)
		})
	}
	s.Advance(IntervalsEndMs(hours))
	return fires
}

// RunIntervalsLua runs a script of the intervals scene (IntervalsScript or
// IntervalsPureLuaScript) with arguments n and hours in a state from
// scripting.NewState, and returns the fire count the script prints.
func RunIntervalsLua(script []byte, chunkname string, n int, hours float64) (int64, error) {
	return runIntervalsLua(script, chunkname, n, hours, scripting.Options{}, nil)
}

// runIntervalsLua is RunIntervalsLua on a state made with opts (its Stdout is
// the script's report) and then given to setup, when setup is not nil; what
// setup returns runs when the scene is done.
func runIntervalsLua(script []byte, chunkname string, n int, hours float64, opts scripting.Options, setup func(*lua.LState) (done func())) (int64, error) {
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

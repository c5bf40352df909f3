package bench

import (
	"context"
	"fmt"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/runtime/loop"
	"github.com/metronome-rt/metronome/temporal"
)

// RunIntervalsEventLoopGo runs the intervals scene on loop.Scheduler with Go
// callbacks (set_timeout at the phase, then set_interval) and returns the
// fire count: the Go side of w1_eventloop.lua.
func RunIntervalsEventLoopGo(n int, hours float64) (int64, error) {
	h := loop.NewSimpleHost(loop.NewVirtualClock(0))
	s := h.Scheduler()
	var fires int64
	cb := func(int) { fires++ }
	var err error
	for _, iv := range IntervalsScene(n) {
		period := temporal.Duration(iv.Period) * temporal.Millisecond
		_, e := s.SetTimer(func(int) {
			fires++
			if _, e := s.SetTimer(cb, period, true); e != nil && err == nil {
				err = e
			}
		}, temporal.Duration(iv.Phase)*temporal.Millisecond, false)
		if e != nil {
			return 0, e
		}
	}
	if e := loop.Advance(h, temporal.Duration(IntervalsEndMs(hours))*temporal.Millisecond); e != nil {
		return fires, e
	}
	return fires, err
}

// floorState is the floors' bare gopher-lua state, with a context as every
// budgeted or interruptible state has; done closes both.
func floorState() (L *lua.LState, ctx context.Context, done func()) {
	L = lua.NewState()
	ctx, cancel := context.WithCancel(context.Background())
	L.SetContext(ctx)
	return L, ctx, func() { cancel(); L.Close() }
}

// The callbacks of the Lua floor: the intervals scene's callback, and the
// calling scenes' callback that calls a function.
const floorScript = `
local fires = 0
local function bump() fires = fires + 1 end
leaf = function() fires = fires + 1 end
calling = function() bump() end
`

// LuaCallFloor is what the Lua side of a fire costs at the least: calls
// calls of the scene's callback by bare gopher-lua, on a state with a
// context (as every budgeted or interruptible state has), one warm function,
// no sandbox, no scheduler. It returns ns per call of the leaf callback by
// PCall, of the calling callback by PCall, and of the calling callback
// resumed as a coroutine on a reused thread (as a keyed callback that may
// wait is run).
func LuaCallFloor(calls int) (leaf, calling, resumed float64, err error) {
	L, ctx, done := floorState()
	defer done()
	if err := L.DoString(floorScript); err != nil {
		return 0, 0, 0, err
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(calls) }
	pcall := func(f *lua.LFunction) (float64, error) {
		start := time.Now()
		for range calls {
			L.Push(f)
			if err := L.PCall(0, 0, nil); err != nil {
				return 0, err
			}
		}
		return per(time.Since(start)), nil
	}
	fl := L.GetGlobal("leaf").(*lua.LFunction)
	fc := L.GetGlobal("calling").(*lua.LFunction)
	if leaf, err = pcall(fl); err != nil {
		return 0, 0, 0, err
	}
	if calling, err = pcall(fc); err != nil {
		return 0, 0, 0, err
	}
	from, _ := L.NewThread()
	th, _ := L.NewThread()
	th.SetContext(ctx) // not a derived context: one that ends with the thread
	start := time.Now()
	for range calls {
		st, err, _ := from.Resume(th, fc)
		if err != nil || st != lua.ResumeOK {
			return 0, 0, 0, fmt.Errorf("resume: %v (state %v)", err, st)
		}
		th.Dead = false
	}
	return leaf, calling, per(time.Since(start)), nil
}

// The intervals scenes' own statements, as w1.lua and w1_eventloop.lua run
// them, on stand-ins that do nothing: Temporal.duration returns its table,
// and the scheduling functions keep the first callbacks (keep) and drop the
// rest.
const setupFloorScript = `
local N, eventLoop, keep = ...
local seed = 42
local function rnd() seed = (seed * 48271) % 2147483647; return seed / 2147483647 end
local Temporal = { duration = duration }
local s = { schedule_once = keep, schedule_every = drop }
local loop = { set_timeout = keep, set_interval = drop }
local fires = 0
local function cb() fires = fires + 1 end
for _ = 1, N do
  local period = 1000 + math.floor(rnd() * 59000)
  local phase = math.floor(rnd() * period)
  if eventLoop then
    loop:set_timeout(function() cb(); loop:set_interval(cb, period) end, phase)
  else
    s:schedule_once{ delay = Temporal.duration{ milliseconds = phase }, callback = function()
      cb(); s:schedule_every{ interval = Temporal.duration{ milliseconds = period }, callback = cb } end }
  end
end
`

// LuaSetupFloor is what the intervals scene's own statements cost in bare
// gopher-lua, on a state with a context as LuaCallFloor's: the n draws,
// option tables and closures of the setup loop, and the n first callbacks,
// each of which makes the options of its interval. The scheduling
// functions are stand-ins that keep what they are given; the first
// callbacks are called as LuaCallFloor calls, so n of the scene's calls are
// counted twice (n in 2.5 million for N = 10000, H = 1). eventLoop picks
// w1_eventloop.lua's statements over w1.lua's. It returns the whole time.
func LuaSetupFloor(n int, eventLoop bool) (time.Duration, error) {
	L, _, done := floorState()
	defer done()
	var first []*lua.LFunction
	L.SetGlobal("duration", L.NewFunction(func(L *lua.LState) int { L.SetTop(1); return 1 }))
	L.SetGlobal("drop", L.NewFunction(func(*lua.LState) int { return 0 }))
	keep := L.NewFunction(func(L *lua.LState) int {
		switch v := L.Get(2).(type) {
		case *lua.LFunction:
			first = append(first, v)
		case *lua.LTable:
			first = append(first, v.RawGetString("callback").(*lua.LFunction))
		}
		return 0
	})
	fn, err := L.LoadString(setupFloorScript)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	L.Push(fn)
	L.Push(lua.LNumber(n))
	L.Push(lua.LBool(eventLoop))
	L.Push(keep)
	if err := L.PCall(3, 0, nil); err != nil {
		return 0, err
	}
	for _, f := range first {
		L.Push(f)
		if err := L.PCall(0, 0, nil); err != nil {
			return 0, err
		}
	}
	took := time.Since(start)
	if len(first) != n {
		return 0, fmt.Errorf("setup floor: %d first callbacks, want %d", len(first), n)
	}
	return took, nil
}

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
	L := lua.NewState()
	defer L.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	L.SetContext(ctx)
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

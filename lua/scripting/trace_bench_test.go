package scripting

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The cost of tracing: the fire and cancel paths of a runtime-scheduler
// and an event loop's tasks, with nothing observing (off: what every run
// without --trace pays) and with a trace on.

// benchChunk runs src in a fresh state and returns the global function
// step, which the benchmark calls b.N times.
func benchChunk(b *testing.B, setup func(*lua.LState), src string) (*lua.LState, *lua.LFunction) {
	b.Helper()
	L := NewState(Options{})
	if setup != nil {
		setup(L)
	}
	if err := L.DoString(src); err != nil {
		b.Fatal(err)
	}
	return L, L.GetGlobal("step").(*lua.LFunction)
}

func runSteps(b *testing.B, L *lua.LState, step *lua.LFunction, perStep int) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N / perStep {
		L.Push(step)
		if err := PCall(L, 0, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// 1,000 intervals of 1 ms; a step advances 10 ms: 10,000 fires. The trace
// is restarted each step, so the log does not grow across steps.
const traceFireScript = `
local Temporal = require "temporal"
local s = require("runtime-scheduler").create{ clock = Temporal.clock.fixed(Temporal.instant.parse("2000-01-01T00:00:00Z")) }
local ms = Temporal.duration{ milliseconds = 1 }
local ten = Temporal.duration{ milliseconds = 10 }
local function f() end
for i = 1, 1000 do s:schedule_every{ interval = ms, callback = f } end
function step()
  if TRACE then s:trace(true) end
  s:advance(ten)
end
`

func BenchmarkTraceFire(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "off", true: "on"}[on], func(b *testing.B) {
			L, step := benchChunk(b, func(L *lua.LState) { L.SetGlobal("TRACE", lua.LBool(on)) }, traceFireScript)
			defer L.Close()
			runSteps(b, L, step, 10_000)
		})
	}
}

// A step schedules 1,000 one-shots and cancels them.
const traceCancelScript = `
local Temporal = require "temporal"
local s = require("runtime-scheduler").create{ clock = Temporal.clock.fixed(Temporal.instant.parse("2000-01-01T00:00:00Z")) }
local d = Temporal.duration{ milliseconds = 5 }
local function f() end
local hs = {}
function step()
  if TRACE then s:trace(true) end
  for i = 1, 1000 do hs[i] = s:schedule_once{ delay = d, callback = f } end
  for i = 1, 1000 do hs[i]:cancel() end
end
`

func BenchmarkTraceCancel(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "off", true: "on"}[on], func(b *testing.B) {
			L, step := benchChunk(b, func(L *lua.LState) { L.SetGlobal("TRACE", lua.LBool(on)) }, traceCancelScript)
			defer L.Close()
			runSteps(b, L, step, 1000)
		})
	}
}

// 1,000 event-loop intervals of 1 ms; a step advances 10 ms: 10,000 tasks.
const loopTaskScript = `
local loop = require("event-loop").new()
local function f() end
for i = 1, 1000 do loop:set_interval(f, 1) end
function step() loop:advance(10) end
`

func BenchmarkLoopTask(b *testing.B) {
	b.Run("off", func(b *testing.B) {
		L, step := benchChunk(b, nil, loopTaskScript)
		defer L.Close()
		runSteps(b, L, step, 10_000)
	})
	benchLoopTaskTraced(b)
}

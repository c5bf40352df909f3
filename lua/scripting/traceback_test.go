package scripting

import (
	"runtime"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	lua "github.com/yuin/gopher-lua"
)

// A main chunk's runaway tail call ends in a traceback of three frames,
// its tail calls as one line, and writing it costs no memory per call.
func TestMainChunkTracebackOfATailCallRunaway(t *testing.T) {
	L, _ := budgetState(t, Options{Budget: testBudget})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := chunk(t, L, "local function f() return f() end\nf()")
	runtime.ReadMemStats(&after)
	luaeval.WantErr(t, err, "budget: main chunk f.lua ran past its 50ms budget")
	tb, _ := Traceback(err)
	want := "stack traceback:\n" +
		"\tf.lua:1: in function <f.lua:1>\n" +
		"\t(tail call): ?\n" +
		"\tf.lua:2: in main chunk"
	if tb != want {
		t.Errorf("traceback:\n%s\nwant:\n%s", tb, want)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("the run allocated %d bytes; want the traceback to cost none per tail call", grew)
	}
}

// maxTraceLevels is the most frames a traceback lists (sandbox.WalkStack).
const maxTraceLevels = 40

// A traceback lists at most maxTraceLevels frames, then "...".
func TestTracebackIsCapped(t *testing.T) {
	L, _ := budgetState(t, Options{})
	err := chunk(t, L, "local function f(n) if n == 0 then error('deep') end f(n - 1) end\nf(100)")
	tb, _ := Traceback(err)
	lines := strings.Split(tb, "\n")
	if len(lines) != maxTraceLevels+2 || lines[len(lines)-1] != "\t..." || lines[1] != "\t[G]: in function 'error'" {
		t.Errorf("traceback of %d lines:\n%s\nwant the heading, %d frames and ...", len(lines), tb, maxTraceLevels)
	}
}

// A callback that returns a call's result lost its frame to the tail
// call: the traceback says so in one line and goes on with its caller.
func TestCallbackTracebackThroughATailCall(t *testing.T) {
	L, h := budgetState(t, Options{})
	if err := chunk(t, L, `
local function boom() error("boom") end
local function g() return boom() end
require("app-host").scheduler:schedule_once{ delay = require("temporal").duration{ milliseconds = 1 }, callback = function()
	local x = g()
	return x
end }`); err != nil {
		t.Fatal(err)
	}
	err := Drain(L, "update", func() error { return h.Update(1) })
	tb, _ := Traceback(err)
	want := "stack traceback:\n" +
		"\t[G]: in function 'error'\n" +
		"\tf.lua:2: in function <f.lua:2>\n" +
		"\t(tail call): ?\n" +
		"\tf.lua:5: in function <f.lua:4>\n" +
		"\t[job] once #1 scheduled at f.lua:4"
	if tb != want {
		t.Errorf("traceback:\n%s\nwant:\n%s", tb, want)
	}
}

// An error that escapes a handler's PCall (a registry overflow) after a
// long run of tail calls also gets a bounded traceback.
func TestEscapedOverflowTracebackAfterTailCalls(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	fn, err := L.LoadString(`
local function fill() ` + fillStack + ` end
local function spin(n) if n == 0 then return fill() end return spin(n - 1) end
spin(2000000)`)
	if err != nil {
		t.Fatal(err)
	}
	handler := L.NewFunction(func(L *lua.LState) int { L.Push(L.Get(1)); return 1 })
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	L.Push(fn)
	err = PCall(L, 0, 0, handler)
	runtime.ReadMemStats(&after)
	api, ok := err.(*lua.ApiError)
	if !ok || !strings.Contains(err.Error(), "registry overflow") {
		t.Fatalf("PCall = %v, want a registry overflow", err)
	}
	if n := strings.Count(api.StackTrace, "\n"); n > maxTraceLevels+1 || !strings.HasSuffix(api.StackTrace, "\n\t...") {
		t.Errorf("traceback of %d lines:\n%s\nwant %d frames, then ...", n, api.StackTrace, maxTraceLevels)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("the call allocated %d bytes; want the traceback to cost none per tail call", grew)
	}
}

package scripting

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/lua/sandbox"
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
	wantErr(t, err, "budget: main chunk f.lua ran past its 50ms budget")
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

// An error object's __tostring runs with a budget of its own: one that
// never returns gives the object's type and the budget error.
func TestErrorTextOfAToStringThatLoops(t *testing.T) {
	obj := "return setmetatable({}, { __tostring = function() while true do end end })"
	for name, opts := range map[string]Options{
		"budget":    {Budget: testBudget},
		"no budget": {},
	} {
		t.Run(name, func(t *testing.T) {
			L, _ := budgetState(t, opts)
			fn, err := sandbox.Compile(L, obj, "f.lua")
			if err != nil {
				t.Fatal(err)
			}
			L.Push(fn)
			if err := PCall(L, 0, 1, nil); err != nil {
				t.Fatal(err)
			}
			v := L.Get(-1)
			L.Pop(1)
			got := sandbox.ErrorText(L, v)
			want := "(error object is a table value whose __tostring failed: f.lua:1: budget: function <f.lua:1> ran past its 50ms budget)"
			if opts.Budget == 0 {
				want = "(error object is a table value whose __tostring failed: f.lua:1: context deadline exceeded)"
			}
			if got != want {
				t.Errorf("sandbox.ErrorText = %q, want %q", got, want)
			}
			// The state goes on.
			if err := chunk(t, L, `x = 1`); err != nil {
				t.Fatalf("next chunk: %v", err)
			}
		})
	}
}

// sandbox.ErrorText cuts a long text and copies what it keeps.
func TestErrorTextIsCut(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	big := strings.Repeat("é", sandbox.MaxErrorText)
	got := sandbox.ErrorText(L, lua.LString(big))
	if want := strings.Repeat("é", sandbox.MaxErrorText/2) + "…(32768 bytes)"; got != want {
		t.Errorf("sandbox.ErrorText of %d bytes = %d bytes %q...; want %d", len(big), len(got), got[len(got)-30:], len(want))
	}
	if got := sandbox.ErrorText(L, lua.LString("short")); got != "short" {
		t.Errorf("sandbox.ErrorText(short) = %q", got)
	}
	doString(t, L, `obj = setmetatable({}, { __tostring = function() return ("y"):rep(1e6) end })
bad = setmetatable({}, { __tostring = function() return {} end })`)
	if got := sandbox.ErrorText(L, L.GetGlobal("obj")); len(got) > sandbox.MaxErrorText+20 || !strings.HasSuffix(got, "…(1000000 bytes)") {
		t.Errorf("sandbox.ErrorText of a 1e6-byte __tostring: %d bytes ending %q", len(got), got[len(got)-20:])
	}
	if got, want := sandbox.ErrorText(L, L.GetGlobal("bad")), "(error object is a table value whose __tostring failed: '__tostring' must return a string, got a table value)"; got != want {
		t.Errorf("sandbox.ErrorText = %q, want %q", got, want)
	}
}

// sandbox.CheckBudget raises the budget error once a budget has run out, and
// does nothing before.
func TestCheckBudget(t *testing.T) {
	L, _ := budgetState(t, Options{Budget: testBudget})
	L.SetGlobal("work", L.NewFunction(func(L *lua.LState) int {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			sandbox.CheckBudget(L)
		}
		return 0
	}))
	wantErr(t, chunk(t, L, `work()`), "budget: main chunk f.lua ran past its 50ms budget")
	sandbox.CheckBudget(L) // no call open: nothing to raise
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

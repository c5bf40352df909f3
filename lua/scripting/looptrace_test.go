package scripting

import (
	"fmt"
	"slices"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// loopTraceScript makes two loops, the first before the trace is set: the
// sink sees both, each task once, just before it runs, with where it was
// set; the task hook and a source's ready are not tasks.
const loopTraceScript = `
local EventLoop = require "event-loop"
local a = EventLoop.new()
set_trace()
local b = EventLoop.new()
a:set_timeout(function() a:queue_microtask(function() end) end, 3)
a:set_task_hook(function() end)
local iv = a:set_interval(function() end, 2)
a:set_timeout(function() a:clear_interval(iv) end, 5)
b:queue_task(function() end)
b:request_animation_frame(function() end)
local ran = false
b:register_source{ name = "net", class = "turn", ready = function() return not ran end,
  run = function() ran = true end }
a:advance(6)
b:advance(20)
clear_trace()
a:set_timeout(function() end, 1)
a:advance(1)
`

func TestSetLoopTrace(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	var got []string
	L.SetGlobal("set_trace", L.NewFunction(func(L *lua.LState) int {
		SetLoopTrace(L, func(e LoopEvent) {
			got = append(got, fmt.Sprintf("loop %d at %v: %s #%d %s", e.Loop, e.At.Std(), e.Kind, e.ID, e.Label))
		})
		return 0
	}))
	L.SetGlobal("clear_trace", L.NewFunction(func(L *lua.LState) int { SetLoopTrace(L, nil); return 0 }))
	fn, err := L.LoadString(loopTraceScript)
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	if err := PCall(L, 0, 0, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"loop 1 at 2ms: interval #2 <string>:8",
		"loop 1 at 3ms: timeout #1 <string>:6",
		"loop 1 at 3ms: microtask #0 <string>:6",
		"loop 1 at 4ms: interval #2 <string>:8",
		"loop 1 at 5ms: timeout #3 <string>:9",
		"loop 2 at 0s: task #0 <string>:10",
		"loop 2 at 0s: source #0 net",
		"loop 2 at 16ms: frame #1 <string>:11",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("traced\n%q\nwant\n%q", got, want)
	}
}

// Timers set at one place with one callback share their fire function
// (timerFire) and stay separate timers: each fires as its own id, a
// cleared one stops alone, a timeout set at that place with that callback
// is still a timeout, and a timer with extra arguments gets them.
func TestTimersSharingACallbackFireApart(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	var got []string
	SetLoopTrace(L, func(e LoopEvent) {
		got = append(got, fmt.Sprintf("%v %s #%d %s", e.At.Std(), e.Kind, e.ID, e.Label))
	})
	err := L.DoString(`
local loop = require("event-loop").new()
local seen = {}
local function cb(x) seen[#seen + 1] = tostring(x) end
local ids = {}
for i = 1, 3 do
  ids[i] = loop:set_interval(cb, 2)
end
local function set(repeat_, ...) if repeat_ then return loop:set_interval(cb, 3, ...) end return loop:set_timeout(cb, 3, ...) end
set(false)
set(false, "arg")
loop:clear_interval(ids[2])
loop:advance(4)
result = table.concat(seen, ",")`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"2ms interval #1 <string>:7", "2ms interval #3 <string>:7",
		"3ms timeout #4 <string>:9", "3ms timeout #5 <string>:9",
		"4ms interval #1 <string>:7", "4ms interval #3 <string>:7",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("traced\n%q\nwant\n%q", got, want)
	}
	if r := L.GetGlobal("result").String(); r != "nil,nil,nil,arg,nil,nil" {
		t.Fatalf("callback arguments %q, want nil,nil,nil,arg,nil,nil", r)
	}
}

// timerFire reuses the last fire function for the same callback, place and
// kind without extra arguments, and makes a new one for anything else.
func TestTimerFireReusesTheLastOne(t *testing.T) {
	_, f, g := twoFunctions(t)
	ptr := closureAddr[func(int)]
	l := &luaLoop{}
	first := ptr(l.timerFire(f, "a.lua:1", true, nil))
	if ptr(l.timerFire(f, "a.lua:1", true, nil)) != first {
		t.Fatal("the same callback, place and kind made two fire functions")
	}
	for name, fire := range map[string]func(int){
		"another callback": l.timerFire(g, "a.lua:1", true, nil),
		"another place":    l.timerFire(f, "a.lua:2", true, nil),
		"a timeout":        l.timerFire(f, "a.lua:1", false, nil),
		"extra arguments":  l.timerFire(f, "a.lua:1", true, []lua.LValue{lua.LTrue}),
	} {
		if ptr(fire) == first {
			t.Errorf("%s reused the interval's fire function", name)
		}
	}
}

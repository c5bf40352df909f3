package scripting

import (
	"fmt"
	"slices"
	"testing"

	"github.com/yuin/gopher-lua"
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

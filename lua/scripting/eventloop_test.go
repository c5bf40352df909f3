package scripting

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/metronome-rt/metronome/temporal"
)

func runLoopChunk(t *testing.T, opts Options, src string) error {
	t.Helper()
	L := NewState(opts)
	defer L.Close()
	fn, err := L.LoadString(src)
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	return PCall(L, 0, 0, nil)
}

// A callback that runs away meets the budget of the chunk that runs the
// loop: on_error does not see it and the run ends with it.
func TestEventLoopCallbackBudget(t *testing.T) {
	err := runLoopChunk(t, Options{Budget: 20 * time.Millisecond}, `
		local el = require("event-loop").new()
		el:on_error(function() error("on_error saw a budget error") end)
		el:set_timeout(function() while true do end end, 1)
		el:run(10)
	`)
	if err == nil || !strings.Contains(err.Error(), "budget") || strings.Contains(err.Error(), "on_error saw") {
		t.Fatalf("err = %v", err)
	}
}

// The drain budget ends a window that never ends by itself.
func TestEventLoopDrainBudget(t *testing.T) {
	err := runLoopChunk(t, Options{DrainBudget: 30 * time.Millisecond}, `
		local el = require("event-loop").new()
		el:set_interval(function() end, 0)
		el:advance(1e12)
	`)
	if err == nil || !strings.Contains(err.Error(), "advance") || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("err = %v", err)
	}
}

func TestEventLoopWallClock(t *testing.T) {
	fixed := temporal.Fixed(hostEpoch)
	src := `require("event-loop").new{ clock = "real" }`
	if err := runLoopChunk(t, Options{Clock: fixed}, src); err == nil || !strings.Contains(err.Error(), "--allow-wallclock") {
		t.Fatalf("refused: err = %v", err)
	}
	if err := runLoopChunk(t, Options{Clock: fixed, AllowWallClock: true}, src); err != nil {
		t.Fatal(err)
	}
}

// On the real clock run(until) sleeps until each item, on one timer.
func TestEventLoopRealClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		err := runLoopChunk(t, Options{}, `
			local el = require("event-loop").new{ clock = "real" }
			local log = {}
			el:set_timeout(function() log[#log + 1] = "a@" .. el:now() end, 100)
			el:set_timeout(function() log[#log + 1] = "b@" .. el:now() end, 250)
			el:run(200)
			assert(table.concat(log, " ") == "a@100", table.concat(log, " "))
			el:run(1000)
			assert(table.concat(log, " ") == "a@100 b@250", table.concat(log, " "))
			local ok, e = pcall(el.advance, el, 5)
			assert(not ok and e:match("real clock"), e)
		`)
		if err != nil {
			t.Fatal(err)
		}
	})
}

// A Lua source's errors are reported like a task's; a bad deadline too.
func TestEventLoopSourceErrors(t *testing.T) {
	err := runLoopChunk(t, Options{}, `
		local el = require("event-loop").new()
		local seen = {}
		el:on_error(function(msg) seen[#seen + 1] = tostring(msg):match("ready failed") or tostring(msg):match("deadline must return") end)
		el:register_source{ name = "bad", class = "turn", ready = function() error("ready failed") end, run = function() end }
		el:register_source{ name = "late", class = "batch", ready = function() return false end, run = function() end,
			deadline = function() return "soon" end }
		el:run(0)
		assert(#seen >= 2, #seen)
	`)
	if err != nil {
		t.Fatal(err)
	}
}

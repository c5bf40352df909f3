package scripting

import (
	"strings"
	"testing"
	"testing/synctest"

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
	err := runLoopChunk(t, Options{Budget: 20 * temporal.Millisecond}, `
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
	err := runLoopChunk(t, Options{DrainBudget: 30 * temporal.Millisecond}, `
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

// run-all's loop limit counts microtasks: past it the error names the
// microtask and what did not run stays queued.
func TestEventLoopLimitCountsMicrotasks(t *testing.T) {
	err := runLoopChunk(t, Options{DrainBudget: 300 * temporal.Millisecond}, `
		local loop = require("event-loop").new()
		local n = 0
		for i = 1, 120 do loop:queue_microtask(function() n = n + 1 end) end
		local ok, err = pcall(loop.run_all, loop, { loop_limit = 100 })
		assert(not ok, "120 microtasks ran under a limit of 100")
		assert(n == 100 and loop:count() == 20, "ran " .. n .. ", left " .. loop:count())
		assert(err:find("run-all: more than 100 tasks and microtasks ran and work is still pending; the last was the microtask queued at <string>:4", 1, true), err)
		loop:run_microtasks()
		assert(n == 120 and loop:count() == 0)

		local function again() loop:queue_microtask(again) end
		loop:queue_microtask(again)
		ok, err = pcall(loop.run_all, loop, { loop_limit = 1000 })
		assert(not ok and err:find("more than 1000 tasks and microtasks ran", 1, true)
			and err:find("the last was the microtask queued at <string>:12", 1, true), tostring(err))
		ok, err = pcall(loop.run_microtasks, loop)
		assert(not ok and err:find("run-microtasks: more than 10000 tasks", 1, true), tostring(err))
	`)
	if err != nil {
		t.Fatal(err)
	}
}

// A timer that queues a microtask that sets a 0 ms timer (never clamped)
// never lets time move: every verb that moves time stops at the loop
// limit at that instant instead of running until the budget.
func TestEventLoopZeroDelayChainStops(t *testing.T) {
	for _, c := range []struct{ verb, now string }{
		{"run(1000)", "0"}, {"advance(1000)", "0"}, {"run_to_last()", "0"}, {"jump(1000)", "1000"},
		{"run_all()", "0"}, {"run_to_frame()", "0"},
	} {
		verb := c.verb
		t.Run(verb, func(t *testing.T) {
			err := runLoopChunk(t, Options{DrainBudget: 300 * temporal.Millisecond}, `
				local loop = require("event-loop").new()
				local function chain()
					loop:queue_microtask(function() loop:set_timeout(chain, 0) end)
				end
				loop:set_timeout(chain, 0)
				loop:set_timeout(function() end, 1000)
				local ok, err = pcall(function() return loop:`+verb+` end)
				assert(not ok, "the chain ran on")
				assert(err:find("more than 10000 tasks and microtasks ran", 1, true), err)
				assert(err:find("the last was the", 1, true), err)
				assert(loop:count() > 0 and loop:now() == `+c.now+`, "count " .. loop:count() .. ", now " .. loop:now())
			`)
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// next runs one timer and the microtasks after it: a microtask that
// queues the next forever stops at the loop limit too.
func TestEventLoopNextStopsAMicrotaskChain(t *testing.T) {
	err := runLoopChunk(t, Options{DrainBudget: 300 * temporal.Millisecond}, `
		local loop = require("event-loop").new{ loop_limit = 50 }
		local function again() loop:queue_microtask(again) end
		loop:set_timeout(function() loop:queue_microtask(again) end, 5)
		local ok, err = pcall(loop.next, loop)
		assert(not ok and err:find("next: more than 50 tasks and microtasks ran at 5 ms", 1, true)
			and err:find("the last was the microtask queued at <string>:3", 1, true), tostring(err))
		assert(loop:count() == 1 and loop:now() == 5)
	`)
	if err != nil {
		t.Fatal(err)
	}
}

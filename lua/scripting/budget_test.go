package scripting

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/temporal"
)

const testBudget = 50 * temporal.Millisecond

// budgetState is a state on a host of its own with opts' budgets, closed
// with the test. os.clock reads the host's time, which nothing moves.
func budgetState(t *testing.T, opts Options) (*lua.LState, *hostservices.Host) {
	t.Helper()
	h := hostservices.New(temporal.Fixed(hostEpoch))
	opts.Modules = HostModules(h, nil)
	opts.CPUClock = func() float64 { return h.Scheduler().Elapsed().Std().Seconds() }
	L := NewState(opts)
	t.Cleanup(L.Close)
	return L, h
}

// chunk runs src as the main chunk "f.lua" under the budget.
func chunk(t *testing.T, L *lua.LState, src string) error {
	t.Helper()
	fn, err := sandbox.Compile(L, src, "f.lua")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	return PCall(L, 0, 0, nil)
}

// Each runaway in a main chunk ends in a budget error, past pcall,
// xpcall and coroutines.
func TestBudgetStopsRunawayMainChunk(t *testing.T) {
	runaways := map[string]string{
		"loop":               `while true do end`,
		"tail call":          `local function f() return f() end f()`,
		"os.clock busy-wait": `local t = os.clock() while os.clock() - t < 1 do end`,
		"pcall":              `while true do pcall(function() while true do end end) end`,
		"pcall of error":     `while true do pcall(error, "x") end`,
		"xpcall":             `while true do xpcall(function() while true do end end, function(e) return e end) end`,
		"resume":             `while true do coroutine.resume(coroutine.create(function() while true do end end)) end`,
		"wrap in pcall":      `while true do pcall(coroutine.wrap(function() while true do end end)) end`,
		"yielding coroutine": `local co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do pcall(co) end`,
		"string.find":        `string.find(("a"):rep(5000), ("a-"):rep(5) .. "b")`,
		"string.match":       `local s = ("a"):rep(5000) while true do pcall(string.match, s, ("a-"):rep(5) .. "b") end`,
		"string.gsub":        `string.gsub(("a"):rep(5000), ("a-"):rep(5) .. "b", "")`,
		"string.gmatch":      `for _ in string.gmatch(("a"):rep(5000), ("a-"):rep(5) .. "b") do end`,
		// A million occurrences, each rrule-go's step through a minute;
		// two centuries of minutes stepped through to reach after.
		"occurrences": `local Temporal = require "temporal"; local rs = Temporal.recurrence_set{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=SECONDLY;BYSECOND=0" }
			rs:occurrences{ zone_id = "UTC", limit = 1000000 }`,
		"occurrences after": `local Temporal = require "temporal"; local rs = Temporal.recurrence_set{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=MINUTELY;BYSECOND=0,30" }
			rs:occurrences{ zone_id = "UTC", limit = 1, after = Temporal.instant.parse("2250-01-01T00:00:00Z") }`,
	}
	for name, src := range runaways {
		t.Run(name, func(t *testing.T) {
			L, _ := budgetState(t, Options{Budget: testBudget})
			luaeval.WantErr(t, chunk(t, L, src), "budget: main chunk f.lua ran past its 50ms budget")
			// The state goes on: the next chunk runs with a budget of its own.
			if err := chunk(t, L, `x = 1`); err != nil {
				t.Fatalf("next chunk: %v", err)
			}
		})
	}
}

// rs:occurrences stops inside its Go call once the budget has run out,
// rather than finishing the expansion for the VM to stop after it.
func TestOccurrencesStopWithTheBudget(t *testing.T) {
	L, _ := budgetState(t, Options{Budget: testBudget})
	returned := -1
	L.SetGlobal("after_budget", L.NewFunction(func(L *lua.LState) int {
		stopped := sandbox.StopCheck(L)
		for deadline := time.Now().Add(time.Minute); !stopped() && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		if !stopped() {
			t.Error("the budget did not run out within a minute")
		}
		// The VM has not seen the budget run out: only occurrences can.
		L.Push(L.Get(1))
		L.Push(L.Get(2))
		L.Push(L.Get(3))
		L.Call(2, 1)
		returned = L.Get(-1).(*lua.LTable).Len()
		return 0
	}))
	err := chunk(t, L, `local Temporal = require "temporal"; local rs = Temporal.recurrence_set{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=SECONDLY;BYHOUR=12;BYMINUTE=0;BYSECOND=0" }
		after_budget(rs.occurrences, rs, { zone_id = "UTC", limit = 1000 })`)
	luaeval.WantErr(t, err, "budget: main chunk f.lua ran past its 50ms budget")
	if returned >= 0 {
		t.Errorf("occurrences returned %d occurrences after the budget ran out; want the budget error", returned)
	}
}

// A rule that matches once a day is expanded a day at a time, not a second
// at a time: a million of its occurrences reach past 2262 within the budget.
func TestOccurrencesOnceADay(t *testing.T) {
	L, _ := budgetState(t, Options{Budget: temporal.Second})
	err := chunk(t, L, `local Temporal = require "temporal"
		local rs = Temporal.recurrence_set{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=SECONDLY;BYHOUR=12;BYMINUTE=0;BYSECOND=0" }
		rs:occurrences{ zone_id = "UTC", limit = 1000000 }`)
	luaeval.WantErr(t, err, "f.lua:3: occurrences: local time 2262-04-12T12:00:00 in UTC is outside the Instant range")
}

// A callback's runaway names the callback; the scheduler goes on, and the
// jobs pending are still there.
func TestBudgetStopsRunawayCallback(t *testing.T) {
	L, h := budgetState(t, Options{Budget: testBudget})
	err := chunk(t, L, `
		local s = require("app-host").scheduler
		ran = 0
		s:schedule_once{ delay = require("temporal").duration{ milliseconds = 1 }, callback = function()
			while true do end
		end }
		s:schedule_every{ interval = require("temporal").duration{ milliseconds = 1 }, callback = function() ran = ran + 1 end }
	`)
	if err != nil {
		t.Fatal(err)
	}
	err = Drain(L, "update", func() error { return h.Update(1) })
	luaeval.WantErr(t, err, "f.lua:5:", "budget: callback function <f.lua:4> ran past its 50ms budget")
	if tb, _ := Traceback(err); !strings.Contains(tb, "[job] once #1 scheduled at f.lua:4") {
		t.Fatalf("traceback %q: want the job named", tb)
	}
	if n := h.Scheduler().Count(); n != 1 {
		t.Fatalf("%d jobs pending after the error; want the interval", n)
	}
	if err := Drain(L, "update", func() error { return h.Update(2) }); err != nil {
		t.Fatalf("next update: %v", err)
	}
	// The interval's ticks at 1, 2 and 3 ms: none lost to the error.
	if ran := L.GetGlobal("ran"); ran != lua.LNumber(3) {
		t.Fatalf("the interval ran %v times; want 3", ran)
	}
}

// A nested call gets what is left of the outer budget: a callback run by
// an advance inside a main chunk stops with the main chunk's budget.
func TestBudgetNestedCallGetsTheRest(t *testing.T) {
	L, _ := budgetState(t, Options{Budget: testBudget})
	err := chunk(t, L, `
		local s = require("runtime-scheduler").create{ clock = require("temporal").clock.fixed(require("temporal").instant["from-epoch-ms"](0)) }
		s:schedule_once{ delay = require("temporal").duration{ milliseconds = 1 }, callback = function() while true do end end }
		pcall(s.advance, s, require("temporal").duration{ milliseconds = 1 })
		while true do end
	`)
	luaeval.WantErr(t, err, "budget: main chunk f.lua ran past its 50ms budget")
}

// The drain budget bounds one advance, update or step however short each
// callback is.
func TestDrainBudgetStopsEndlessDrains(t *testing.T) {
	drains := map[string]string{
		"1ns re-arm": `
			local T = require "temporal"
			local s = require("runtime-scheduler").create{ clock = T.clock.fixed(T.instant["from-epoch-ms"](0)) }
			local function rearm() s:schedule_once{ delay = T.duration{ nanoseconds = 1 }, callback = rearm } end
			rearm()
			s:advance(T.duration{ seconds = 10 })`,
		"schedule_every 1ns": `
			local T = require "temporal"
			local s = require("app-host").scheduler
			s:schedule_every{ interval = T.duration{ nanoseconds = 1 }, callback = function() end }
			s:update(10000)`,
		"runtime-timers 1e-6 ms": `
			require("runtime-timers").Interval{ ["interval-ms"] = 1e-6, callback = function() end }
			require("app-host").scheduler:step(10000)`,
	}
	for name, src := range drains {
		t.Run(name, func(t *testing.T) {
			L, _ := budgetState(t, Options{Budget: temporal.Hour, DrainBudget: testBudget})
			luaeval.WantErr(t, chunk(t, L, src), "drain budget:", "ran past its 50ms budget after", "callbacks")
		})
	}
}

// pcall around the drain cannot keep it going.
func TestDrainBudgetPassesPcall(t *testing.T) {
	L, h := budgetState(t, Options{DrainBudget: testBudget})
	if err := chunk(t, L, `
		local T = require "temporal"
		require("app-host").scheduler:schedule_every{ interval = T.duration{ nanoseconds = 1 }, callback = function() pcall(function() end) end }`); err != nil {
		t.Fatal(err)
	}
	err := Drain(L, "step", func() error { return h.Update(1000) })
	// The job that was firing, or about to, names itself.
	luaeval.WantErr(t, err, "every #1 scheduled at f.lua:3: ", "drain budget: step ran past its 50ms budget after")
}

// Cancelling Options.Context stops Lua at its next instruction.
func TestContextInterruptsLua(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	L, _ := budgetState(t, Options{Context: ctx})
	L.SetGlobal("started", L.NewFunction(func(*lua.LState) int { close(started); return 0 }))
	go func() { <-started; cancel() }()
	err := chunk(t, L, `started() while true do pcall(function() while true do end end) end`)
	luaeval.WantErr(t, err, "interrupted: context canceled")
	// Every later call stops at once.
	luaeval.WantErr(t, chunk(t, L, `x = 1`), "interrupted")
}

// Coroutines resumed inside one another stop at a bound, before the Go
// stack runs out.
func TestResumeNestingIsBounded(t *testing.T) {
	L, _ := budgetState(t, Options{})
	err := chunk(t, L, `local function f() coroutine.wrap(f)() end f()`)
	luaeval.WantErr(t, err, "more than 200 coroutines resumed inside one another")
	if err := chunk(t, L, `local co = coroutine.wrap(function() return 7 end) assert(co() == 7)`); err != nil {
		t.Fatal(err)
	}
}

// Without budgets the state has no context: the VM runs its plain loop.
func TestNoBudgetNoContext(t *testing.T) {
	L, _ := budgetState(t, Options{})
	if L.Context() != nil || sandbox.StopCheck(L) != nil {
		t.Fatal("a state without budgets has a context")
	}
	L2, _ := budgetState(t, Options{Budget: temporal.Second})
	if L2.Context() == nil {
		t.Fatal("a state with a budget has no context")
	}
}

// A cancelled Options.Context cancels the state's context with its cause.
func TestBudgetContextCarriesTheCause(t *testing.T) {
	parent, cancel := context.WithCancelCause(context.Background())
	L, _ := budgetState(t, Options{Context: parent})
	cause := errors.New("shutting down")
	cancel(cause)
	select {
	case <-L.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the state's context is not done 10s after its parent")
	}
	if err := L.Context().Err(); !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
		t.Fatalf("Err = %v; want context.Canceled and the cause", err)
	}
	luaeval.WantErr(t, chunk(t, L, `x = 1`), "interrupted: shutting down")
}

// A DrainSpan's calls share one drain budget: a runner's 1 ns steps, each
// one callback long, stop together, and Restart gives a fresh budget.
func TestDrainSpanBoundsStepsTogether(t *testing.T) {
	L, h := budgetState(t, Options{DrainBudget: testBudget})
	if err := chunk(t, L, `
		local T = require "temporal"
		local s = require("app-host").scheduler
		function again() s:schedule_once{ delay = T.duration{ nanoseconds = 1 }, callback = again } end
		again()`); err != nil {
		t.Fatal(err)
	}
	r, err := hostservices.NewRunner(h, hostservices.RunnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	span := sandbox.NewDrainSpan(L, "step")
	step := func() error {
		wait, ok := r.Next()
		if !ok {
			t.Fatalf("the run stopped: %v", r.Stopped())
		}
		return span.Run(func() error { return r.Step(wait) })
	}
	// A bound for steps that would not stop, so that the test fails
	// rather than hangs; the span stops long before it.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	steps := 0
	for err == nil && ctx.Err() == nil {
		err = step()
		steps++
	}
	luaeval.WantErr(t, err, "drain budget: step ran past its 50ms budget after", "once #")
	if steps < 2 {
		t.Fatalf("stopped after %d step; want the steps' budget shared", steps)
	}
	// The failed job is spent; arm it again.
	if err := chunk(t, L, `again()`); err != nil {
		t.Fatal(err)
	}
	span.Restart()
	if err := step(); err != nil {
		t.Fatalf("a step after Restart: %v", err)
	}
}

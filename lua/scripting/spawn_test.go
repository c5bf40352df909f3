package scripting

import (
	"testing"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	lua "github.com/yuin/gopher-lua"
)

// A runaway spawned function, before or after a wait, is stopped by its own
// callback budget: each resume gets one.
func TestSpawnRunsUnderTheBudget(t *testing.T) {
	t.Run("before a wait", func(t *testing.T) {
		L, _ := budgetState(t, Options{Budget: testBudget})
		err := chunk(t, L, `
			local hs = require("app-host").scheduler
			hs:spawn(function() while true do end end)
		`)
		luaeval.WantErr(t, err, "budget", "ran past its 50ms budget")
	})
	t.Run("after a wait", func(t *testing.T) {
		L, h := budgetState(t, Options{Budget: testBudget})
		err := chunk(t, L, `
			local Temporal = require "temporal"
			local hs = require("app-host").scheduler
			n = 0
			hs:spawn(function()
				hs:wait(Temporal.duration{ milliseconds = 10 })
				n = 1
				while true do end
			end)
			hs:spawn(function() hs:wait(Temporal.duration{ milliseconds = 20 }); n = 2 end)
		`)
		if err != nil {
			t.Fatal(err)
		}
		err = Drain(L, "update", func() error { return h.Update(10) })
		luaeval.WantErr(t, err, "budget: callback function <f.lua:5> ran past its 50ms budget")
		if err := Drain(L, "update", func() error { return h.Update(10) }); err != nil {
			t.Fatalf("next update: %v", err)
		}
		if n := L.GetGlobal("n"); n != lua.LNumber(2) {
			t.Fatalf("the other spawn did not go on after the runaway: n = %v", n)
		}
	})
}

// Spawned functions that end reuse the keyed timers' pooled threads.
func TestSpawnThreadsArePooled(t *testing.T) {
	L, _ := budgetState(t, Options{})
	err := chunk(t, L, `
		local Temporal = require "temporal"
		local s = require("runtime-scheduler").create()
		local threads = {}
		for _ = 1, 50 do
			s:spawn(function() threads[coroutine.running()] = true; s:wait(Temporal.duration{}) end)
			s:advance(Temporal.duration{})
		end
		local n = 0
		for _ in pairs(threads) do n = n + 1 end
		assert(n == 1, n .. " threads for 50 spawns")
	`)
	if err != nil {
		t.Fatal(err)
	}
}

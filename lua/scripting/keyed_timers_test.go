package scripting

import (
	"testing"

	"github.com/yuin/gopher-lua"
)

// A runaway keyed callback, before or after a tick:wait, is stopped by its
// own callback budget (each resume gets one); the timer goes on. A
// callback without parameters (called, not resumed) is no exception.
func TestKeyedCallbackRunsUnderTheBudget(t *testing.T) {
	for name, body := range map[string]string{
		"before a wait": `while true do end`,
		"after a wait":  `tick:wait(ms(5)); while true do end`,
		"no parameters": `while true do end`,
	} {
		params := "tick"
		if name == "no parameters" {
			params = ""
		}
		t.Run(name, func(t *testing.T) {
			L, h := budgetState(t, Options{Budget: testBudget})
			err := chunk(t, L, `
				local Temporal = require "temporal"
				function ms(n) return Temporal.duration{ milliseconds = n } end
				n = 0
				require("app-host").scheduler:register_timer{ key = "k", interval = ms(10), callback = function(`+params+`)
					n = n + 1
					if n == 1 then `+body+` end
				end }
			`)
			if err != nil {
				t.Fatal(err)
			}
			err = Drain(L, "update", func() error { return h.Update(20) })
			wantErr(t, err, "budget: callback function <f.lua:5> ran past its 50ms budget")
			if err := Drain(L, "update", func() error { return h.Update(30) }); err != nil {
				t.Fatalf("next update: %v", err)
			}
			if n := L.GetGlobal("n"); n.(lua.LNumber) < 2 {
				t.Fatalf("the timer stopped after its runaway: %v ticks", n)
			}
		})
	}
}

// Callbacks reuse one thread while each ends before the next starts.
func TestKeyedCallbackThreadsArePooled(t *testing.T) {
	L, _ := budgetState(t, Options{})
	err := chunk(t, L, `
		local Temporal = require "temporal"
		local function ms(n) return Temporal.duration{ milliseconds = n } end
		local s = require("runtime-scheduler").create()
		local threads = {}
		for i = 1, 3 do
			s:register_timer{ key = "k" .. i, interval = ms(1), callback = function(tick)
				threads[coroutine.running()] = true
				if tick["delivery-index"] % 2 == 0 then tick:wait(ms(0)) end
			end }
		end
		s:advance(ms(100))
		local n = 0
		for _ in pairs(threads) do n = n + 1 end
		assert(n == 1, n .. " threads for 300 ticks")
	`)
	if err != nil {
		t.Fatal(err)
	}
	if k := keyedOf(L); len(k.pool) != 1 || k.running != 0 {
		t.Fatalf("pool %d, running %d; want 1 and 0", len(k.pool), k.running)
	}
}

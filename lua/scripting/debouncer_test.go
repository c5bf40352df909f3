package scripting

import (
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	lua "github.com/yuin/gopher-lua"
)

// A debouncer's callback runs under the budget, whichever edge runs it:
// a trailing edge inside update, a leading edge inside debounce, flush.
func TestDebouncerCallbacksRunUnderTheBudget(t *testing.T) {
	for name, src := range map[string]string{
		"trailing": `deb:debounce("k")`,
		"leading":  `lead:debounce("k")`,
		"flush":    `deb:debounce("k"); deb:flush("k")`,
	} {
		t.Run(name, func(t *testing.T) {
			L, h := budgetState(t, Options{Budget: testBudget})
			err := chunk(t, L, `
				local D = require("temporal").duration
				local s = require("app-host").scheduler
				local spin = function() while true do end end
				deb = s:debouncer{ timeout = D{ milliseconds = 1 }, callback = spin }
				lead = s:debouncer{ timeout = D{ milliseconds = 1 }, leading = true, callback = spin }
				`+src)
			if name == "trailing" {
				if err != nil {
					t.Fatal(err)
				}
				err = Drain(L, "update", func() error { return h.Update(1) })
			}
			if name == "trailing" {
				luaeval.WantErr(t, err, "f.lua:4:", "budget: callback function <f.lua:4> ran past its 50ms budget")
				return
			}
			// Inside the main chunk the callback gets what is left of its
			// budget, so the main chunk's runs out.
			luaeval.WantErr(t, err, "f.lua:4:", "budget: main chunk f.lua ran past its 50ms budget", "[debouncer] made at f.lua:")
		})
	}
}

// Without :seed the ceilings come from the state's generator, so
// Options.Seed decides them: two states with one seed agree, another
// seed differs.
func TestDebouncerSeedDefaultsToTheStateGenerator(t *testing.T) {
	dues := func(seed int64) string {
		L, _ := budgetState(t, Options{Seed: seed})
		if err := chunk(t, L, `
			local D = require("temporal").duration
			local s = require("runtime-scheduler").create{}
			local deb = s:debouncer{ timeout = D{ milliseconds = 1 }, ["busy-timeout"] = D{ hours = 1 },
			                         ["force-min"] = D{ seconds = 1 }, ["force-max"] = D{ seconds = 2 },
			                         callback = function() end }
			for i = 1, 5 do deb:debounce(i); deb:debounce(i) end
			out = {}
			for _, j in ipairs(s:list()) do out[#out + 1] = tostring(j["due-in"]) end
			out = table.concat(out, " ")
		`); err != nil {
			t.Fatal(err)
		}
		return lua.LVAsString(L.GetGlobal("out"))
	}
	a, b, c := dues(1), dues(1), dues(2)
	if a != b || a == c || strings.Count(a, "PT1") != 5 {
		t.Fatalf("seed 1: %q and %q; seed 2: %q", a, b, c)
	}
}

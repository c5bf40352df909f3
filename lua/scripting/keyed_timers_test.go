package scripting

import (
	"testing"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	lua "github.com/yuin/gopher-lua"
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
			luaeval.WantErr(t, err, "budget: callback function <f.lua:5> ran past its 50ms budget")
			if err := Drain(L, "update", func() error { return h.Update(30) }); err != nil {
				t.Fatalf("next update: %v", err)
			}
			if n := L.GetGlobal("n"); n.(lua.LNumber) < 2 {
				t.Fatalf("the timer stopped after its runaway: %v ticks", n)
			}
		})
	}
}

// A Go function as a keyed callback runs as a call, with its tick.
func TestKeyedGoCallback(t *testing.T) {
	L, h := budgetState(t, Options{Budget: testBudget})
	var ticks []lua.LValue
	L.SetGlobal("record", L.NewFunction(func(L *lua.LState) int {
		ticks = append(ticks, L.GetField(L.CheckTable(1), "delivery-index"))
		return 0
	}))
	if err := chunk(t, L, `
		require("app-host").scheduler:register_timer{ key = "k", interval = require("temporal").duration{ milliseconds = 10 }, callback = record }
	`); err != nil {
		t.Fatal(err)
	}
	if err := Drain(L, "update", func() error { return h.Update(25) }); err != nil {
		t.Fatal(err)
	}
	if len(ticks) != 2 || ticks[0] != lua.LNumber(1) || ticks[1] != lua.LNumber(2) {
		t.Fatalf("ticks %v; want delivery indexes 1 and 2", ticks)
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

func TestIsLeafFindsEveryCall(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for _, c := range []struct {
		src  string
		leaf bool
	}{
		{"return function() n = n + 1 end", true},
		{"return function(t) seen[#seen + 1] = t['delivery-index'] .. 'x' end", true},
		{"return function() f() end", false},
		{"return function() return f() end", false},
		{"return function(t) t:wait(1) end", false},
		{"return function() for _ in next, {} do end end", false},
		{"return function() local g = function() f() end end", true}, // makes g, calls nothing
	} {
		if err := L.DoString(c.src); err != nil {
			t.Fatal(err)
		}
		fn := L.Get(-1).(*lua.LFunction)
		L.Pop(1)
		if got := isLeaf(fn); got != c.leaf {
			t.Errorf("isLeaf(%s) = %v, want %v", c.src, got, c.leaf)
		}
	}
	if isLeaf(L.NewFunction(func(*lua.LState) int { return 0 })) {
		t.Error("isLeaf(a Go function) = true, want false")
	}
}

// Leaf callbacks of different keys and generations share one tick table,
// and each reads its own tick's values in it, in both spellings.
func TestLeafTickTableHoldsEachTicksValues(t *testing.T) {
	L, h := budgetState(t, Options{Budget: testBudget})
	if err := chunk(t, L, `
		local Temporal = require "temporal"
		local s = require("app-host").scheduler
		local function ms(n) return Temporal.duration{ milliseconds = n } end
		seen, tables = {}, {}
		local function leaf(tick)
			seen[#seen + 1] = tick.generation * 1000 + tick["delivery-index"] * 10 + tick.skipped_ticks
			tables[tick] = true
		end
		s:register_timer{ key = "a", interval = ms(10), callback = leaf }
		s:register_timer{ key = "b", interval = ms(15), callback = leaf }
		s:register_timer{ key = "b", interval = ms(15), callback = leaf } -- generation 2
	`); err != nil {
		t.Fatal(err)
	}
	if err := Drain(L, "update", func() error { return h.Update(31) }); err != nil {
		t.Fatal(err)
	}
	got := []int{}
	seen := L.GetGlobal("seen").(*lua.LTable)
	for i := 1; i <= seen.Len(); i++ {
		got = append(got, int(seen.RawGetInt(i).(lua.LNumber)))
	}
	// a: generation 1 at 10, 20, 30; b: generation 2 at 15, 30.
	want := []int{1010, 2010, 1020, 1030, 2020}
	if len(got) != len(want) {
		t.Fatalf("ticks %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ticks %v; want %v", got, want)
		}
	}
	n := 0
	L.GetGlobal("tables").(*lua.LTable).ForEach(func(lua.LValue, lua.LValue) { n++ })
	if n != 1 {
		t.Fatalf("%d tick tables; want the one leaf table", n)
	}
}

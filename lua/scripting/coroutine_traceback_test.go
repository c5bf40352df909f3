package scripting

import (
	"strings"
	"testing"
)

// tracebackScene runs an app-host script whose line 6 registers a
// callback calling helper (line 5), which calls inner (line 4, body), and
// returns the traceback of the first update's error.
func tracebackScene(t *testing.T, register, wait, body string) string {
	t.Helper()
	L, h := budgetState(t, Options{})
	err := chunk(t, L, `local Temporal = require "temporal"
local hs = require("app-host").scheduler
local function ms(n) return Temporal.duration{ milliseconds = n } end
local function inner() `+body+` end
local function helper() `+wait+` inner() end
`+register)
	if err != nil {
		t.Fatal(err)
	}
	err = Drain(L, "update", func() error { return h.Update(50) })
	if err == nil {
		t.Fatal("update: no error")
	}
	tb, ok := Traceback(err)
	if !ok {
		t.Fatalf("no traceback in %v", err)
	}
	return tb
}

// An error in a keyed timer's callback or a spawned function, which run as
// coroutines, has the traceback a plain callback's error has: every frame
// from where it was raised out to the callback, then the job.
func TestCoroutineCallbackErrorShowsItsFrames(t *testing.T) {
	bodies := map[string]string{
		"error":               `error("boom")`,
		"error at level 2":    `error("boom", 2)`,
		"a Go function fails": `assert(false, "boom")`,
		"the VM raises":       `local x; return x.y`,
		"an error table":      `error({})`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			want := tracebackScene(t, `hs:schedule_every{ interval = ms(10), callback = function() helper() end }`, "", body)
			frames, _ := strings.CutSuffix(want, "\n\t[job] every #1 scheduled at f.lua:6")
			if !strings.Contains(frames, "\n\tf.lua:4: in ") || !strings.Contains(frames, "\n\tf.lua:5: in function 'helper'\n\tf.lua:6: in function <f.lua:6>") {
				t.Fatalf("the plain callback's traceback lacks a frame:\n%s", want)
			}
			for kind, c := range map[string]struct{ register, wait, job string }{
				"keyed":             {`hs:register_timer{ key = "k", interval = ms(10), callback = function(tick) helper() end }`, "", "timer #1"},
				"keyed, no params":  {`hs:register_timer{ key = "k", interval = ms(10), callback = function() helper() end }`, "", "timer #1"},
				"keyed after wait":  {`hs:register_timer{ key = "k", interval = ms(10), callback = function(tick) helper() end }`, "hs:wait(ms(3))", "timer #1"},
				"spawn after wait":  {`hs:spawn(function() helper() end)`, "hs:wait(ms(3))", "spawn #1"},
				"keyed, tick:wait":  {`hs:register_timer{ key = "k", interval = ms(10), callback = function(tick) T = tick; helper() end }`, "T:wait(ms(3))", "timer #1"},
				"spawn, second leg": {`hs:spawn(function() hs:wait(ms(1)); helper() end)`, "", "spawn #1"},
			} {
				got := tracebackScene(t, c.register, c.wait, body)
				if want := frames + "\n\t[job] " + c.job + " scheduled at f.lua:6"; got != want {
					t.Errorf("%s:\n%s\nwant:\n%s", kind, got, want)
				}
			}
		})
	}
}

// An error two functions deep in a keyed callback names both functions;
// the thread it killed is not pooled, and the timer goes on.
func TestKeyedCallbackErrorKeepsNoDeadThread(t *testing.T) {
	L, h := budgetState(t, Options{})
	err := chunk(t, L, `
		local Temporal = require "temporal"
		local function ms(n) return Temporal.duration{ milliseconds = n } end
		local function inner() error("boom") end
		local function outer() inner() end
		n = 0
		require("app-host").scheduler:register_timer{ key = "k", interval = ms(10), callback = function(tick)
			n = n + 1
			if n == 2 then outer() end
		end }
	`)
	if err != nil {
		t.Fatal(err)
	}
	err = Drain(L, "update", func() error { return h.Update(25) })
	tb, _ := Traceback(err)
	want := "stack traceback:\n" +
		"\t[G]: in function 'error'\n" +
		"\tf.lua:4: in function 'inner'\n" +
		"\tf.lua:5: in function 'outer'\n" +
		"\tf.lua:9: in function <f.lua:7>\n" +
		"\t[job] timer #1 scheduled at f.lua:7"
	if tb != want {
		t.Fatalf("traceback:\n%s\nwant:\n%s", tb, want)
	}
	k := keyedOf(L)
	for _, th := range k.pool {
		if th.Dead {
			t.Fatal("a dead thread is in the pool")
		}
	}
	if err := Drain(L, "update", func() error { return h.Update(30) }); err != nil {
		t.Fatalf("next update: %v", err)
	}
	if n := L.GetGlobal("n").String(); n != "5" || len(k.pool) != 1 {
		t.Fatalf("%s ticks, %d pooled threads; want 5 and 1", n, len(k.pool))
	}
}

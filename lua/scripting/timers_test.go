package scripting

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/temporal"
)

// Each state that loads runtime-timers has its own timers: clear() in one
// leaves the other's alone, though both run on the one host.
func TestRuntimeTimersArePerState(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	a, b := hostState(t, h, nil), hostState(t, h, nil)
	for _, L := range []*lua.LState{a, b} {
		doString(t, L, `fired = false; require("runtime-timers").Timeout{ ["delay-ms"] = 1, callback = function() fired = true end }`)
	}
	doString(t, a, `require("runtime-timers").clear()`)
	if err := h.Update(1); err != nil {
		t.Fatal(err)
	}
	if a.GetGlobal("fired") != lua.LFalse || b.GetGlobal("fired") != lua.LTrue {
		t.Fatalf("fired a=%v b=%v; want false, true", a.GetGlobal("fired"), b.GetGlobal("fired"))
	}
}

// A timer's label is the script line that made it, so errors and traces
// point there.
func TestRuntimeTimersLabelTheScriptLine(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := hostState(t, h, nil)
	if err := L.DoString("local RT = require 'runtime-timers'\nRT.Timeout{ delay_ms = 1, callback = function() end }"); err != nil {
		t.Fatal(err)
	}
	jobs := h.Scheduler().List()
	if len(jobs) != 1 || !strings.HasSuffix(jobs[0].Label, ":2") {
		t.Fatalf("jobs %+v: want one labelled with line 2", jobs)
	}
}

// The Lua callback gets the table it was called with, itself.
func TestDebouncerPassesLuaValuesThrough(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := hostState(t, h, nil)
	doString(t, L, `
		db = require("runtime-timers").Debouncer{ delay_ms = 1, callback = function(x) got = x end }
		arg = { big = true }
		db(arg)`)
	ud := L.GetGlobal("db").(*lua.LUserData)
	d := ud.Value.(*luaDebouncer).d
	if !d.Pending() {
		t.Fatal("not pending")
	}
	if err := h.Update(1); err != nil {
		t.Fatal(err)
	}
	if L.GetGlobal("got") != L.GetGlobal("arg") || d.Pending() {
		t.Fatal("the debounced call did not run with its argument")
	}
}

// Every refused call, of runtime-timers and of the host's methods, leaves
// the whole timeline (host jobs and timers alike) and the facets as they
// were, and raises an error naming the function.
func TestBadCallsLeaveTheTimelineUnchanged(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := hostState(t, h, nil)
	doString(t, L, `
		Temporal = require "temporal"
		RT = require "runtime-timers"
		hs = require("app-host").scheduler
		cb = function() end
		RT.Interval{ ["interval-ms"] = 5, callback = cb }
		db = RT.Debouncer{ ["delay-ms"] = 5, callback = cb }
		db()
		hs:schedule_every{ interval = Temporal.duration{ milliseconds = 5 }, callback = cb }
		hs:register("f", cb)
	`)
	before := h.Scheduler().List()
	for _, src := range []string{
		`RT.Timeout{ ["delay-ms"] = "16", callback = cb }`,
		`RT.Timeout{ ["delay-ms"] = 0/0, callback = cb }`,
		`RT.Timeout{ ["delay-ms"] = 1/0, callback = cb }`,
		`RT.Timeout{ ["delay-ms"] = -1/0, callback = cb }`,
		`RT.Timeout{ ["delay-ms"] = -1, callback = cb }`,
		`RT.Timeout{ delay = Temporal.duration{ milliseconds = 1 }, callback = cb }`,
		`RT.Timeout{ ["delay-ms"] = 1, callback = cb, extra = 1 }`,
		`RT.Interval{ ["interval-ms"] = 0, callback = cb }`,
		`RT.Interval{ ["interval-ms"] = "16", callback = cb }`,
		`RT.Interval{ ["interval-ms"] = 0/0, callback = cb }`,
		`RT.Interval{ interval = Temporal.duration{ milliseconds = 1 }, callback = cb }`,
		`RT.Debouncer{ ["delay-ms"] = -5, callback = cb }`,
		`RT.Debouncer{ ["delay-ms"] = 1 }`,
		`RT.Timeout()`,
		`db.call()`,
		`hs:schedule_once{ ["delay-ms"] = 1, callback = cb }`,
		`hs:schedule_every{ ["interval-ms"] = 1, callback = cb }`,
		`hs:schedule_once{ delay = 1, callback = cb }`,
		`hs:schedule_once{ delay = Temporal.duration{ milliseconds = 1 }, callback = cb, extra = 1 }`,
		`hs:update("16")`,
		`hs:update(0/0)`,
		`hs:update(1/0)`,
		`hs:update(-1)`,
		`hs:step(-1/0)`,
		`hs:set_paused(1)`,
		`hs:register("f", cb)`,
		`hs:register("", cb)`,
		`hs:register("g", 1)`,
		`hs:unregister(1)`,
		`hs.update(16)`,
	} {
		err := L.DoString(src)
		if err == nil {
			t.Errorf("%s: no error", src)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "bad argument") && !strings.Contains(msg, "register: facet") {
			t.Errorf("%s: %v: want an argument error", src, err)
		}
	}
	after := h.Scheduler().List()
	if len(after) != len(before) {
		t.Fatalf("jobs changed: %+v -> %+v", before, after)
	}
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("job %d changed: %+v -> %+v", i, before[i], after[i])
		}
	}
	if got := h.Facets(); len(got) != 1 || got[0] != "f" || h.Paused() || h.Now() != hostEpoch {
		t.Fatalf("host changed: facets %q, paused %v, now %v", got, h.Paused(), h.Now())
	}
}

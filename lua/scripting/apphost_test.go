package scripting

import (
	"errors"
	"slices"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/compat"
	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

var hostEpoch = temporal.FromUnixNano(946684800 * 1e9) // 2000-01-01T00:00:00Z

// hostState is a state bound to h, closed with the test.
func hostState(t *testing.T, h *hostservices.Host, quit func()) *lua.LState {
	t.Helper()
	L := NewState(Options{Modules: HostModules(h, quit)})
	t.Cleanup(L.Close)
	return L
}

func doString(t *testing.T, L *lua.LState, src string) {
	t.Helper()
	if err := L.DoString(src); err != nil {
		t.Fatal(err)
	}
}

func TestHostModulesQuit(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	quits := 0
	L := hostState(t, h, func() { quits++ })
	doString(t, L, `q1 = require("app-host").quit(); q2 = require("app-host").quit()`)
	if quits != 2 || L.GetGlobal("q1") != lua.LTrue || L.GetGlobal("q2") != lua.LTrue {
		t.Fatalf("quit ran %d times, returned %v %v; want 2, true, true", quits, L.GetGlobal("q1"), L.GetGlobal("q2"))
	}
	L2 := hostState(t, h, nil)
	doString(t, L2, `q = require("app-host").quit()`)
	if L2.GetGlobal("q") != lua.LFalse {
		t.Fatalf("nil quit returned %v, want false", L2.GetGlobal("q"))
	}
}

// The Go host drives what the script scheduled: the CLI's frame loop.
func TestGoFrameLoopDrivesScriptJobsTimersAndFacets(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := hostState(t, h, nil)
	doString(t, L, `
		local Temporal = require "temporal"
		local host = require "app-host"
		local RT = require "runtime-timers"
		log = {}
		local function note(s) log[#log + 1] = s end
		host.scheduler:schedule_every{ interval = Temporal.duration{ milliseconds = 10 }, callback = function() note("job") end }
		RT.Timeout{ ["delay-ms"] = 10, callback = function() note("timeout") end }
		host.scheduler:register("facet", function(dt) note("facet " .. dt) end)
	`)
	if n := h.Scheduler().Count(h.Jobs()); n != 1 {
		t.Fatalf("%d host jobs, want 1", n)
	}
	var groups []string
	for _, j := range h.Scheduler().List() {
		groups = append(groups, j.Group)
	}
	if !slices.Equal(groups, []string{"app-host", compat.GroupName}) {
		t.Fatalf("groups %q: want the host's job and a runtime-timers timer on one scheduler", groups)
	}
	h.SetPaused(true)
	if err := h.UpdateBy(temporal.Second); err != nil {
		t.Fatal(err)
	}
	h.SetPaused(false)
	if err := h.UpdateBy(10 * temporal.Millisecond); err != nil {
		t.Fatal(err)
	}
	got := luaStrings(L.GetGlobal("log"))
	if want := []string{"job", "timeout", "facet 10"}; !slices.Equal(got, want) {
		t.Fatalf("ran %q, want %q", got, want)
	}
}

func TestScriptErrorsReachTheGoHost(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := hostState(t, h, nil)
	doString(t, L, `
		local host = require "app-host"
		require("runtime-timers").Timeout{ ["delay-ms"] = 1, callback = function() error("in a timeout") end }
		host.scheduler:register("f", function() error("in a facet") end)
	`)
	err := h.Update(1)
	var je *sched.JobError
	var api *lua.ApiError
	if !errors.As(err, &je) || !errors.As(err, &api) || !strings.Contains(err.Error(), "in a timeout") {
		t.Fatalf("error %v: want the Lua error in a JobError", err)
	}
	err = h.Update(1)
	var fe *hostservices.FacetError
	if !errors.As(err, &fe) || fe.Name != "f" || !errors.As(err, &api) || !strings.Contains(err.Error(), "in a facet") {
		t.Fatalf("error %v: want the Lua error in a FacetError naming f", err)
	}
}

func TestPreloadHostModules(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := NewState(Options{})
	defer L.Close()
	if err := L.DoString(`require "app-host"`); err == nil {
		t.Fatal("app-host loads without the host's modules")
	}
	PreloadHostModules(L, h, nil)
	doString(t, L, `
		local hs = require("app-host").scheduler
		hs:register("x", function() end)
		assert(require("runtime-timers").Timeout{ delay_ms = 5, callback = function() end })
	`)
	if got := h.Facets(); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("facets %q", got)
	}
	if n := h.Scheduler().Count(); n != 1 {
		t.Fatalf("%d jobs, want the timer", n)
	}
}

func TestMakeSchedulerHostsAreIndependentOfTheStateHost(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := hostState(t, h, nil)
	doString(t, L, `
		local Temporal = require "temporal"
		local hs = require("app-host.services")["make-scheduler"]{ clock = Temporal.clock.fixed(Temporal.instant.parse("2000-01-01T00:00:00Z")) }
		hs:schedule_once{ delay = Temporal.duration{ milliseconds = 1 }, callback = function() end }
		hs:register("own", function() end)
	`)
	if h.Scheduler().Count() != 0 || len(h.Facets()) != 0 {
		t.Fatal("make-scheduler's host shares the state's host")
	}
}

func TestHostModulesPanicsOnNilHost(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	HostModules(nil, nil)
}

func luaStrings(v lua.LValue) []string {
	tbl, ok := v.(*lua.LTable)
	if !ok {
		return nil
	}
	var out []string
	tbl.ForEach(func(_, v lua.LValue) { out = append(out, v.String()) })
	return out
}

// Each userdata's metatable is the one the registry holds under its type's
// name, made on first use; a duration made in Go before the module is
// loaded compares with the script's own, since the temporal metatables
// share their operators.
func TestTypeMetatablesAreRegisteredUnderTheTypeNames(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := NewState(Options{Modules: HostModules(h, nil)})
	defer L.Close()
	early := newDuration(L, temporal.Second)
	L.SetGlobal("early", early)
	if err := L.DoString(`
		T = require "temporal"
		local s = require("runtime-scheduler").create{ clock = T.clock.fixed(T.instant.parse("2000-01-01T00:00:00Z")) }
		local tm = require "runtime-timers"
		values = {
			["Temporal.duration"] = T.duration{ seconds = 1 },
			["Temporal.instant"] = T.instant.parse("2000-01-01T00:00:00Z"),
			["Temporal.clock"] = T.clock.system(),
			["Temporal.recurrence-set"] = T["recurrence-set"]{ dtstart = "2000-01-01T09:00:00", rrule = "FREQ=DAILY" },
			["runtime-scheduler"] = s,
			["runtime-scheduler handle"] = s:schedule_once{ delay = T.duration{}, callback = function() end },
			["app-host scheduler"] = require("app-host").scheduler,
			["runtime-timers Debouncer"] = tm.Debouncer{ delay_ms = 1, callback = function() end },
		}
		assert(early == T.duration{ seconds = 1 } and early < T.duration{ seconds = 2 })
	`); err != nil {
		t.Fatal(err)
	}
	n := 0
	L.GetGlobal("values").(*lua.LTable).ForEach(func(k, v lua.LValue) {
		n++
		if mt := v.(*lua.LUserData).Metatable; mt != L.GetTypeMetatable(k.String()) {
			t.Errorf("%s: metatable %v, registry holds %v", k, mt, L.GetTypeMetatable(k.String()))
		}
	})
	if n != 8 {
		t.Fatalf("%d values", n)
	}
}

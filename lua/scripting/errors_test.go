package scripting

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/temporal"
)

var printMessages = flag.Bool("print-messages", false, "print the Lua error messages of TestLuaErrorMessages")

// errPrelude gives each case a runtime-scheduler s, the state's host hs,
// runtime-timers tm and a few helpers, all on a fixed clock.
const errPrelude = `
Temporal = require "temporal"
D = Temporal.duration
local clock = Temporal.clock.fixed(Temporal.instant.parse("2000-01-01T00:00:00Z"))
s = require("runtime-scheduler").create{ clock = clock }
hs = require("app-host").scheduler
tm = require "runtime-timers"
ns = function(n) return D{ nanoseconds = n } end
huge = D{ seconds = 9e9 }
cb = function() end
`

// luaErrorCases are scripts whose error message is pinned exactly: the
// message a script's pcall sees, unchanged by moving the Go core's errors
// into Go terms.
var luaErrorCases = []struct{ name, src, want string }{
	{"once negative delay", `s:schedule_once{ delay = ns(-1), callback = cb }`,
		"<string>:1: bad argument #2 to 'schedule-once' (:delay must be a duration >= 0, got -PT0.000000001S)"},
	{"once deadline overflow", `s:schedule_once{ delay = huge, callback = cb }`,
		"<string>:1: bad argument #2 to 'schedule-once' (:delay must be a duration that keeps the deadline within int64 nanoseconds, got PT2500000H)"},
	{"every zero interval", `s:schedule_every{ interval = ns(0), callback = cb }`,
		"<string>:1: bad argument #2 to 'schedule-every' (:interval must be a duration > 0, got PT0S)"},
	{"every interval overflow", `hs:schedule_every{ interval = huge, callback = cb }`,
		"<string>:1: bad argument #2 to 'schedule-every' (:interval must be a duration that keeps the deadline within int64 nanoseconds, got PT2500000H)"},
	{"recurrence unknown zone", `s:schedule_recurrence{ ["recurrence-set"] = Temporal["recurrence-set"]{ dtstart = "2000-01-01T09:00:00", rrule = "FREQ=DAILY" }, zone_id = "Mars/Olympus", callback = cb }`,
		`<string>:1: schedule-recurrence: zone-id: zone "Mars/Olympus": unknown IANA zone id (tzdata 2025c)`},
	{"recurrence rejected first", `s:schedule_recurrence{ ["recurrence-set"] = Temporal["recurrence-set"]{ dtstart = "2000-04-02T02:30:00", rrule = "FREQ=DAILY;COUNT=1" }, zone_id = "America/New_York", callback = cb }`,
		"<string>:1: schedule-recurrence: local time 2000-04-02T02:30:00 does not exist in America/New_York (skipped by a DST gap); disambiguation \"reject\" refuses it: give \"compatible\", \"earlier\" or \"later\""},
	{"advance negative", `s:advance(ns(-1))`,
		"<string>:1: bad argument #2 to 'advance' (duration must be a duration >= 0, got -PT0.000000001S)"},
	{"advance overflow", `s:advance(huge)`,
		"<string>:1: bad argument #2 to 'advance' (duration must be a duration that keeps the deadline within int64 nanoseconds, got PT2500000H)"},
	{"jump negative", `s:jump(ns(-1))`,
		"<string>:1: bad argument #2 to 'jump' (duration must be a duration >= 0, got -PT0.000000001S)"},
	{"update negative", `s:update(-1)`,
		"<string>:1: bad argument #2 to 'update' (delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got -1)"},
	{"update NaN", `s:update(0/0)`,
		"<string>:1: bad argument #2 to 'update' (delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got NaN)"},
	{"update inf", `s:update(1/0)`,
		"<string>:1: bad argument #2 to 'update' (delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got +Inf)"},
	{"update range", `s:update(1e300)`,
		"<string>:1: bad argument #2 to 'update' (delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got 1e+300)"},
	{"run-all limit", `s:schedule_every{ interval = ns(1), callback = cb }; s:run_all{ loop_limit = 3 }`,
		"<string>:1: run-all: more than 3 fires and work is still pending; the next is every #1 scheduled at <string>:1 (an active interval never ends; use advance, or raise loop-limit)"},
	{"loop limit", `s:set_loop_limit(2); local function f() local ok, m = pcall(s.schedule_once, s, { delay = ns(0), callback = f }); caught = caught or m end; s:schedule_once{ delay = ns(0), callback = f }; s:advance(ns(0)); error(caught, 0)`,
		"<string>:1: loop limit: once #3 scheduled at [G] put more than 2 jobs on one instant (0s after the epoch) in one call; a callback keeps re-arming at zero delay (raise it with set-loop-limit)"},
	{"advance from its own callback", reentrant("s:advance(ns(1))"), "<string>:1: advance: called from inside a callback of the same scheduler (its time moves only from outside its callbacks)"},
	{"next from its own callback", reentrant("s:next()"), "<string>:1: next: called from inside a callback of the same scheduler (its time moves only from outside its callbacks)"},
	{"run-all from its own callback", reentrant("s:run_all()"), "<string>:1: run-all: called from inside a callback of the same scheduler (its time moves only from outside its callbacks)"},
	{"jump from its own callback", reentrant("s:jump(ns(1))"), "<string>:1: jump: called from inside a callback of the same scheduler (its time moves only from outside its callbacks)"},
	{"update from its own callback", reentrant("s:update(1)"), "<string>:1: update: called from inside a callback of the same scheduler (its time moves only from outside its callbacks)"},
	{"host update from a step while paused", `hs:set_paused(true); hs:schedule_once{ delay = ns(0), callback = function() local ok, m = pcall(function() hs:update(16) end); caught = m end }; hs:step(0); error(caught, 0)`,
		"<string>:1: update: called from inside a callback of the same scheduler (its time moves only from outside its callbacks)"},
	{"dropped", `s:drop(); s:advance(ns(1))`,
		"<string>:1: advance: scheduler dropped (after drop, only drop may be called on it)"},
	{"host update negative", `hs:update(-1)`,
		"<string>:1: bad argument #2 to 'update' (delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got -1)"},
	{"host step NaN", `hs:step(0/0)`,
		"<string>:1: bad argument #2 to 'step' (delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got NaN)"},
	{"host update range", `hs:update(1e300)`,
		"<string>:1: bad argument #2 to 'update' (delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got 1e+300)"},
	{"host register twice", `hs:register("f", cb); hs:register("f", cb)`,
		`<string>:1: register: facet "f": a facet with this name is already registered`},
	{"timeout negative", `tm.Timeout{ delay_ms = -1, callback = cb }`,
		"<string>:1: bad argument #1 to 'Timeout' (:delay-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got number -1)"},
	{"timeout NaN", `tm.Timeout{ delay_ms = 0/0, callback = cb }`,
		"<string>:1: bad argument #1 to 'Timeout' (:delay-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got number NaN)"},
	{"timeout range", `tm.Timeout{ delay_ms = 1e300, callback = cb }`,
		"<string>:1: bad argument #1 to 'Timeout' (:delay-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got number 1e+300)"},
	{"timeout deadline", `tm.Timeout{ delay_ms = 9e12, callback = cb }`,
		"<string>:1: bad argument #1 to 'Timeout' (:delay-ms must be a duration that keeps the deadline within int64 nanoseconds, got number 9000000000000)"},
	{"interval zero", `tm.Interval{ interval_ms = 0, callback = cb }`,
		"<string>:1: bad argument #1 to 'Interval' (:interval-ms must be a number of milliseconds > 0 that rounds to at least 1 ns, got number 0)"},
	{"interval tiny", `tm.Interval{ interval_ms = 4e-7, callback = cb }`,
		"<string>:1: bad argument #1 to 'Interval' (:interval-ms must be a number of milliseconds > 0 that rounds to at least 1 ns, got number 4e-07)"},
	{"interval range", `tm.Interval{ interval_ms = -1/0, callback = cb }`,
		"<string>:1: bad argument #1 to 'Interval' (:interval-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got number -inf)"},
	{"debouncer negative", `tm.Debouncer{ delay_ms = -1, callback = cb }`,
		"<string>:1: bad argument #1 to 'Debouncer' (:delay-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got number -1)"},
	{"debouncer call deadline", `local db = tm.Debouncer{ delay_ms = 9e12, callback = cb }; db()`,
		"<string>:1: Debouncer: delay-ms: want a duration that keeps the deadline within int64 nanoseconds, got 9e+12"},
	{"duration from-ms range", `D["from-ms"](1e300)`,
		"<string>:1: duration.from-ms: milliseconds 1e+300 overflows int64 nanoseconds"},
	{"recurrence-set bad rule", `Temporal["recurrence-set"]{ dtstart = "2000-01-01T09:00:00", rrule = "FREQ=SOMETIMES" }`,
		`<string>:1: bad argument #1 to 'recurrence-set' (:rrule "FREQ=SOMETIMES": FREQ=SOMETIMES: want SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY)`},
}

// reentrant is a script whose job calls src on its own scheduler and
// raises what that call raised.
func reentrant(src string) string {
	return "s:schedule_once{ delay = ns(0), callback = function() local ok, m = pcall(function() " + src + " end); caught = m end }; s:advance(ns(0)); error(caught, 0)"
}

// TestLuaErrorMessages pins the messages scripts see for errors that come
// from the Go core, word for word.
func TestLuaErrorMessages(t *testing.T) {
	for _, c := range luaErrorCases {
		t.Run(c.name, func(t *testing.T) {
			h := hostservices.New(temporal.Fixed(hostEpoch))
			L := NewState(Options{Modules: HostModules(h, nil), Stdout: os.Stderr})
			defer L.Close()
			if err := L.DoString(errPrelude); err != nil {
				t.Fatal(err)
			}
			got := pcallMessage(t, L, c.src)
			if *printMessages {
				fmt.Printf("%s\n\t%q\n", c.name, got)
			}
			if got != c.want {
				t.Errorf("%s\n got %q\nwant %q", c.src, got, c.want)
			}
		})
	}
}

// pcallMessage runs src as a chunk named "<string>" under the sandbox's
// pcall and returns the error message.
func pcallMessage(t *testing.T, L *lua.LState, src string) string {
	t.Helper()
	fn, err := L.Load(strings.NewReader(src), "<string>")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(L.GetGlobal("pcall"))
	L.Push(fn)
	L.Call(1, 2)
	ok, msg := L.Get(-2), L.Get(-1)
	L.Pop(2)
	if ok != lua.LFalse {
		t.Fatalf("%s: no error", src)
	}
	return lua.LVAsString(msg)
}

// A callback's error carries one traceback: the callback's frames, from
// where it raised the error out to the callback, then a line naming the
// job; not the frames of a main chunk that has returned.
func TestCallbackErrorHasOneTracebackEndingWithTheJob(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := hostState(t, h, nil)
	runChunk(t, L, "f.lua", "local hs = require(\"app-host\").scheduler\n"+
		"local function explode() error(\"boom\") end\n"+
		"hs:schedule_every{ interval = require(\"temporal\").duration{ milliseconds = 10 }, callback = function() explode() end }\n")
	// From the host's frame loop, after the main chunk returned.
	err := h.Update(10)
	tb, ok := Traceback(err)
	want := "stack traceback:\n\t[G]: in function 'error'\n\tf.lua:2: in function 'explode'\n\tf.lua:3: in function <f.lua:3>\n\t[job] every #1 scheduled at f.lua:3"
	if !ok || tb != want {
		t.Fatalf("Traceback(%v) =\n%s\nwant\n%s", err, tb, want)
	}
	// From a script's update: the message carries the same traceback, once.
	got := pcallMessage(t, L, `require("app-host").scheduler:update(10)`)
	if want := "f.lua:2: boom\n" + want; got != want {
		t.Fatalf("message\n%s\nwant\n%s", got, want)
	}
}

// An error out of a second scheduler's advance, called from a callback,
// goes on with one traceback: the inner callback's frames and job, then the
// outer callback's frames and job.
func TestNestedCallbackErrorContinuesTheTraceback(t *testing.T) {
	L := hostState(t, hostservices.New(temporal.Fixed(hostEpoch)), nil)
	runChunk(t, L, "f.lua", "local T = require \"temporal\"\n"+
		"local inner = require(\"runtime-scheduler\").create{ clock = T.clock.fixed(T.instant.parse(\"2000-01-01T00:00:00Z\")) }\n"+
		"inner:schedule_once{ delay = T.duration{}, callback = function() error(\"boom\") end }\n"+
		"require(\"app-host\").scheduler:schedule_once{ delay = T.duration{}, callback = function()\n"+
		"  local ok, m = pcall(inner.advance, inner, T.duration{})\n"+
		"  error(m, 0)\n"+
		"end }\n")
	got := pcallMessage(t, L, `require("app-host").scheduler:update(0)`)
	want := "f.lua:3: boom\nstack traceback:\n\t[G]: in function 'error'\n\tf.lua:3: in function <f.lua:3>\n\t[job] once #1 scheduled at f.lua:3\n" +
		"\t[G]: in function 'error'\n\tf.lua:6: in function <f.lua:4>\n\t[job] once #1 scheduled at f.lua:4"
	if got != want {
		t.Fatalf("message\n%s\nwant\n%s", got, want)
	}
}

// runChunk runs src as a main chunk named name.
func runChunk(t *testing.T, L *lua.LState, name, src string) {
	t.Helper()
	fn, err := L.Load(strings.NewReader(src), name)
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		t.Fatal(err)
	}
}

// The Lua names in a refused argument's error come from the binding: the Go
// method and parameter an OptionError names, whatever they are, do not
// reach the script, and *temporal.OptionError reads as a package's own
// OptionError does.
func TestRefusalsAreNamedByTheBinding(t *testing.T) {
	cases := []struct {
		c    luaCall
		key  string
		err  error
		want string
	}{
		{luaCall{"advance", 2, false}, "", &temporal.OptionError{Method: "Renamed", Param: "x", Want: "a duration >= 0", Got: temporal.Duration(-1)},
			"bad argument #2 to 'advance' (duration must be a duration >= 0, got -PT0.000000001S)"},
		{luaCall{"Timeout", 1, true}, "", &temporal.OptionError{Method: "M", Param: "p", Want: "a number of milliseconds >= 0", Got: -1.5},
			"bad argument #1 to 'Timeout' (:delay-ms must be a number of milliseconds >= 0, got number -1.5)"},
		{luaCall{fn: "Debouncer"}, "", &temporal.OptionError{Method: "M", Param: "p", Want: "w", Got: 3},
			"Debouncer: delay-ms: want w, got 3"},
		{luaCall{"schedule-once", 2, true}, "at", &temporal.OptionError{Method: "M", Param: "p", Err: errors.New("bad zone")},
			"schedule-once: at: bad zone"},
		// A Lua function that checks its arguments itself shows an
		// unexpected refusal in Go terms.
		{luaCall{fn: "register"}, "", &temporal.OptionError{Method: "Register", Param: "f", Want: "a facet", Got: "nil"},
			"register: Register: f: want a facet, got nil"},
	}
	for _, tc := range cases {
		L := lua.NewState()
		L.SetGlobal("f", L.NewFunction(func(L *lua.LState) int {
			if tc.key != "" {
				raiseErrorAbout(L, tc.c, tc.key, tc.err)
			}
			raiseError(L, tc.c, tc.err)
			return 0
		}))
		err := L.DoString("f()")
		L.Close()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.c.fn, err, tc.want)
		}
	}
}

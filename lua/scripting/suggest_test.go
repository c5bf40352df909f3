package scripting

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// Every Metronome object names itself, the mistyped name and the nearest
// names when a method lookup fails; a name the object has still reads.
func TestUnknownMethodEveryKind(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`h1:cancle()`, "runtime-scheduler handle has no method 'cancle'; did you mean 'cancel'?"},
		{`local x = h1.remainig`, "runtime-scheduler handle has no method 'remainig'; did you mean 'remaining'?"},
		{`tm.Timeout{ delay_ms = 1, callback = cb }:cancle()`, "runtime-scheduler handle has no method 'cancle'; did you mean 'cancel'?"},
		{`s:scheduleOnce{}`, "runtime-scheduler has no method 'scheduleOnce'; did you mean 'schedule_once'?"},
		{`s:register_timer{ key = "k", interval = ms5, callback = cb }:cancle()`, "keyed timer has no method 'cancle'; did you mean 'cancel'?"},
		{`s:register_timer{ key = "k", interval = ms5, callback = cb }:cancel():reslt()`, "keyed timer completion has no method 'reslt'; did you mean 'result'?"},
		{`s:owner{ lease = ms5 }:renw()`, "keyed timer owner has no method 'renw'; did you mean 'renew'?"},
		{`s:spawn(function() end):cancle()`, "spawn handle has no method 'cancle'; did you mean 'cancel'?"},
		{`s:debouncer{ timeout = ms5, callback = cb }:debunce("x")`, "debouncer has no method 'debunce'; did you mean 'debounce'?"},
		{`require("event_loop").new{ clock = "virtual" }:runn()`, "event-loop has no method 'runn'; did you mean 'run'?"},
		{`hs:is_pausd()`, "app-host scheduler has no method 'is_pausd'; did you mean 'is_paused'?"},
		{`hs["pausd?"](hs)`, "app-host scheduler has no method 'pausd?'; did you mean 'paused?'?"},
		{`db:cancle()`, "runtime-timers Debouncer has no method 'cancle'; did you mean 'cancel'?"},
		{`clock:nwo()`, "Temporal.clock has no method 'nwo'; did you mean 'now'?"},
		{`daily:occurences()`, "Temporal.recurrence-set has no method 'occurences'"},
	} {
		L, _ := catalogueState(t)
		err := doChunk(L, "row.lua", c.src)
		if err == nil {
			t.Errorf("%s: no error", c.src)
			continue
		}
		if msg := lua.LVAsString(err.(*lua.ApiError).Object); !strings.HasPrefix(msg, "row.lua:1: "+c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.src, msg, "row.lua:1: "+c.want)
		}
	}
	L, _ := catalogueState(t)
	if err := doChunk(L, "ok.lua", `
		assert(h1.id and h1.cancel and h1.is_active and h1["active?"])
		assert(s.schedule_once == s["schedule-once"])
		assert(ms5[1] == nil) -- only string keys are names
	`); err != nil {
		t.Error(err)
	}
}

// require takes the snake_case spelling of a module and gives the module
// the kebab-case name gives; a name no loader finds is an error whose last
// line is the last reason, with no trailing comma.
func TestRequireSnakeCaseAndNotFound(t *testing.T) {
	L, _ := catalogueState(t)
	if err := doChunk(L, "req.lua", `
		assert(require "runtime_scheduler" == require "runtime-scheduler")
		assert(require "app_host" == require "app-host")
		assert(require "event_loop" == require "event-loop")
		assert(require "app_host.services" == require "app-host.services")
	`); err != nil {
		t.Fatal(err)
	}
	err := doChunk(L, "req.lua", `require "Temporal"`)
	if err == nil {
		t.Fatal("no error")
	}
	want := "req.lua:1: module 'Temporal' not found; did you mean 'temporal'?\n\tno field package.preload['Temporal']\n\tno script folder to search for Temporal.lua"
	if msg := lua.LVAsString(err.(*lua.ApiError).Object); !strings.HasPrefix(msg, want) || strings.Contains(msg, ", ") {
		t.Errorf("got %q\nwant %q", msg, want)
	}
}

// A mistyped function of a module names the module and its nearest names.
func TestUnknownModuleField(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`RS.new{}`, "module 'runtime-scheduler' has no field 'new' (fields: create, decode, encode)"},
		{`RS.creat{}`, "module 'runtime-scheduler' has no field 'creat'; did you mean 'create'?"},
		{`Temporal.Duration{ seconds = 1 }`, "module 'temporal' has no field 'Duration'; did you mean 'duration'?"},
		{`I.prase("2000-01-01T00:00:00Z")`, "module 'temporal.instant' has no field 'prase'; did you mean 'parse'?"},
		{`Temporal.clock.fixd(I.parse("2000-01-01T00:00:00Z"))`, "module 'temporal.clock' has no field 'fixd'; did you mean 'fixed'?"},
		{`tm.timeout{ delay_ms = 1, callback = cb }`, "module 'runtime-timers' has no field 'timeout'; did you mean 'Timeout'?"},
		{`services.makeScheduler{}`, "module 'app-host.services' has no field 'makeScheduler'; did you mean 'make_scheduler'?"},
		{`require("event-loop").New{}`, "module 'event-loop' has no field 'New'; did you mean 'new'?"},
	} {
		L, _ := catalogueState(t)
		err := doChunk(L, "row.lua", c.src)
		if err == nil {
			t.Errorf("%s: no error", c.src)
			continue
		}
		if msg := lua.LVAsString(err.(*lua.ApiError).Object); !strings.HasPrefix(msg, "row.lua:1: "+c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.src, msg, "row.lua:1: "+c.want)
		}
	}
}

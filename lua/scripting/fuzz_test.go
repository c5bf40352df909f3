package scripting

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/temporal"
)

// Fuzz targets for what a script can hand the bindings. `make fuzz` runs
// each for a while; plain `go test` runs the seeds and testdata/fuzz.

// fuzzEpoch is the fixed clock of every fuzzed state: the day before New
// York springs forward, so recurrences meet a gap.
var fuzzEpoch = temporal.FromUnixNano(1709942400 * 1e9) // 2024-03-09T00:00:00Z

// optionPrelude returns the option-table functions FuzzOptionTables calls,
// each as calls[i](opts), the values it fills tables with, and a function
// counting the jobs pending on the script's own schedulers.
const optionPrelude = `
local T = require "temporal"
local S = require "runtime-scheduler"
local RT = require "runtime-timers"
local services = require "app-host.services"
local clock = T.clock.fixed(T.instant.parse("2024-03-09T00:00:00Z"))
local s = S.create{ clock = clock }
local hs = services["make-scheduler"]{ clock = clock }
local rs = T["recurrence-set"]{ dtstart = "2024-03-09T02:30:00", rrule = "FREQ=DAILY" }
local calls = {
	function(o) return S.create(o) end,
	function(o) return s:schedule_once(o) end,
	function(o) return s:schedule_every(o) end,
	function(o) return s:schedule_recurrence(o) end,
	function(o) return RT.Timeout(o) end,
	function(o) return RT.Interval(o) end,
	function(o) return hs:schedule_once(o) end,
	function(o) return hs:schedule_recurrence(o) end,
}
local values = {
	T.duration{ milliseconds = 5 }, T.duration{ nanoseconds = 1 }, T.duration{ seconds = -1 }, T.duration{},
	T.duration.parse("PT2562047H47M16.854775807S"), T.duration.parse("-PT2562047H47M16.854775808S"),
	function() end, setmetatable({}, { __call = function() end }), print,
	rs, T["recurrence-set"]{ dtstart = "2024-11-03T01:30:00", rrule = "FREQ=DAILY;COUNT=2" },
	clock, T.instant.parse("2024-03-10T07:00:00Z"),
	"America/New_York", "Europe/Paris", "Nowhere/Zone", "Local", "", "compatible", "earlier", "later", "reject",
	"Reject", "5", " 0x10 ", 0, 1, -1, 0.5, 1e300, 0/0, 1/0, -1/0, 2^53, 2^63, -0.0, true, false, {},
	coroutine.create(function() end), s,
	setmetatable({}, { __index = function() error("index raised") end }),
}
return calls, values, function() return s:count() + #hs:jobs() end
`

// optionCallNames are the Lua names of optionPrelude's calls, in order.
var optionCallNames = []string{"create", "schedule-once", "schedule-every", "schedule-recurrence",
	"Timeout", "Interval", "schedule-once", "schedule-recurrence"}

// optionKeys are the keys FuzzOptionTables picks from: every key the called
// functions accept, in both spellings, and some they refuse.
var optionKeys = []lua.LValue{
	lua.LString("delay"), lua.LString("interval"), lua.LString("callback"), lua.LString("clock"),
	lua.LString("recurrence-set"), lua.LString("recurrence_set"), lua.LString("zone-id"), lua.LString("zone_id"),
	lua.LString("disambiguation"), lua.LString("limit"), lua.LString("delay-ms"), lua.LString("delay_ms"),
	lua.LString("interval-ms"), lua.LString("interval_ms"), lua.LString("key"), lua.LString(""),
	lua.LString("Delay"), lua.LNumber(1), lua.LTrue,
}

// FuzzOptionTables builds an option table from fuzzed keys and values and
// passes it to schedule-once, schedule-every, schedule-recurrence, create,
// Timeout and Interval. No Go panic escapes; the call succeeds or raises a
// Lua error that names the function, as a bad argument or, for what is
// wrong only in combination (a local time the zone rejects, an unknown
// zone), as "schedule-recurrence: ..."; a refused call schedules nothing.
//
// data is read as pairs: a key byte (an index into optionKeys) and a value
// byte (an index into the prelude's values, or, past its end, a number
// made of the next 8 bytes).
func FuzzOptionTables(f *testing.F) {
	num := func(x float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(x)) }
	cat := func(parts ...[]byte) []byte {
		var out []byte
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	f.Add(uint8(0), []byte{3, 11})                               // create{clock = clock}
	f.Add(uint8(1), []byte{0, 0, 2, 6})                          // schedule_once{delay = 5ms, callback = f}
	f.Add(uint8(1), []byte{0, 2, 2, 6})                          // a negative delay
	f.Add(uint8(1), []byte{0, 0, 2, 7})                          // a callable table is refused
	f.Add(uint8(2), []byte{1, 1, 2, 8})                          // every 1 ns with print
	f.Add(uint8(2), []byte{1, 3, 2, 6})                          // every 0
	f.Add(uint8(3), []byte{4, 9, 6, 13, 2, 6})                   // recurrence in New York, reject into the gap
	f.Add(uint8(3), []byte{5, 9, 7, 13, 8, 19, 2, 6, 9, 26})     // later, limit 1
	f.Add(uint8(3), []byte{4, 9, 5, 9, 2, 6})                    // both spellings
	f.Add(uint8(3), []byte{4, 10, 6, 13, 9, 29, 2, 6})           // an overlap, limit 0.5
	f.Add(uint8(4), cat([]byte{10, 44}, num(100), []byte{2, 6})) // Timeout{delay-ms = 100}
	f.Add(uint8(4), cat([]byte{10, 44}, num(math.Copysign(0, -1)), []byte{2, 6}))
	f.Add(uint8(4), cat([]byte{10, 44}, num(math.NaN()), []byte{2, 6}))
	f.Add(uint8(4), []byte{10, 23, 2, 6}) // a numeric string
	f.Add(uint8(5), cat([]byte{12, 44}, num(1e-6), []byte{2, 6}))
	f.Add(uint8(5), []byte{0, 0, 2, 6})   // delay is not a runtime-timers key
	f.Add(uint8(6), []byte{17, 0, 18, 6}) // keys that are not strings
	f.Add(uint8(7), []byte{4, 9, 6, 15, 2, 6})
	f.Add(uint8(1), []byte{0, 43, 2, 6}) // a value whose __index raises
	// Compiled once: parsing it is most of an execution's cost.
	chunk, err := parse.Parse(strings.NewReader(optionPrelude), "prelude")
	if err != nil {
		f.Fatal(err)
	}
	prelude, err := lua.Compile(chunk, "prelude")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		h := hostservices.New(temporal.Fixed(fuzzEpoch))
		L := NewState(Options{Stdout: io.Discard, Now: fuzzEpoch.Time, Modules: HostModules(h, nil)})
		defer L.Close()
		L.Push(L.NewFunctionFromProto(prelude))
		if err := L.PCall(0, 3, nil); err != nil {
			t.Fatal(err)
		}
		calls, values, count := L.CheckTable(-3), L.CheckTable(-2), L.CheckFunction(-1)
		L.Pop(3)
		call := calls.RawGetInt(int(which)%calls.Len() + 1)

		opts := L.NewTable()
		for len(data) >= 2 {
			key := optionKeys[int(data[0])%len(optionKeys)]
			var v lua.LValue
			if i := int(data[1]) % (values.Len() + 1); i < values.Len() {
				v, data = values.RawGetInt(i+1), data[2:]
			} else if len(data) >= 10 {
				v, data = lua.LNumber(math.Float64frombits(binary.LittleEndian.Uint64(data[2:10]))), data[10:]
			} else {
				break
			}
			opts.RawSet(key, v)
		}

		// Jobs on the Go host (runtime-timers), the script's scheduler and
		// its make-scheduler host.
		pending := func() int {
			L.Push(count)
			L.Call(0, 1)
			n := int(L.CheckNumber(-1))
			L.Pop(1)
			return n + h.Scheduler().Count()
		}
		before := pending()
		L.Push(call)
		L.Push(opts)
		err := L.PCall(1, lua.MultRet, nil)
		if err == nil {
			return
		}
		var api *lua.ApiError
		if !errors.As(err, &api) || api.Type == lua.ApiErrorPanic {
			t.Fatalf("a Go panic reached the script: %v", err)
		}
		name := optionCallNames[int(which)%len(optionCallNames)]
		if msg := api.Object.String(); !strings.Contains(msg, "bad argument #") && !strings.Contains(msg, ": "+name+": ") {
			t.Fatalf("%s refused without naming itself in \"bad argument\" or \"%s: \": %s", name, name, msg)
		}
		if after := pending(); after != before {
			t.Fatalf("a refused call changed the host's pending jobs: %d -> %d", before, after)
		}
	})
}

// Limits of one fuzzed script. Until NewState has budgets, a context
// deadline stops Lua code (gopher-lua checks it before each instruction)
// and scriptHeapLimit stops a script that allocates in a few large steps,
// which the deadline alone lets through.
const (
	maxScriptLen    = 1024
	scriptDeadline  = 50 * time.Millisecond
	scriptHeapLimit = 512 << 20
)

// fuzzBudgets are the budgets a fuzzed script runs under: a runaway, a
// drain that never ends and an allocation spree each end in a Lua error.
func fuzzBudgets(o Options) Options {
	o.Budget, o.DrainBudget, o.MemoryLimit = temporal.Duration(scriptDeadline), temporal.Duration(scriptDeadline), scriptHeapLimit
	return o
}

// scriptSeeds are whole scripts that touch each module and each part of
// the sandbox FuzzScript mutates from.
var scriptSeeds = []string{
	`print("hello")`,
	`local T = require "temporal"
local S = require "runtime-scheduler"
local s = S.create{ clock = T.clock.fixed(T.instant.parse("2024-03-09T00:00:00Z")) }
local n = 0
s:schedule_every{ interval = T.duration{ milliseconds = 5 }, callback = function() n = n + 1 end }
local h = s:schedule_once{ delay = T.duration{ milliseconds = 12 }, callback = function() s:clear() end }
s:advance(T.duration{ milliseconds = 20 })
assert(n == 2 and not h["active?"](h))`,
	`local T = require "temporal"
local rs = T["recurrence-set"]{ dtstart = "2024-03-09T02:30:00", rrule = "FREQ=DAILY;COUNT=3", exdate = { "2024-03-10T02:30:00" } }
for _, at in ipairs(rs:occurrences{ ["zone-id"] = "America/New_York", disambiguation = "compatible", limit = 10 }) do
	print(tostring(at), at:to_zoned_string("America/New_York"))
end`,
	`local T = require "temporal"
local d = T.duration.parse("PT1H30M") + T.duration["from-ms"](16.6) - T.duration{ nanoseconds = 1 }
print(tostring(d), d["total-ms"](d), tostring(-d), d == d, d < d * 2)
print(T.instant.parse("2024-03-10T06:59:00.25+01:00") - T.instant["from-epoch-ms"](0))`,
	`local RT = require "runtime-timers"
local host = require "app-host"
local t = RT.Timeout{ ["delay-ms"] = 100, callback = function() host.quit() end }
local i = RT.Interval{ ["interval-ms"] = 0.5, callback = function() end }
local db = RT.Debouncer{ ["delay-ms"] = 10, callback = print }
db("a") db("b") i:cancel() RT.clear()`,
	`local services = require "app-host.services"
local hs = services["make-scheduler"]{}
hs:register("ai", { update = function(self, dt) self.t = (self.t or 0) + dt end })
hs:register("physics", function(dt) end)
hs:update(16) hs:set_paused(true) hs:update(16) hs:step(16)
print(#hs:list(), hs["paused?"](hs))`,
	`local ok, err = pcall(error, { code = 1 })
local ok2, err2 = pcall(function() local x = nil; return x.y end)
print(ok, type(err), ok2, err2)
print(xpcall(function() error("deep", 2) end, function(m) return "handled: " .. tostring(m) end))`,
	`local n = 0
local f = function() n = n + 1 end
pcall(function() f(); error("x") end)
f()
assert(n == 2, "upvalues closed too early (gopher-lua#448)")`,
	`local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1); return b * 2 end)
print(co(1), co(10))
local c = coroutine.create(function() error("in coroutine") end)
print(coroutine.resume(c))`,
	`local f = load("return 1 + ...")
print(f(2), load("\27Lua"), load("x =", "chunk"), loadstring("return _G"))
print(load(function() return nil end))`,
	`print(pcall(require, "missing.module"), pcall(require, "../etc/passwd"), dofile, loadfile, io, os.execute)
print(os.time(), os.date("!%Y-%m-%dT%H:%M:%S"), os.clock(), os.time{ year = 2024, month = 3, day = 9 })`,
	`local t = setmetatable({}, { __index = function(_, k) error("no " .. tostring(k)) end,
	__newindex = function() error("read-only") end, __tostring = function() return "T" end })
print(pcall(function() return t.x end), pcall(function() t.y = 1 end), tostring(t))
print(string.format("%5.2f|%q|%x", 1.5, "a\nb", 255), ("abc"):upper(), string.find("hello", "l+"))`,
	`local t = {}
for i = 1, 100 do t[i] = i * i end
table.sort(t, function(a, b) return a > b end)
print(table.concat(t, ",", 1, 5), #t, select("#", unpack(t, 1, 10)), math.max(unpack(t, 1, 50)))`,
	`while true do end`,
	`local function f() return f() end return f()`,
	`local function f(n) return n == 0 and 0 or 1 + f(n - 1) end print(pcall(f, 1e6))`,
	`local T = require "temporal"
local S = require "runtime-scheduler"
local s = S.create{}
local function rearm() s:schedule_once{ delay = T.duration{}, callback = rearm } end
rearm()
print(pcall(s.advance, s, T.duration{ milliseconds = 1 }))`,
	`local T = require "temporal"
local S = require "runtime-scheduler"
local s = S.create{}
s:schedule_once{ delay = T.duration{ milliseconds = 1 }, callback = function() s:advance(T.duration{}) end }
print(pcall(s.advance, s, T.duration{ milliseconds = 1 }))
s:drop() print(pcall(s.count, s), s:drop())`,
	`print(load("return " .. ("{"):rep(1e5) .. ("}"):rep(1e5)), load(("do "):rep(1e5) .. ("end "):rep(1e5)))
print(load("return " .. ("1+"):rep(3e5) .. "1"), load("return " .. ("function() return "):rep(1e4) .. "1" .. (" end"):rep(1e4)))
local t = {} for i = 1, 2e4 do t[i] = "x" .. i .. "=" .. i end print(load(table.concat(t, " ")))`,
	`local T = require "temporal"
print(pcall(T.duration, { seconds = 1.5 }), pcall(T.duration, { years = 1 }), pcall(T.instant.parse, "2024-03-10T06:59:00"))
print(pcall(T["recurrence-set"], { dtstart = "2024-03-09T02:30:00Z", rrule = "FREQ=DAILY" }))`,
}

// FuzzScript runs a fuzzed script in a sandboxed state on a Go host, then
// moves the host a frame so that what the script scheduled runs too. No Go
// panic reaches the script or escapes, and the process survives: a runaway
// is stopped by its budget, an allocation spree by the memory limit.
// Scripts longer than maxScriptLen are skipped.
func FuzzScript(f *testing.F) {
	for _, s := range scriptSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > maxScriptLen {
			t.Skip("longer than maxScriptLen")
		}
		h := hostservices.New(temporal.Fixed(fuzzEpoch))
		L := NewState(fuzzBudgets(Options{Stdout: io.Discard, Now: fuzzEpoch.Time, CPUClock: func() float64 { return 0 },
			Modules: HostModules(h, nil)}))
		defer L.Close()

		fn, err := sandbox.Compile(L, src, "fuzz.lua")
		if err != nil {
			return
		}
		// The main chunk runs with a message handler, as metronome test runs
		// a test body and every callback runs: the handler is one more value
		// on the registry.
		L.Push(fn)
		if escaped(t, "the main chunk", func() error {
			return PCall(L, 0, 0, L.NewFunction(func(L *lua.LState) int { L.Push(L.Get(1)); return 1 }))
		}) {
			return
		}
		escaped(t, "a frame", func() error { return Drain(L, "update", func() error { return h.Update(1) }) })
	})
}

// escaped runs call and fails t when a Go panic escapes it or comes back as
// its error (a protected call turns a Go panic into an *lua.ApiError of
// type ApiErrorPanic): either way a script reached a Go bug. It reports
// whether call panicked, leaving the state unusable.
func escaped(t *testing.T, what string, call func() error) (panicked bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: a Go panic escaped the protected call: %v", what, r)
		}
	}()
	checkNoGoPanic(t, what, call())
	return false
}

// checkNoGoPanic fails t when err is a Go panic that a protected call
// turned into an error: a script reached a Go bug.
func checkNoGoPanic(t *testing.T, what string, err error) {
	t.Helper()
	var api *lua.ApiError
	if errors.As(err, &api) && api.Type == lua.ApiErrorPanic {
		t.Fatalf("%s: a Go panic reached the script: %v", what, err)
	}
}

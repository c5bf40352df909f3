package scripting

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/temporal"
	lua "github.com/yuin/gopher-lua"
)

// luaClass is one ---@class of lua/types: its fields, and which of them
// are optional (name?).
type luaClass struct {
	fields   map[string]bool // name -> optional (or a method)
	file     string
	declared bool
}

var (
	classLine = regexp.MustCompile(`^---@class ([\w.]+)`)
	fieldLine = regexp.MustCompile(`^---@field (?:\["([^"]+)"\]|(\w+))(\??) (fun\()?`)
)

// readLuaTypes parses the ---@class and ---@field lines of lua/types.
func readLuaTypes(t *testing.T) map[string]*luaClass {
	t.Helper()
	files, err := filepath.Glob("../types/*.lua")
	if err != nil || len(files) == 0 {
		t.Fatalf("no definition files in lua/types: %v", err)
	}
	classes := map[string]*luaClass{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		var cur *luaClass
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			line := sc.Text()
			if m := classLine.FindStringSubmatch(line); m != nil {
				cur = &luaClass{fields: map[string]bool{}, file: filepath.Base(f), declared: true}
				classes[m[1]] = cur
				continue
			}
			if m := fieldLine.FindStringSubmatch(line); m != nil && cur != nil {
				// A record's method (fun) comes from its metatable, not
				// a key of its own: like an optional key, it need not be
				// there.
				cur.fields[m[1]+m[2]] = m[3] == "?" || m[4] != ""
				continue
			}
			if !strings.HasPrefix(line, "---") {
				cur = nil
			}
		}
		fh.Close()
	}
	return classes
}

// The modules, types and records a script can reach, each mapped to its
// class in lua/types.
var (
	moduleClasses = map[string]string{
		"temporal":          "Temporal",
		"temporal.duration": "Temporal.DurationModule",
		"temporal.instant":  "Temporal.InstantModule",
		"temporal.clock":    "Temporal.ClockModule",
		"runtime-scheduler": "RuntimeScheduler",
		"app-host":          "AppHost",
		"app-host.services": "AppHost.Services",
		"runtime-timers":    "RuntimeTimers",
		"event-loop":        "EventLoop",
	}
	typeClasses = map[string]string{
		durationType:     "Temporal.Duration",
		instantType:      "Temporal.Instant",
		clockType:        "Temporal.Clock",
		recurrenceType:   "Temporal.RecurrenceSet",
		schedulerType:    "RuntimeScheduler.Scheduler",
		hostType:         "AppHost.Scheduler",
		debouncerType:    "RuntimeTimers.Debouncer",
		handleType:       "RuntimeScheduler.Handle",
		eventLoopType:    "EventLoop.Loop",
		timerHandleType:  "RuntimeScheduler.Timer",
		completionType:   "RuntimeScheduler.Completion",
		ownerType:        "RuntimeScheduler.Owner",
		keyDebouncerType: "RuntimeScheduler.Debouncer",
		spawnHandleType:  "RuntimeScheduler.Spawn",
	}
	// Types whose __index is a function: their names come from Go.
	indexFuncNames = map[string][]string{
		handleType:      append(namesOf(handleMethods), "id"),
		timerHandleType: append(namesOf(timerMethods), "id", "key", "generation"),
		ownerType:       append(namesOf(ownerMethods), "id"),
		spawnHandleType: append(namesOf(spawnMethods), "id"),
	}
	recordClasses = map[string]string{
		"payload": "RuntimeScheduler.Occurrence",
		"fields":  "Temporal.Fields",
		"job":     "RuntimeScheduler.JobRecord",
		"every":   "RuntimeScheduler.JobRecord",
		"rec":     "RuntimeScheduler.JobRecord",
		"fire":    "RuntimeScheduler.TraceRecord",
		"info":    "AppHost.ErrorInfo",
		"tick":    "RuntimeScheduler.Tick",
		"timer":   "RuntimeScheduler.JobRecord",
		"keyfire": "RuntimeScheduler.TraceRecord",
	}
	// Record keys a record's __index serves instead of holding: a leaf
	// callback's tick table reads its indices from the tick that runs.
	servedKeys = map[string][]string{
		"tick": {"delivery-index", "scheduled-index"},
	}
	// Registry entries that are not Metronome types.
	notTypes = []string{"_LOADED", "_LOADERS", "metronome.record"}
)

// namesOf lists a method map's names in both spellings.
func namesOf(m map[string]lua.LGFunction) []string {
	var out []string
	for k := range m {
		out = append(out, k)
		if s := snake(k); s != k {
			out = append(out, s)
		}
	}
	return out
}

// reachAll makes one of everything a script can reach: MODS holds the
// modules, RECORDS one record of each kind.
const reachAll = `
local T = require "temporal"; local RS = require "runtime-scheduler"; local S = require "app-host.services"
local RT = require "runtime-timers"; local A = require "app-host"; local EL = require "event-loop"
EL.new{}
local s = RS.create{ clock = T.clock.fixed(T.instant.parse("2000-01-01T00:00:00Z")) }
local h = s:schedule_once{ delay = T.duration{ hours = 24 }, callback = function() end }
s:schedule_every{ interval = T.duration{ seconds = 1 }, callback = function() end }
local rs = T["recurrence-set"]{ dtstart = "2000-01-01T12:00:00", rrule = "FREQ=DAILY" }
local payload
s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "UTC", callback = function(p) payload = p end }
s:trace(true)
s:advance(T.duration{ hours = 13 })
local tick
local tm = s:register_timer{ key = "k", interval = T.duration{ hours = 1 }, callback = function(t) tick = t end }
s:advance(T.duration{ hours = 1 })
local keyfire = s:trace()[#s:trace()]
local o = s:owner{ lease = T.duration{ hours = 1 } }
s:spawn(function() s:wait(T.duration{ hours = 1 }) end)
local deb = s:debouncer{ timeout = T.duration{ hours = 1 }, callback = function() end }
deb:debounce("key")
local jobs = s:list()
local byKind = {}
for _, j in ipairs(jobs) do byKind[j.kind] = j end
local info
local hs = S["make-scheduler"]{}
hs:on_error(function(_, i) info = i end)
hs:schedule_once{ delay = T.duration{}, callback = function() error("x") end }
hs:update(0)
RT.Debouncer{ ["delay-ms"] = 1, callback = function() end }
local _ = h, T.clock.system, o, tm:cancel()
MODS = { temporal = T, ["runtime-scheduler"] = RS, ["app-host.services"] = S, ["runtime-timers"] = RT, ["app-host"] = A, ["event-loop"] = EL,
  ["temporal.duration"] = T.duration, ["temporal.instant"] = T.instant, ["temporal.clock"] = T.clock }
RECORDS = { payload = payload, fields = T.instant.parse("2000-01-01T00:00:00Z"):fields("UTC"), job = byKind.once,
  every = byKind.every, rec = byKind.recurrence, fire = s:trace()[1], info = info,
  tick = tick, timer = byKind.timer, keyfire = keyfire }
HANDLE = h
`

// Every name a binding gives scripts has an annotation in lua/types, and
// every annotation of a module, type or record names something that exists.
func TestLuaTypesCoverTheBindings(t *testing.T) {
	classes := readLuaTypes(t)
	h := hostservices.New(temporal.Fixed(temporal.FromUnixNano(0)))
	L := NewState(Options{Modules: HostModules(h, nil)})
	defer L.Close()
	if err := L.DoString(reachAll); err != nil {
		t.Fatal(err)
	}
	compare := func(what, class string, got []string) {
		c, ok := classes[class]
		if !ok {
			t.Errorf("%s: no ---@class %s in lua/types", what, class)
			return
		}
		for _, n := range got {
			if _, ok := c.fields[n]; !ok {
				t.Errorf("%s: %q has no ---@field in class %s (%s)", what, n, class, c.file)
			}
		}
		for n := range c.fields {
			if !slices.Contains(got, n) {
				t.Errorf("%s: class %s (%s) annotates %q, which does not exist", what, class, c.file, n)
			}
		}
	}
	mods := L.GetGlobal("MODS").(*lua.LTable)
	for name, class := range moduleClasses {
		mod, ok := mods.RawGetString(name).(*lua.LTable)
		if !ok {
			t.Errorf("module %s: not reached", name)
			continue
		}
		compare("module "+name, class, keysOf(mod))
	}
	seen := map[string]bool{}
	L.G.Registry.ForEach(func(k, v lua.LValue) {
		name := k.String()
		mt, ok := v.(*lua.LTable)
		if !ok || slices.Contains(notTypes, name) {
			return
		}
		seen[name] = true
		class, ok := typeClasses[name]
		if !ok {
			t.Errorf("type %q has no class in lua/types: annotate it and map it in typeClasses", name)
			return
		}
		switch idx := mt.RawGetString("__index").(type) {
		case *lua.LTable:
			compare("type "+name, class, keysOf(idx))
		case *lua.LFunction:
			names, ok := indexFuncNames[name]
			if !ok {
				t.Errorf("type %q: its __index is a function; list its names in indexFuncNames", name)
				return
			}
			compare("type "+name, class, names)
		}
	})
	for name := range typeClasses {
		if !seen[name] {
			t.Errorf("type %q: not reached (make one in reachAll)", name)
		}
	}
	records := L.GetGlobal("RECORDS").(*lua.LTable)
	for name, class := range recordClasses {
		r, ok := records.RawGetString(name).(*lua.LTable)
		if !ok {
			t.Errorf("record %s: not reached", name)
			continue
		}
		c, ok := classes[class]
		if !ok {
			t.Errorf("record %s: no ---@class %s in lua/types", name, class)
			continue
		}
		got := keysOf(r)
		for _, k := range servedKeys[name] {
			if L.GetField(r, k) == lua.LNil {
				t.Errorf("record %s: served key %q reads nil", name, k)
			}
			got = append(got, k)
		}
		for _, k := range got {
			for _, n := range slices.Compact([]string{k, snake(k)}) {
				if _, ok := c.fields[n]; !ok {
					t.Errorf("record %s: key %q has no ---@field in class %s", name, n, class)
				}
			}
		}
		for n, optional := range c.fields {
			if !optional && !slices.Contains(got, kebab(n)) && !slices.Contains(got, n) {
				t.Errorf("record %s: class %s annotates %q as always there, but it is not", name, class, n)
			}
		}
	}
}

func keysOf(t *lua.LTable) []string {
	var out []string
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			out = append(out, string(s))
		}
	})
	sort.Strings(out)
	return out
}

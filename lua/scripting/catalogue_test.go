package scripting

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

var printCatalogue = flag.Bool("print-catalogue", false, "print the messages of TestBadInputCatalogue")

// catalogueState makes a state as `metronome test` makes one for a file
// (luatest.HostStateWith): the host modules on a host of its own whose
// clock is fixed at 2000-01-01T00:00:00Z, the host as the default clock,
// os.time and os.clock on its virtual time. It then runs cataloguePrelude.
func catalogueState(t *testing.T) (*lua.LState, *hostservices.Host) {
	t.Helper()
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := NewState(Options{
		Stdout:   io.Discard,
		Modules:  HostModules(h, nil),
		Now:      func() time.Time { return h.Now().Time() },
		CPUClock: func() float64 { return h.Scheduler().Elapsed().Std().Seconds() },
		Clock:    h,
	})
	t.Cleanup(L.Close)
	L.SetGlobal("snapshot", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(catalogueSnapshot(L, h)))
		return 1
	}))
	if err := doChunk(L, "prelude.lua", cataloguePrelude); err != nil {
		t.Fatal(err)
	}
	return L, h
}

// cataloguePrelude gives every row the same world: pending work of each
// kind on each scheduler (so a bad call has something to disturb), time
// moved off the epoch, a facet, a pending Debouncer and a trace running.
const cataloguePrelude = `
Temporal = require "temporal"
D, I = Temporal.duration, Temporal.instant
RS = require "runtime-scheduler"
services = require "app-host.services"
hs = require("app-host").scheduler
tm = require "runtime-timers"
clock = Temporal.clock.fixed(I.parse("2000-01-01T00:00:00Z"))
fired = 0
cb = function() fired = fired + 1 end
ns = function(n) return D{ nanoseconds = n } end
ms5 = D{ milliseconds = 5 }
huge = D{ seconds = 9e9 }
daily = Temporal["recurrence-set"]{ dtstart = "2000-01-01T09:00:00", rrule = "FREQ=DAILY" }
forever = Temporal["recurrence-set"]{ dtstart = "2000-01-01T00:00:00", rrule = "FREQ=SECONDLY" }
gap = Temporal["recurrence-set"]{ dtstart = "2000-04-02T02:30:00", rrule = "FREQ=DAILY;COUNT=1" }

s = RS.create{ clock = clock }
s:trace(true)
h1 = s:schedule_once{ delay = ms5, callback = cb }
s:schedule_every{ interval = D{ milliseconds = 10 }, callback = cb }
s:schedule_recurrence{ recurrence_set = daily, zone_id = "Europe/Paris", callback = cb }
s:advance(D{ milliseconds = 1 })

hs:schedule_once{ delay = ms5, callback = cb }
hs:schedule_every{ interval = D{ milliseconds = 16 }, callback = cb }
hs:register("physics", function(dt) end)
hs:update(1)
tm.Timeout{ delay_ms = 100, callback = cb }
tm.Interval{ interval_ms = 50, callback = cb }
db = tm.Debouncer{ delay_ms = 30, callback = cb }
db("x")

ms = services.make_scheduler{ clock = clock }
ms:schedule_once{ delay = ms5, callback = cb }
ms:register("ai", { update = function(self, dt) end })

gone = RS.create{ clock = clock }
gone:drop()
`

// catalogueSnapshot describes everything a bad call must leave alone: each
// scheduler's time, pending jobs (ids, kinds, deadlines) and trace, the
// hosts' facets and pause, the Debouncer, and how many callbacks ran.
func catalogueSnapshot(L *lua.LState, h *hostservices.Host) string {
	var b strings.Builder
	snapHost(&b, "host", h)
	if ud, ok := L.GetGlobal("s").(*lua.LUserData); ok {
		if ls, ok := ud.Value.(*luaScheduler); ok {
			snapSched(&b, "s", ls.s)
			fmt.Fprintf(&b, "s tracing=%v trace=%d\n", ls.trace.on, len(ls.trace.fires))
			for _, f := range ls.trace.fires {
				fmt.Fprintf(&b, "  fire %v #%d %v %d\n", f.At, f.ID, f.Kind, f.ScheduledIndex)
			}
		}
	}
	if ud, ok := L.GetGlobal("ms").(*lua.LUserData); ok {
		if lh, ok := ud.Value.(*luaHost); ok {
			snapHost(&b, "ms", lh.h)
		}
	}
	if ud, ok := L.GetGlobal("db").(*lua.LUserData); ok {
		if ld, ok := ud.Value.(*luaDebouncer); ok {
			fmt.Fprintf(&b, "db pending=%v\n", ld.d.Pending())
		}
	}
	if ud, ok := L.GetGlobal("gone").(*lua.LUserData); ok {
		if ls, ok := ud.Value.(*luaScheduler); ok {
			fmt.Fprintf(&b, "gone dropped=%v count=%d\n", ls.s.Dropped(), ls.s.Count())
		}
	}
	fmt.Fprintf(&b, "fired=%v\n", L.GetGlobal("fired"))
	return b.String()
}

func snapHost(b *strings.Builder, name string, h *hostservices.Host) {
	snapSched(b, name, h.Scheduler())
	fmt.Fprintf(b, "%s facets=%q paused=%v\n", name, h.Facets(), h.Paused())
}

func snapSched(b *strings.Builder, name string, s *sched.Scheduler) {
	fmt.Fprintf(b, "%s now=%v count=%d dropped=%v running=%v\n", name, s.Now(), s.Count(), s.Dropped(), s.Running())
	for _, j := range s.List() {
		fmt.Fprintf(b, "  %s #%d %v at %v in %v every %v occ %d %s %s\n", name, j.ID, j.Kind, j.DueAt, j.DueIn, j.Interval, j.OccurrenceIndex, j.Group, j.Label)
	}
}

// The next id each scheduler hands out, read after a row by scheduling
// one more job: a bad call must not use one up.
const catalogueProbe = `return s:schedule_once{ delay = ns(0), callback = cb }.id,
	hs:schedule_once{ delay = ns(0), callback = cb }.id,
	ms:schedule_once{ delay = ns(0), callback = cb }.id`

func probeIDs(L *lua.LState) (string, error) {
	if err := doChunk(L, "probe.lua", catalogueProbe); err != nil {
		return "", err
	}
	defer L.SetTop(0)
	return fmt.Sprint(L.Get(1), L.Get(2), L.Get(3)), nil
}

// doChunk runs src as a chunk named name, leaving its results on the stack.
func doChunk(L *lua.LState, name, src string) error {
	fn, err := L.Load(strings.NewReader(src), name)
	if err != nil {
		return err
	}
	L.Push(fn)
	return L.PCall(0, lua.MultRet, nil)
}

// A catalogue row is one malformed call. Its message must contain the Lua
// function's name (fn), the parameter (param), the value as shown (got) and
// the accepted domain (want), and a row.lua position; the state must be
// the same after it as before.
type catalogueRow struct {
	name, src, fn, param, got, want string
}

// inCallback wraps call so that it runs inside a zero-delay callback of the
// scheduler named by on ("s", "hs" or "ms"), comparing snapshots there,
// around the bad call: the drive that runs the callback changes time.
func inCallback(on, drive, call string) string {
	return on + `:schedule_once{ delay = ns(0), callback = function()
		local before = snapshot()
		local ok, m = pcall(function() ` + call + ` end)
		local after = snapshot()
		if ok then caught = "no error" elseif before ~= after then caught = "state changed:\n" .. before .. "\n" .. after else caught = m end
	end }
	` + drive + `
	error(caught, 0)`
}

func TestBadInputCatalogue(t *testing.T) {
	L0, _ := catalogueState(t)
	wantIDs, err := probeIDs(L0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, rows := range [][]catalogueRow{catalogueTemporal, catalogueScheduler, catalogueHost, catalogueTimers, catalogueEventLoop, catalogueNames} {
		for _, r := range rows {
			if seen[r.name] {
				t.Fatalf("two rows named %q", r.name)
			}
			seen[r.name] = true
			t.Run(r.name, func(t *testing.T) { runCatalogueRow(t, r, wantIDs) })
		}
	}
	if n := len(seen); n < 150 {
		t.Errorf("%d rows, want at least 150", n)
	}
}

func runCatalogueRow(t *testing.T, r catalogueRow, wantIDs string) {
	L, h := catalogueState(t)
	nested := strings.Contains(r.src, "snapshot()")
	before := catalogueSnapshot(L, h)
	err := doChunk(L, "row.lua", r.src)
	if err == nil {
		t.Fatalf("%s: no error", r.src)
	}
	msg := lua.LVAsString(err.(*lua.ApiError).Object)
	if *printCatalogue {
		fmt.Printf("ROW\t%s\t%q\n", r.name, msg)
	}
	if !strings.HasPrefix(msg, "row.lua:") {
		t.Errorf("message has no row.lua position: %q", msg)
	}
	for _, part := range []struct{ what, s string }{{"function", r.fn}, {"parameter", r.param}, {"value", r.got}, {"domain", r.want}} {
		if part.s == "" || !strings.Contains(msg, part.s) {
			t.Errorf("the %s %q is not in the message\n%s", part.what, part.s, msg)
		}
	}
	if !nested {
		if after := catalogueSnapshot(L, h); after != before {
			t.Errorf("state changed:\nbefore\n%s\nafter\n%s", before, after)
		}
		if ids, err := probeIDs(L); err != nil || ids != wantIDs {
			t.Errorf("next ids after the call: %s (%v), want %s", ids, err, wantIDs)
		}
	}
}

// The snapshot and the id probe see each change a bad call could make: if
// they did not, the catalogue's "nothing changed" would prove nothing.
func TestCatalogueSnapshotSeesChanges(t *testing.T) {
	L0, _ := catalogueState(t)
	wantIDs, err := probeIDs(L0)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`s:advance(ns(1))`,
		`s:schedule_once{ delay = ms5, callback = cb }:cancel()`, // an id used up
		`h1:cancel()`,
		`s:trace(false)`,
		`hs:schedule_once{ delay = ms5, callback = cb }`,
		`hs:unregister("physics")`,
		`hs:set_paused(true)`,
		`tm.clear()`,
		`db:cancel()`,
		`ms:step(1)`,
		`ms:unregister("ai")`,
		`cb()`,
	} {
		t.Run(src, func(t *testing.T) {
			L, h := catalogueState(t)
			before := catalogueSnapshot(L, h)
			if err := doChunk(L, "change.lua", src); err != nil {
				t.Fatal(err)
			}
			L.SetTop(0)
			if catalogueSnapshot(L, h) != before {
				return
			}
			if ids, err := probeIDs(L); err != nil || ids != wantIDs {
				return
			}
			t.Errorf("%s: neither the snapshot nor the id probe changed", src)
		})
	}
}

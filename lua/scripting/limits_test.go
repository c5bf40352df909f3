package scripting

import (
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	"github.com/metronome-rt/metronome/temporal"
)

// A script scheduling past a scheduler's cap gets an error at exactly the
// job past it, from runtime-scheduler, the host's own jobs and
// runtime-timers alike (the last two share the host's scheduler); the
// refusal changes nothing and the scheduler goes on once there is room.
func TestPendingCapInLua(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	if err := h.Scheduler().SetLimits(0, 300); err != nil {
		t.Fatal(err)
	}
	L := hostState(t, h, nil)
	doString(t, L, `
		local Temporal = require "temporal"
		local RS = require "runtime-scheduler"
		local RT = require "runtime-timers"
		local hs = require("app-host").scheduler
		local d = Temporal.duration{ milliseconds = 1 }
		local function noop() end

		-- fill calls add(i) until it fails; it returns how many succeeded
		-- and the error.
		local function fill(add)
			for i = 1, 1e7 do
				local ok, err = pcall(add, i)
				if not ok then return i - 1, err end
			end
		end

		s = RS.create{ clock = Temporal.clock.fixed(Temporal.instant.parse("2000-01-01T00:00:00Z")) }
		bad = select(2, pcall(s["set-max-pending"], s, 0))
		s["set-max-pending"](s, 1000)
		n_once, err_once = fill(function(i) s:schedule_once{ delay = d, callback = noop } end)
		n_every, err_every = fill(function() s:schedule_every{ interval = d, callback = noop } end)
		count_full = s:count()
		s:advance(d)
		after = s:count()
		s:schedule_once{ delay = d, callback = noop }
		after_room = s:count()

		-- a callback that never stops scheduling
		s:clear()
		s:schedule_once{ delay = d, callback = function()
			for i = 1, 1e7 do s:schedule_once{ delay = d, callback = noop } end
		end }
		runaway = select(2, pcall(s.advance, s, d))
		runaway_count = s:count()

		n_host, err_host = fill(function() hs:schedule_once{ delay = d, callback = noop } end)
		n_timers, err_timers = fill(function() RT.Timeout{ ["delay-ms"] = 1, callback = noop } end)
		hs:clear()
		n_timers2, err_timers2 = fill(function() RT.Interval{ ["interval-ms"] = 1, callback = noop } end)
	`)
	get := func(name string) string { return L.GetGlobal(name).String() }
	for name, want := range map[string]string{
		"bad":           "<string>:19: bad argument #2 to 'set-max-pending' (an integer >= 1 expected, got number 0)",
		"n_once":        "1000",
		"err_once":      "<string>:21: schedule-once: too many pending jobs: the cap is 1000",
		"n_every":       "0",
		"err_every":     "<string>:22: schedule-every: too many pending jobs: the cap is 1000",
		"count_full":    "1000",
		"after":         "0",
		"after_room":    "1",
		"runaway_count": "1000",
		"n_host":        "300",
		"err_host":      "<string>:37: schedule-once: too many pending jobs: the cap is 300",
		"n_timers":      "0",
		"err_timers":    "<string>:38: Timeout: too many pending jobs: the cap is 300",
		"n_timers2":     "300",
		"err_timers2":   "<string>:40: Interval: too many pending jobs: the cap is 300",
	} {
		if got := get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got, want := get("runaway"), "<string>:32: schedule-once: too many pending jobs: the cap is 1000"; !strings.HasPrefix(got, want) || !strings.Contains(got, "[job] once #1002 scheduled at <string>:31") {
		t.Errorf("runaway = %q, want it to start with %q and name the job", got, want)
	}
}

// occurrences refuses a window of more than temporal.MaxOccurrences
// occurrences, naming :before or :limit, rather than filling memory until the
// process dies.
func TestOccurrencesWindowIsBounded(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	doString(t, L, `
		local Temporal = require "temporal"
		local I = Temporal.instant
		rs = Temporal["recurrence-set"]{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=SECONDLY" }
		far = I.parse("2124-01-01T00:00:00Z")
		exact = #rs:occurrences{ zone_id = "UTC", before = I.parse("2024-01-12T13:46:40Z") }
	`)
	if got := L.GetGlobal("exact").String(); got != "1000000" {
		t.Fatalf("a window of exactly the bound: %s occurrences", got)
	}
	for src, want := range map[string]string{
		`rs:occurrences{ zone_id = "UTC", before = far }`:              "<string>:1: bad argument #2 to 'occurrences' (:before: more than 1000000 occurrences: give a smaller limit or an earlier before)",
		`rs:occurrences{ zone_id = "UTC", limit = 2^53 }`:              "<string>:1: bad argument #2 to 'occurrences' (:limit: more than 1000000 occurrences: give a smaller limit or an earlier before)",
		`rs:occurrences{ zone_id = "UTC", limit = 2e6, before = far }`: "<string>:1: bad argument #2 to 'occurrences' (:before: more than 1000000 occurrences: give a smaller limit or an earlier before)",
	} {
		if got := luaeval.Err(t, L, "local _ = "+src); got != want {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
	}
}

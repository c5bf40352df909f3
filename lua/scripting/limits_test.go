package scripting

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/temporal"
)

// pcallResults runs `return pcall(function() return <expr> end)` and
// renders the results.
func pcallResults(L *lua.LState, expr string) string {
	top := L.GetTop()
	if err := L.DoString("return pcall(function() return " + expr + " end)"); err != nil {
		return "load: " + err.Error()
	}
	var got []string
	for i := top + 1; i <= L.GetTop(); i++ {
		got = append(got, L.Get(i).String())
	}
	L.SetTop(top)
	return strings.Join(got, " | ")
}

// Below the limit, the checked string.rep, string.gsub, string.format and
// table.concat return what gopher-lua's own do, errors included (but %q,
// which quotes as Lua 5.1 does: TestFormatQuotesAsLua).
func TestStringLimitsKeepGopherLuaResults(t *testing.T) {
	stock := lua.NewState()
	defer stock.Close()
	L, _ := newSandbox(t, Options{})
	for _, expr := range []string{
		`string.rep("ab", 3)`, `string.rep("ab", 0)`, `string.rep("ab", -2)`, `string.rep("ab", 2.7)`,
		`string.rep("", 1e10)`, `string.rep("ab", 3, ",")`, `string.rep("ab", 0/0)`,
		`string.rep("ab")`, `string.rep(nil, 2)`, `string.rep(12, 2)`, `string.rep("a", "3")`,
		`("x"):rep(4)`,
		`string.gsub("hello world", "o", "%0%0")`, `string.gsub("hello world", "(o)", "[%1%%%x]")`,
		`string.gsub("hello", "l", {l = "L"})`, `string.gsub("hello", "()l", function(p) return p end)`,
		`string.gsub("hello", "(h)(e)", function(a, b) return b .. a end)`,
		`string.gsub("hello", "l", "%2")`, `string.gsub("hello", "(l)", "%2")`, `string.gsub("hello", "%", "x")`,
		`string.gsub("hello", "[", "x")`, `string.gsub("hello", "l", "x", 1)`, `string.gsub("hello", "", "-")`,
		`string.gsub("hello", "x*", "-")`, `string.gsub("hello", "l", "%1")`, `string.gsub("hello", "l", "a%")`,
		`string.gsub("hello", "l", false)`, `string.gsub("hello", "l", {})`, `string.gsub("hello", "(l)(l)", {ll = 1, l = 2})`,
		`string.gsub("hello", "l+", function() return false end)`, `string.gsub("hello", "l", function() return 1.5 end)`,
		`string.gsub("hello", "^h", "H")`, `string.gsub("abc", "%w", "%0%0", 0)`, `string.gsub("", "", "x")`,
		`string.gsub("hello", "(e)(l)", "%2%1%0")`, `string.gsub(123, 2, 9)`,
		`string.format("%5d|%-5s|%.3f", 42, "ab", 1/3)`, `string.format("%99999999d", 1)`,
		`string.format("%d %d", 1)`, `string.format("%%")`, `string.format("%s", {})  ~= nil`, `string.format()`,
		`table.concat({1, "a", 2.5}, ", ")`, `table.concat({1, 2, 3}, "-", 2)`, `table.concat({1, 2, 3}, "-", 2, 3)`,
		`table.concat({1, 2, 3}, "-", 5)`, `table.concat({1, 2, 3}, "-", 0)`, `table.concat({1, 2, 3}, "-", 3, 1)`,
		`table.concat({1, {}, 3})`, `table.concat({})`, `table.concat({1, 2, 3}, nil, 1, 9)`, `table.concat("x")`,
	} {
		want, got := pcallResults(stock, expr), pcallResults(L, expr)
		if got != want {
			t.Errorf("%s\n got  %s\n want %s (gopher-lua)", expr, got, want)
		}
	}
}

// A result past the string limit is refused before it is built, with an
// error naming the function, the size asked for and the limit; nothing
// near that size is allocated. Before the check, string.rep("x", 1e10)
// ended the process (Go's fatal out of memory) and string.rep("x", 2^31)
// took 2 GB.
func TestStringLimitRefusesHugeResults(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	cases := []struct{ src, want string }{
		{`string.rep("x", 1e10)`, "<string>:1: bad argument #2 to 'rep' (result of 10000000000 bytes exceeds the 1 GiB string limit)"},
		{`string.rep("x", 2^31)`, "bad argument #2 to 'rep' (result of 2147483648 bytes exceeds the 1 GiB string limit)"},
		{`string.rep("x", 1e10, ",")`, "bad argument #2 to 'rep' (result of 10000000000 bytes exceeds the 1 GiB string limit)"},
		{`("ab"):rep(2^62)`, "bad argument #2 to 'rep' (result of 9.223e+18 bytes exceeds the 1 GiB string limit)"},
		{`string.rep("x", 1e300)`, "bad argument #2 to 'rep' (result of 1e+300 bytes exceeds the 1 GiB string limit)"},
		{`string.format(("%1000000d"):rep(2000), 1)`, "bad argument #1 to 'format' (result of up to 2000818000 bytes exceeds the 1 GiB string limit)"},
	}
	for _, c := range cases {
		if got := sandboxErr(t, L, "local _ = "+c.src); !strings.Contains(got, c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.src, got, c.want)
		}
	}
}

// With Options.MemoryLimit, that is the string limit.
func TestStringLimitFollowsMemoryLimit(t *testing.T) {
	L, _ := newSandbox(t, Options{MemoryLimit: 64 << 10})
	if got := sandboxEval1(t, L, `#("x"):rep(65536)`); got != "65536" {
		t.Fatalf("a string of exactly the limit: %s", got)
	}
	cases := []struct{ src, want string }{
		{`("x"):rep(65537)`, "bad argument #2 to 'rep' (result of 65537 bytes exceeds the 64 KiB string limit)"},
		{`string.format("%s%s", ("x"):rep(2^15), "y")`, "bad argument #1 to 'format' (result of up to 131084 bytes exceeds the 64 KiB string limit)"},
		{`string.format(("%1000000d"):rep(2), 1, 2)`, "bad argument #1 to 'format' (result of up to 2000818 bytes exceeds the 64 KiB string limit)"},
		{`("abc"):rep(20000):gsub("b", "bb")`, "bad argument #3 to 'gsub' (result of 80000 bytes exceeds the 64 KiB string limit)"},
		{`("x"):rep(2^10):gsub("x", ("%0"):rep(65))`, "bad argument #3 to 'gsub' (result of 66560 bytes exceeds the 64 KiB string limit)"},
		{`("x"):rep(2^10):gsub("x", function(c) return ("y"):rep(65) end)`, "bad argument #3 to 'gsub' (result of at least 65585 bytes exceeds the 64 KiB string limit)"},
		{`("x"):rep(2^10):gsub("x", {x = ("y"):rep(65)})`, "bad argument #3 to 'gsub' (result of at least 65585 bytes exceeds the 64 KiB string limit)"},
		{`("x"):rep(2^16):gsub("x", "%0", 1) .. ("x"):rep(2^16):gsub("^", "y")`, "bad argument #3 to 'gsub' (result of 65537 bytes exceeds the 64 KiB string limit)"},
		{`table.concat({("x"):rep(65536), "y"})`, "bad argument #1 to 'concat' (result of 65537 bytes exceeds the 64 KiB string limit)"},
		{`table.concat({("x"):rep(2^15), ("x"):rep(2^15), "x"}, "")`, "bad argument #1 to 'concat' (result of 65537 bytes exceeds the 64 KiB string limit)"},
		{`table.concat({1, 2, 3}, ("-"):rep(2^15 + 1))`, "bad argument #1 to 'concat' (result of at least 65540 bytes exceeds the 64 KiB string limit)"},
	}
	for _, c := range cases {
		if got := sandboxErr(t, L, "local _ = "+c.src); !strings.Contains(got, c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.src, got, c.want)
		}
	}
}

// A script scheduling past a scheduler's cap gets an error at exactly the
// job past it, from runtime-scheduler, the host's own jobs and
// runtime-timers alike (the last two share the host's scheduler); the
// refusal changes nothing and the scheduler goes on once there is room.
func TestPendingCapInLua(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	if err := h.Scheduler().SetMaxPending(300); err != nil {
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
		if got := sandboxErr(t, L, "local _ = "+src); got != want {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
	}
}

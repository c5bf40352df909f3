package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// runaways are the scripts that ran until SIGKILL before budgets: each in
// the main chunk, and each in a job the runner fires after it.
var runaways = map[string]string{
	"loop":               `while true do end`,
	"tail call":          `local function f() return f() end f()`,
	"string.find":        `string.find(("a"):rep(5000), ("a-"):rep(5) .. "b")`,
	"os.clock busy-wait": `local t = os.clock() while os.clock() - t < 1 do end`,
	"pcall":              `while true do pcall(function() while true do end end) end`,
}

// `metronome run --budget 200ms` stops every runaway with exit 1 and a
// message naming the budget and what ran past it.
func TestRunBudgetStopsRunaways(t *testing.T) {
	for name, body := range runaways {
		t.Run(name+" in the main chunk", func(t *testing.T) {
			path := writeScript(t, "f.lua", body)
			code, _, errOut := cli(t, t.Context(), "run", "--budget", "200ms", path)
			if code != 1 || !strings.Contains(errOut, "budget: main chunk "+path+" ran past its 200ms budget") {
				t.Errorf("exit %d, stderr %q; want 1 and the budget named", code, errOut)
			}
		})
		t.Run(name+" in a job", func(t *testing.T) {
			path := writeScript(t, "f.lua", `require("runtime-timers").Timeout{ ["delay-ms"] = 5, callback = function()
				`+body+`
			end }`)
			code, _, errOut := cli(t, t.Context(), "run", "--budget", "200ms", path)
			want := "budget: callback function <" + path + ":1> ran past its 200ms budget"
			if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "\t[job] once #1 scheduled at "+path+":1\n(at 0.005s of virtual time)") {
				t.Errorf("exit %d, stderr %q; want 1, %q and the job", code, errOut, want)
			}
		})
	}
}

// A drain that never ends stops at --drain-budget.
func TestRunDrainBudget(t *testing.T) {
	for name, src := range map[string]string{
		"1ns re-arm, stepped by the script": `
			local T = require "temporal"
			local s = require("app-host").scheduler
			local function rearm() s:schedule_once{ delay = T.duration{ nanoseconds = 1 }, callback = rearm } end
			rearm()
			s:update(1000)`,
		"interval 1e-6 ms, stepped by the script": `
			require("runtime-timers").Interval{ ["interval-ms"] = 1e-6, callback = function() end }
			require("app-host").scheduler:update(1000)`,
	} {
		t.Run(name, func(t *testing.T) {
			path := writeScript(t, "f.lua", src)
			code, _, errOut := cli(t, t.Context(), "run", "--drain-budget", "200ms", path)
			if code != 1 || !strings.Contains(errOut, "ran past its 200ms budget after") {
				t.Errorf("exit %d, stderr %q; want 1 and the drain budget named", code, errOut)
			}
		})
	}
}

// The runner's steps within one frame of virtual time share one drain
// budget: a job that re-arms itself 1 ns later, which the runner steps
// from deadline to deadline in 1 ns steps each far within budget, stops
// with the drain budget's error naming the job, as docs/cli.md shows.
func TestRunDrainBudgetBoundsTheRunnersSteps(t *testing.T) {
	for _, tc := range []struct{ name, src, job string }{
		{"1ns re-arm", `local hs = require("app-host").scheduler
local Temporal = require "temporal"
local function again() hs:schedule_once{ delay = Temporal.duration{ nanoseconds = 1 }, callback = again } end
again()
`, "once"},
		{"1ns re-arm with a facet", `local hs = require("app-host").scheduler
local Temporal = require "temporal" hs:register("ui", function() end)
local function again() hs:schedule_once{ delay = Temporal.duration{ nanoseconds = 1 }, callback = again } end
again()
`, "once"},
		{"interval 1e-6 ms", `local timers = require("runtime-timers")

timers.Interval{ ["interval-ms"] = 1e-6, callback = function() end }
`, "every"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeScript(t, "rearm.lua", tc.src)
			// A bound for a run that would not stop, so that it fails
			// rather than hangs; the run stops long before it.
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			code, _, errOut := cli(t, ctx, "run", "--drain-budget", "200ms", path)
			// Where the budget ran out inside the callback, the error has
			// its position and names it; between two callbacks, it has
			// neither. The traceback names the job either way. The count
			// is the span's: one slow 1 ns step alone is not the bound.
			p := regexp.QuoteMeta(path)
			want := regexp.MustCompile(`^(` + p + `:3: )?drain budget: step ran past its 200ms budget after [1-9][0-9]+ callbacks` +
				`(; callback function <` + p + `:3> was running)?\nstack traceback:\n(.*\n)*\t\[job\] ` + tc.job + ` #[0-9]+ scheduled at ` + p + `:3\n`)
			if code != 1 || !want.MatchString(errOut) {
				t.Errorf("exit %d, stderr %q; want 1 and %v", code, errOut, want)
			}
		})
	}
}

// metronome test applies its budget to each test body; the other tests of
// the file and the other files still run.
func TestTestBudget(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a_test.lua"), []byte(`
test("spins", function(t) while true do end end)
test("passes", function(t) t:ok(true) end)
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := cli(t, t.Context(), "test", "--budget", "100ms", dir)
	if code != 1 || !strings.Contains(out, "ran past its 100ms budget") || !strings.Contains(out, "1 passed, 1 failed") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

// cancelWriter cancels when the script prints "started".
type cancelWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if bytes.Contains(p, []byte("started")) {
		go w.cancel() // as a signal arrives: from another goroutine
	}
	return w.buf.Write(p)
}

// Cancelling the run's context (Ctrl-C, SIGTERM) stops a script busy
// inside Lua, with no budget to do it, as an interrupted run ends.
func TestRunContextStopsLua(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	path := writeScript(t, "f.lua", `print("started") while true do pcall(function() while true do end end) end`)
	w := &cancelWriter{cancel: cancel}
	var stderr bytes.Buffer
	code := run(ctx, []string{"run", "--budget", "0", "--drain-budget", "0", path}, w, &stderr)
	if code != 130 || stderr.String() != "metronome run: interrupted\n" {
		t.Errorf("exit %d, stderr %q; want 130 and interrupted", code, stderr.String())
	}
}

func TestBudgetFlags(t *testing.T) {
	var s sizeFlag
	for in, want := range map[string]int64{"0": 0, "1024": 1024, "256MiB": 256 << 20, "1GiB": 1 << 30, "500MB": 500e6, "12B": 12, "4KiB": 4096} {
		if err := s.Set(in); err != nil || int64(s) != want {
			t.Errorf("--memory-limit %s: %d, %v; want %d", in, s, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "1.5GiB", "GiB", "1 GiB", "9999999999GiB", "1gb"} {
		if err := s.Set(bad); err == nil {
			t.Errorf("--memory-limit %q accepted", bad)
		}
	}
	var b budgetFlag
	for _, bad := range []string{"-1s", "1", "soon"} {
		if err := b.Set(bad); err == nil {
			t.Errorf("--budget %q accepted", bad)
		}
	}
	if (*sizeFlag)(&runBudgets.MemoryLimit).String() != "1GiB" {
		t.Errorf("default memory limit prints %s", (*sizeFlag)(&runBudgets.MemoryLimit).String())
	}
}

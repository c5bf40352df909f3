package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hangBound ends a run that would hang, so that the test fails instead.
const hangBound = 30 * time.Second

// A runaway tail call prints a short traceback: the frame, one line for
// its tail calls, the main chunk.
func TestRunTailCallRunawayTraceback(t *testing.T) {
	path := writeScript(t, "f.lua", "local function f() return f() end\nf()\n")
	code, out, errOut := cli(t, t.Context(), "run", "--budget", "200ms", path)
	want := path + ":1: budget: main chunk " + path + " ran past its 200ms budget\n" +
		"stack traceback:\n" +
		"\t" + path + ":1: in function <" + path + ":1>\n" +
		"\t(tail call): ?\n" +
		"\t" + path + ":2: in main chunk\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, errOut, want)
	}
}

// An error object whose __tostring never returns is reported with its
// type once that __tostring has run for the budget: from the main chunk,
// a job, a facet and an event-loop task.
func TestRunErrorObjectWhoseToStringLoops(t *testing.T) {
	const obj = `setmetatable({}, { __tostring = function() while true do end end })`
	for name, src := range map[string]string{
		"main chunk": `error(` + obj + `)`,
		"job": `require("runtime-timers").Timeout{ ["delay-ms"] = 5, callback = function()
			error(` + obj + `) end }`,
		"facet": `require("app-host").scheduler:register("f", function() error(` + obj + `) end)`,
		"event-loop task": `local loop = require("event-loop").new()
			loop:queue_task(function() error(` + obj + `) end)
			loop:run(math.huge)`,
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), hangBound)
			defer cancel()
			path := writeScript(t, "f.lua", src)
			code, _, errOut := cli(t, ctx, "run", "--budget", "200ms", path)
			line := "1"
			if name == "job" || name == "event-loop task" {
				line = "2"
			}
			want := "(error object is a table value whose __tostring failed: " + path + ":" + line + ": budget: function <" + path + ":" + line + "> ran past its 200ms budget)"
			if code != 1 || !strings.Contains(errOut, want) {
				t.Errorf("exit %d, stderr:\n%s\nwant 1 and %q", code, errOut, want)
			}
		})
	}
}

// A huge error message is cut: the report stays small.
func TestRunHugeErrorMessageIsCut(t *testing.T) {
	path := writeScript(t, "f.lua", `error(("x"):rep(4 * 1024 * 1024), 0)`)
	code, _, errOut := cli(t, t.Context(), "run", path)
	if code != 1 || len(errOut) > 20<<10 || !strings.Contains(errOut, "…(4194304 bytes)") {
		t.Errorf("exit %d, %d bytes of stderr ending %q; want 1 and the message cut", code, len(errOut), errOut[max(len(errOut)-200, 0):])
	}
}

// metronome test: a test body's runaway tail call, an error object whose
// __tostring loops and a huge error message each fail their test with a
// short report, and the summary follows.
func TestTestErrorValuesAreBounded(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a_test.lua")
	if err := os.WriteFile(file, []byte(`test("tail", function(t) local function f() return f() end f() end)
test("tostring", function(t) error(setmetatable({}, { __tostring = function() while true do end end })) end)
test("huge", function(t) error(("x"):rep(4 * 1024 * 1024)) end)
test("passes", function(t) t:ok(true) end)
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), hangBound)
	defer cancel()
	code, out, _ := cli(t, ctx, "test", "--budget", "200ms", file)
	for _, want := range []string{
		file + ":1: tail: budget: function <" + file + ":1> ran past its 200ms budget\n" +
			"    stack traceback:\n" +
			"      " + file + ":1: in function <" + file + ":1>\n" +
			"      (tail call): ?\n" +
			"      " + file + ":1: in test \"tail\"\n",
		"tostring: (table whose __tostring failed: " + file + ":2: budget: function <" + file + ":2> ran past its 200ms budget)",
		"xxx…(41943", // the message: its position and 4 MiB of x
		"\n1 passed, 3 failed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%.3000s", want, out)
		}
	}
	if code != 1 || len(out) > 40<<10 {
		t.Errorf("exit %d, %d bytes of report; want 1 and a short report", code, len(out))
	}
}

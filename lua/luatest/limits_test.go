package luatest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

// runSource runs src as a test file in a host state with opts.
func runSource(t *testing.T, opts scripting.Options, src string) (string, []Result) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "a_test.lua")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Stdout = io.Discard
	results := runWith(t, HostStateWith(opts), Options{}, file)
	return file, results
}

// A test body's runaway tail call fails with a short traceback.
func TestTailCallRunawayTraceback(t *testing.T) {
	file, results := runSource(t, scripting.Options{Budget: 50 * temporal.Millisecond},
		"test(\"tail\", function(t)\n  local function f() return f() end\n  f()\nend)\n")
	want := []string{
		"stack traceback:",
		"  " + file + ":2: in function <" + file + ":2>",
		"  (tail call): ?",
		"  " + file + `:3: in test "tail"`,
	}
	if r := results[0]; r.Status != Fail || !strings.Contains(r.Message, "ran past its 50ms budget") || strings.Join(r.Details, "\n") != strings.Join(want, "\n") {
		t.Errorf("result: %s %q\n%s\nwant a failure with the budget and:\n%s", r.Status, r.Message, strings.Join(r.Details, "\n"), strings.Join(want, "\n"))
	}
}

// An error object whose __tostring never returns fails its test with the
// budget error, and the next test runs.
func TestErrorObjectWhoseToStringLoops(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // ends a hang
	defer cancel()
	file, results := runSource(t, scripting.Options{Budget: 50 * temporal.Millisecond, Context: ctx}, `
test("tostring", function(t) error(setmetatable({}, { __tostring = function() while true do end end })) end)
test("next", function(t) t:ok(true) end)
`)
	want := "(table whose __tostring failed: " + file + ":2: budget: function <" + file + ":2> ran past its 50ms budget)"
	if len(results) != 2 || results[0].Message != want || results[1].Status != Pass {
		t.Errorf("results %+v; want the first failing with %q, the second passing", results, want)
	}
}

// A huge error message is cut.
func TestHugeErrorMessageIsCut(t *testing.T) {
	_, results := runSource(t, scripting.Options{}, `test("huge", function(t) error(("x"):rep(4 * 1024 * 1024), 0) end)`)
	if r := results[0]; len(r.Message) > sandbox.MaxErrorText+32 || !strings.HasSuffix(r.Message, "…(4194304 bytes)") {
		t.Errorf("message of %d bytes ending %q; want it cut", len(r.Message), r.Message[max(len(r.Message)-40, 0):])
	}
}

// t:eq on tables nested 1,000 deep that differ at the leaf reports a few
// levels of each and a shortened path.
func TestEqReportOfDeepTablesIsBounded(t *testing.T) {
	_, results := runSource(t, scripting.Options{}, `
local function nest(n, leaf) local v = leaf for i = 1, n do v = { a = v } end return v end
test("deep", function(t) t:eq(nest(1000, 1), nest(1000, 2)) end)
`)
	r := results[0]
	report := strings.Join(r.Details, "\n")
	last := r.Details[len(r.Details)-1]
	want := "first difference at a.a.a.a.a.a.a.a…(984 keys)….a.a.a.a.a.a.a.a: got 1, want 2"
	if r.Status != Fail || len(report) > 4*maxRenderText || last != want || !strings.Contains(report, "{…}") {
		t.Errorf("%s, %d bytes of details ending %q; want a failure, a short report and %q", r.Status, len(report), last, want)
	}
}

// t:eq on tables nested 100,000 deep compares them all, and reports as
// briefly.
func TestEqOnVeryDeepTables(t *testing.T) {
	_, results := runSource(t, scripting.Options{Budget: 10 * temporal.Second}, `
local function nest(n, leaf) local v = leaf for i = 1, n do v = { v } end return v end
test("deep", function(t) t:eq(nest(100000, 1), nest(100000, 2)) end)
test("equal", function(t) t:eq(nest(100000, 1), nest(100000, 1)) end)
`)
	if r := results[0]; r.Status != Fail || r.Message != "values differ" || !strings.HasSuffix(r.Details[len(r.Details)-1], ": got 1, want 2") {
		t.Errorf("deep: %s %q %q", r.Status, r.Message, r.Details)
	}
	if r := results[1]; r.Status != Pass {
		t.Errorf("equal: %s %q", r.Status, r.Message)
	}
}

// t:eq stops at the budget: a comparison of two wide tables that takes
// longer ends with the budget error.
func TestEqRunsUnderTheBudget(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a_test.lua")
	if err := os.WriteFile(file, []byte(`test("wide", function(t) t:eq(wide1, wide2) end)`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := HostStateWith(scripting.Options{Budget: 50 * temporal.Millisecond, Stdout: io.Discard})
	factory := func(path string) (*Env, error) {
		env, err := base(path)
		if err != nil {
			return nil, err
		}
		// Two tables of 3e5 keys, made in Go, that differ at their last
		// key: the comparison sorts their keys first.
		const n = 300000
		for i, name := range []string{"wide1", "wide2"} {
			tb := env.L.NewTable()
			for k := range n {
				tb.RawSetString(fmt.Sprintf("k%06d", k), lua.LNumber(k))
			}
			tb.RawSetString(fmt.Sprintf("k%06d", n-1), lua.LNumber(i))
			env.L.SetGlobal(name, tb)
		}
		return env, nil
	}
	results := runWith(t, factory, Options{}, file)
	if r := results[0]; r.Status != Fail || !strings.Contains(r.Message, "ran past its 50ms budget") {
		t.Errorf("result: %s %q; want the budget error", r.Status, r.Message)
	}
}

// Registering tests takes a constant time each: 200,000 of them load
// well within a budget that a check of each name against all the earlier
// ones would run past many times over.
func TestRegistrationIsLinear(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a_test.lua")
	src := "local function body(t) end\nfor i = 1, 200000 do test(\"t\" .. i, body) end\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	factory := HostStateWith(scripting.Options{Budget: 30 * temporal.Second, Stdout: io.Discard})
	results := runWith(t, factory, Options{Filter: "^t200000$"}, file)
	if len(results) != 1 || results[0].Status != Pass {
		t.Errorf("results %+v; want the last test, passing", results)
	}
}

// t:error on a runaway tail call stops at the budget, and what it
// catches costs no memory per tail call.
func TestErrorCheckOfATailCallRunaway(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, results := runSource(t, scripting.Options{Budget: 50 * temporal.Millisecond},
		`test("tail", function(t) t:error(function() local function f() return f() end f() end) end)`)
	runtime.ReadMemStats(&after)
	if r := results[0]; r.Status != Fail || !strings.Contains(r.Message, "ran past its 50ms budget") {
		t.Errorf("result: %s %q; want the budget error", r.Status, r.Message)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("the run allocated %d bytes; want no traceback line per tail call", grew)
	}
}

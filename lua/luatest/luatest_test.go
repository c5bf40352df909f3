package luatest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua"
)

// plainState is a factory with gopher-lua's full standard library: the
// harness must not depend on the sandbox.
func plainState(string) (*Env, error) {
	return &Env{L: lua.NewState()}, nil
}

func runDir(t *testing.T, dir string) ([]Result, string) {
	t.Helper()
	files, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	results, err := Run(context.Background(), files, plainState, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Report(&b, results); err != nil {
		t.Fatal(err)
	}
	return results, b.String()
}

func TestPassingFile(t *testing.T) {
	results, report := runDir(t, "testdata/pass")
	if want := "5 passed, 0 failed, 1 skipped\n"; report != want {
		t.Errorf("report:\n%s\nwant:\n%s", report, want)
	}
	var got []string
	for _, r := range results {
		got = append(got, fmt.Sprintf("%s %s %q %q", r.Status, r.Name, r.Message, r.Logs))
	}
	want := []string{
		`pass numbers and strings "" []`,
		`pass nested tables "" []`,
		`pass __eq metamethod "" []`,
		`pass errors match plain text "" []`,
		`pass ok and log "" ["hello 1 nil"]`,
		`skip skip "not today" []`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

const failReport = `testdata/fail/fail_test.lua:6: float: values differ
    got: 0.30000000000000004
    want: 0.3
testdata/fail/fail_test.lua:10: nested: tables differ
    got: {a = {1, 2}, b = "x"}
    want: {a = {1, 3}, b = "x"}
    first difference at a[2]: got 2, want 3
testdata/fail/fail_test.lua:14: missing key: values differ
    got: {1, 2, ["due-at"] = 5}
    want: {1, 2, 3}
    first difference at [3]: got nil, want 3
testdata/fail/fail_test.lua:18: big integers: values differ
    got: 9007199254740992
    want: 1000000000000000
testdata/fail/fail_test.lua:22: long: values differ
    got: {
      list = {10, 20, 30, 40, 50},
      name = "a fairly long string value",
      nested = {deep = {deeper = true}},
    }
    want: {
      list = {10, 20, 30, 40, 50},
      name = "a fairly long string value",
      nested = {deep = {deeper = false}},
    }
    first difference at nested.deep.deeper: got true, want false
testdata/fail/fail_test.lua:27: ok: must be set
    got: nil
testdata/fail/fail_test.lua:31: no error: expected an error
    got: no error
    want: an error containing "boom"
testdata/fail/fail_test.lua:36: dash is plain: error does not contain the expected text
    got: "scheduleonce failed"
    want: an error containing "schedule-once"
testdata/fail/fail_test.lua:41: stops at the first failure: values differ
    got: 1
    want: 2
    log: before
testdata/fail/fail_test.lua:47: through a helper: values differ
    got: "x"
    want: "y"
testdata/fail/fail_test.lua:51: tail call: values differ
    got: 1
    want: 2
testdata/fail/fail_test.lua:55: pcall cannot hide a failure: expected a true value
    got: false
2 passed, 12 failed, 1 skipped
`

func TestFailingFileReport(t *testing.T) {
	_, report := runDir(t, "testdata/fail")
	if report != failReport {
		t.Errorf("report:\n%s\nwant:\n%s", report, failReport)
	}
}

func TestUnexpectedErrors(t *testing.T) {
	results, report := runDir(t, "testdata/errors")
	if !strings.HasSuffix(report, "\n1 passed, 6 failed\n") {
		t.Errorf("summary: %q", report)
	}
	const file = "testdata/errors/errors_test.lua"
	for i, want := range []struct {
		line      int
		message   string
		traceback []string
	}{
		{2, "kaboom", []string{
			"stack traceback:",
			"  [G]: in function 'error'",
			"  " + file + ":2: in function 'explode'",
			"  " + file + `:6: in test "runtime error"`,
		}},
		{11, "attempt to index a non-table object(nil) with key 'y'", []string{
			"stack traceback:",
			"  " + file + `:11: in test "index nil"`,
		}},
		{15, "{code = 42}", nil},
		{19, "custom", nil},
		{23, "t:eq: call it with a colon, t:eq(...)", nil},
		{26, "stack overflow", nil},
	} {
		r := results[i]
		if r.Status != Fail || r.File != file || r.Line != want.line || r.Message != want.message {
			t.Errorf("result %d: %s %s:%d %q, want fail at line %d with %q", i, r.Status, r.File, r.Line, r.Message, want.line, want.message)
		}
		if want.traceback != nil && strings.Join(r.Details, "\n") != strings.Join(want.traceback, "\n") {
			t.Errorf("result %d traceback:\n%s\nwant:\n%s", i, strings.Join(r.Details, "\n"), strings.Join(want.traceback, "\n"))
		}
		if len(r.Details) == 0 || r.Details[0] != "stack traceback:" {
			t.Errorf("result %d: no traceback in %q", i, r.Details)
		}
	}
	if r := results[6]; r.Status != Pass || r.Name != "after errors" {
		t.Errorf("last test: %+v, want a pass", r)
	}
}

func TestFilesThatFailToLoad(t *testing.T) {
	results, report := runDir(t, "testdata/load")
	want := []string{
		"testdata/load/binary_test.lua: binary chunks are not supported: load Lua source",
		`testdata/load/dup_test.lua:5: duplicate test name "adds": first registered at line 1`,
		"testdata/load/empty_test.lua: registers no test: call test(name, fn) at its top level",
		`testdata/load/nested_test.lua:2: registers inside a test: test "late": tests are registered while the file loads (at its top level or in a describe body), not while tests run`,
		"testdata/load/syntax_test.lua:3: syntax error near '='",
		"testdata/load/toplevel_test.lua:3: setup failed",
	}
	if len(results) != len(want) {
		t.Fatalf("%d results, want %d:\n%s", len(results), len(want), report)
	}
	for i, w := range want {
		if got := strings.SplitN(results[i].String(), "\n", 2)[0]; got != w {
			t.Errorf("result %d: %q, want %q", i, got, w)
		}
		if i != 3 && results[i].Name != "" {
			t.Errorf("result %d: a load failure has a test name: %q", i, results[i].Name)
		}
	}
	if !strings.HasSuffix(report, "\n0 passed, 6 failed\n") {
		t.Errorf("summary: %q", report)
	}
}

func TestFactoryError(t *testing.T) {
	results, err := Run(context.Background(), []string{"x_test.lua"}, func(string) (*Env, error) {
		return nil, errors.New("no host")
	}, Options{})
	if err != nil || len(results) != 1 || results[0].String() != "x_test.lua: cannot make a state: no host" {
		t.Errorf("got %q, %v", results, err)
	}
}

func TestEachFileGetsItsOwnStateAndClose(t *testing.T) {
	var made, closed []string
	factory := func(file string) (*Env, error) {
		L := lua.NewState()
		made = append(made, filepath.Base(file))
		return &Env{L: L, Close: func() { closed = append(closed, filepath.Base(file)); L.Close() }}, nil
	}
	files, err := Find("testdata/pass", "testdata/load/syntax_test.lua")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), files, factory, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "pass_test.lua syntax_test.lua"
	if got := strings.Join(made, " "); got != want {
		t.Errorf("states made for %s, want %s", got, want)
	}
	if got := strings.Join(closed, " "); got != want {
		t.Errorf("states closed for %s, want %s", got, want)
	}
}

func TestRunStopsWhenContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	results, err := Run(ctx, []string{"testdata/pass/pass_test.lua"}, plainState, Options{})
	if !errors.Is(err, context.Canceled) || len(results) != 0 {
		t.Errorf("got %d results, %v; want none and context.Canceled", len(results), err)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b_test.lua", "a_test.lua", "helper.lua", "sub/c_test.lua",
		"testdata/skip_test.lua", ".hidden/skip_test.lua", "_skip/skip_test.lua"} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	explicit := filepath.Join(dir, "helper.lua")
	got, err := Find(dir, explicit, filepath.Join(dir, "a_test.lua"))
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range got {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	if want := "a_test.lua b_test.lua sub/c_test.lua helper.lua"; strings.Join(rel, " ") != want {
		t.Errorf("Find = %s, want %s", strings.Join(rel, " "), want)
	}
	// A testdata folder given as the root is searched.
	if got, err := Find(filepath.Join(dir, "testdata")); err != nil || len(got) != 1 {
		t.Errorf("Find(testdata) = %q, %v", got, err)
	}
	if _, err := Find(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Find(missing): %v, want a not-exist error", err)
	}
}

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		s    Summary
		want string
	}{
		{Summary{}, "0 passed, 0 failed"},
		{Summary{Passed: 3, Failed: 1}, "3 passed, 1 failed"},
		{Summary{Passed: 1, Skipped: 2}, "1 passed, 0 failed, 2 skipped"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestRender(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for src, want := range map[string]string{
		"1e15":        "1000000000000000",
		"2^53":        "9007199254740992",
		"-2^63":       "-9223372036854775808",
		"1e21":        "1e+21",
		"1200000.5":   "1200000.5",
		"0.1":         "0.1",
		"1e-7":        "1e-07",
		"-0.0":        "-0",
		"0/0":         "nan",
		"-1/0":        "-inf",
		`"a\"b\n\0"`:  `"a\"b\n\0"`,
		"{}":          "{}",
		"{1, nil, 3}": "{1, [3] = 3}",
		"{[1.5] = 1, [true] = 2, x = 3, ['end'] = 4}":                   `{[1.5] = 1, ["end"] = 4, x = 3, [true] = 2}`,
		"(function() local c = {} c.c = c return c end)()":              "{c = <cycle>}",
		"setmetatable({}, {__tostring = function() return 'PT1S' end})": "PT1S",
	} {
		if err := L.DoString("return " + src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := render(L, L.Get(-1)); got != want {
			t.Errorf("render(%s) = %s, want %s", src, got, want)
		}
		L.Pop(1)
	}
}

// recorder is a tester that records what runGo asks of it.
type recorder struct {
	name   string
	events *[]string
}

func (r recorder) Helper() {}
func (r recorder) add(kind string, args ...any) {
	*r.events = append(*r.events, r.name+" "+kind+": "+fmt.Sprint(args...))
}
func (r recorder) Error(args ...any)            { r.add("error", args...) }
func (r recorder) Fatalf(f string, args ...any) { r.add("fatal", fmt.Sprintf(f, args...)) }
func (r recorder) Skip(args ...any)             { r.add("skip", args...) }
func (r recorder) Log(args ...any)              { r.add("log", args...) }
func (r recorder) Run(name string, f func(tester)) bool {
	f(recorder{name: r.name + "/" + name, events: r.events})
	return true
}

func TestRunGoMapsResults(t *testing.T) {
	var events []string
	runGo(recorder{name: "T", events: &events}, "testdata/pass", plainState)
	runGo(recorder{name: "T", events: &events}, "testdata/load", plainState)
	runGo(recorder{name: "T", events: &events}, t.TempDir(), plainState)
	want := []string{
		"T/pass_test.lua/ok and log log: hello 1 nil",
		"T/pass_test.lua/skip skip: not today",
		"T/binary_test.lua error: testdata/load/binary_test.lua: binary chunks are not supported: load Lua source",
		`T/dup_test.lua error: testdata/load/dup_test.lua:5: duplicate test name "adds": first registered at line 1`,
		"T/empty_test.lua error: testdata/load/empty_test.lua: registers no test: call test(name, fn) at its top level",
		"T/nested_test.lua/registers inside a test error: testdata/load/nested_test.lua:2: registers inside a test: " +
			`test "late": tests are registered while the file loads (at its top level or in a describe body), not while tests run`,
		"T/syntax_test.lua error: testdata/load/syntax_test.lua:3: syntax error near '='",
		"T/toplevel_test.lua error: testdata/load/toplevel_test.lua:3: setup failed",
		"T fatal: luatest: no *_test.lua files under ",
	}
	if len(events) != len(want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if got := strings.SplitN(events[i], "\n", 2)[0]; !strings.HasPrefix(got, want[i]) {
			t.Errorf("event %d: %q, want %q", i, got, want[i])
		}
	}
}

func TestRunGo(t *testing.T) {
	RunGo(t, "testdata/pass", plainState)
}

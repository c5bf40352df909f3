package luatest

import (
	"bytes"
	"context"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/report")

// noteState is plainState with note(s), which appends s to *notes, and Env
// hooks that note the test's start and end.
func noteState(notes *[]string) Factory {
	return func(string) (*Env, error) {
		L := lua.NewState()
		L.SetGlobal("note", L.NewFunction(func(L *lua.LState) int {
			*notes = append(*notes, L.CheckString(1))
			return 0
		}))
		return &Env{
			L:     L,
			Begin: func(name string) { *notes = append(*notes, "begin "+name) },
			End:   func() { *notes = append(*notes, "end") },
		}, nil
	}
}

// runWith runs files with opts and a clock that moves 1ms per reading.
func runWith(t *testing.T, factory Factory, opts Options, files ...string) []Result {
	t.Helper()
	var clock time.Time
	opts.Now = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	results, err := Run(context.Background(), files, factory, opts)
	if err != nil {
		t.Fatal(err)
	}
	return results
}

func TestHooksRunAroundEachTest(t *testing.T) {
	var notes []string
	results := runWith(t, noteState(&notes), Options{}, "testdata/hooks/hooks_test.lua")
	var got []string
	for _, r := range results {
		got = append(got, r.Status.String()+" "+r.Name+": "+r.Message)
	}
	want := []string{
		"pass plain: ",
		"fail outer inner fails: values differ",
		"fail outer inner errors: boom",
		"pass outer passes: ",
		"fail setup fails body skipped: values differ",
		"skip setup skips skipped: no backend",
		"fail teardown fails passing body: teardown boom",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantNotes := []string{
		"begin plain", "file before plain", "body", "file after plain", "end",
		// outer hooks first before, inner first after; after_each runs after a failure
		"begin outer inner fails", "file before outer inner fails", "outer before 1", "outer before 2", "inner before",
		"body", "inner after", "outer after", "file after outer inner fails", "end",
		"begin outer inner errors", "file before outer inner errors", "outer before 1", "outer before 2", "inner before",
		"body", "inner after", "outer after", "file after outer inner errors", "end",
		"begin outer passes", "file before outer passes", "outer before 1", "outer before 2", "body", "outer after",
		"file after outer passes", "end",
		// a failing before_each stops the rest and the body; the after_each hooks still run
		"begin setup fails body skipped", "file before setup fails body skipped", "failing before",
		"setup-fails after", "file after setup fails body skipped", "end",
		"begin setup skips skipped", "file before setup skips skipped", "file after setup skips skipped", "end",
		"begin teardown fails passing body", "file before teardown fails passing body", "body", "failing after",
		"file after teardown fails passing body", "end",
	}
	if strings.Join(notes, "\n") != strings.Join(wantNotes, "\n") {
		t.Errorf("order:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(wantNotes, "\n"))
	}
	// a failure in a hook is reported at the hook's line, with a traceback naming it
	if r := results[6]; r.Line != 41 || !strings.Contains(strings.Join(r.Details, "\n"), `in after_each of test "teardown fails passing body"`) {
		t.Errorf("teardown failure: line %d, details %q", r.Line, r.Details)
	}
	if r := results[4]; r.Line != 29 {
		t.Errorf("setup failure at line %d, want 29", r.Line)
	}
	for _, r := range results {
		if r.Elapsed != temporal.Millisecond {
			t.Errorf("%s: elapsed %v, want the 1ms between two readings of the clock", r.Name, r.Elapsed)
		}
	}
}

func TestDescribeNamesAndDuplicates(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	dup := write("dup_test.lua", "describe('a', function()\n  test('b', function() end)\nend)\ntest('a b', function() end)\n")
	ok := write("ok_test.lua", "describe('a', function() test('b', function() end) end)\ndescribe('c', function() test('b', function() end) end)\n")
	bad := write("bad_test.lua", "describe('a', function() error('in the body') end)\ntest('x', function() end)\n")
	results := runWith(t, plainState, Options{}, dup, ok, bad)
	got := make([]string, len(results))
	for i, r := range results {
		got[i], _, _ = strings.Cut(r.String(), "\n")
	}
	want := []string{
		dup + `:4: duplicate test name "a b": first registered at line 2`,
		ok + ": a b: pass",
		ok + ": c b: pass",
		bad + ":1: in the body",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFilter(t *testing.T) {
	var notes []string
	names := func(rs []Result) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return strings.Join(out, "|")
	}
	results := runWith(t, noteState(&notes), Options{Filter: "^outer in"}, "testdata/hooks/hooks_test.lua")
	if got := names(results); got != "outer inner fails|outer inner errors" {
		t.Errorf("^outer in ran %q", got)
	}
	results = runWith(t, noteState(&notes), Options{Filter: "s%s+b"}, "testdata/hooks/hooks_test.lua")
	if got := names(results); got != "setup fails body skipped" {
		t.Errorf("s%%s+b ran %q", got)
	}
	results = runWith(t, noteState(&notes), Options{Filter: "nothing"}, "testdata/hooks/hooks_test.lua", "testdata/load/syntax_test.lua")
	if len(results) != 2 || results[0].File != "testdata/load/syntax_test.lua" ||
		results[1].String() != `(run): --filter "nothing" matches no test` {
		t.Errorf("a filter matching nothing: %q", results)
	}
	if _, err := Run(context.Background(), nil, plainState, Options{Filter: "[a"}); err == nil ||
		err.Error() != `filter "[a" is not a Lua pattern: unexpected EOS at 1` {
		t.Errorf("malformed filter: %v", err)
	}
}

func TestEnvLoadedFailsTheFile(t *testing.T) {
	var began bool
	factory := func(string) (*Env, error) {
		return &Env{L: lua.NewState(), Loaded: func() error { return io.ErrUnexpectedEOF }, Begin: func(string) { began = true }}, nil
	}
	results := runWith(t, factory, Options{}, "testdata/pass/pass_test.lua")
	if len(results) != 1 || results[0].String() != "testdata/pass/pass_test.lua: unexpected EOF" || began {
		t.Errorf("got %q, began %v", results, began)
	}
}

// HostState: a main chunk that leaves work on the host fails its file,
// naming what it left.
func TestHostStateRefusesWorkLeftByTheMainChunk(t *testing.T) {
	results := runWith(t, HostState(io.Discard), Options{}, "testdata/host/leaves_test.lua")
	want := "testdata/host/leaves_test.lua: the main chunk leaves work on the app-host host, and each test starts with an empty one: " +
		"once #2 scheduled at testdata/host/leaves_test.lua:4, every #1 scheduled at testdata/host/leaves_test.lua:3, " +
		`facet "physics"; set them up in ` + "`before_each`"
	if len(results) != 1 || results[0].String() != want {
		t.Errorf("got %q\nwant %q", results, want)
	}
}

// math.random in a test draws the same whatever ran before it, and follows
// the run's seed.
func TestHostStateSeedsEachTest(t *testing.T) {
	draws := func(seed int64, filter string) map[string]string {
		out := map[string]string{}
		for _, r := range runWith(t, HostStateWith(scripting.Options{Stdout: io.Discard, Seed: seed}), Options{Filter: filter}, "testdata/host/seed_test.lua") {
			out[r.Name] = strings.Join(r.Logs, " ")
		}
		return out
	}
	all := draws(0, "")
	if len(all) != 3 || all["a"] == all["d"] {
		t.Fatalf("draws %v: want three tests drawing differently", all)
	}
	for _, name := range []string{"d", "b c"} {
		if got := draws(0, "^"+name+"$")[name]; got != all[name] {
			t.Errorf("%s alone drew %s, in the full run %s", name, got, all[name])
		}
	}
	if other := draws(1, ""); other["d"] == all["d"] {
		t.Errorf("seed 1 drew as seed 0: %v", other)
	}
}

func TestReportFormats(t *testing.T) {
	results := runWith(t, plainState, Options{}, "testdata/report/report_test.lua", "testdata/report/zload_test.lua")
	results = append(results, Result{Status: Fail, Message: `--filter "x" matches no test`})
	for _, tc := range []struct {
		golden string
		write  func(io.Writer, []Result) error
	}{
		{"default.txt", Report},
		{"tap.txt", ReportTAP},
		{"junit.xml", ReportJUnit},
		{"verbose.txt", func(w io.Writer, rs []Result) error {
			for _, r := range rs {
				if _, err := io.WriteString(w, Verbose(r)+"\n"); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		var b bytes.Buffer
		if err := tc.write(&b, results); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("testdata", "report", tc.golden), b.String())
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n%s\nwant:\n%s", path, got, want)
	}
}

// The JUnit report reads back as CI tools read it: counts, names, the
// failure's message and text, the skip and the load error.
func TestJUnitReadsBack(t *testing.T) {
	results := runWith(t, plainState, Options{}, "testdata/report/report_test.lua", "testdata/report/zload_test.lua")
	var b bytes.Buffer
	if err := ReportJUnit(&b, results); err != nil {
		t.Fatal(err)
	}
	type problem struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
			Cases []struct {
				Name      string   `xml:"name,attr"`
				Classname string   `xml:"classname,attr"`
				Time      string   `xml:"time,attr"`
				Failure   *problem `xml:"failure"`
				Error     *problem `xml:"error"`
				Skipped   *problem `xml:"skipped"`
				SystemOut string   `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc.Tests != 7 || doc.Failures != 1 || doc.Errors != 3 || doc.Skipped != 1 || len(doc.Suites) != 2 {
		t.Fatalf("counts: %+v", doc)
	}
	cases := doc.Suites[0].Cases
	if cases[1].Name != "group fails" || cases[1].Classname != "testdata/report/report_test.lua" || cases[1].Time != "0.001" {
		t.Errorf("case: %+v", cases[1])
	}
	if f := cases[1].Failure; f == nil || f.Message != "values differ" || !strings.Contains(f.Text, "first difference at [2]: got 2, want 3") {
		t.Errorf("failure: %+v", f)
	}
	if cases[1].SystemOut != "a note with <xml> & \"quotes\"\n" {
		t.Errorf("system-out: %q", cases[1].SystemOut)
	}
	if s := cases[2].Skipped; s == nil || s.Message != "not # today" {
		t.Errorf("skipped: %+v", s)
	}
	if e := doc.Suites[1].Cases[0].Error; doc.Suites[1].Cases[0].Name != "(load)" || e == nil || e.Message != "cannot load" {
		t.Errorf("load error: %+v", doc.Suites[1].Cases[0])
	}
}

package main

import (
	"strings"
	"testing"
)

// A scheduled callback's error prints one traceback: the callback's frames
// from where it raised the error, then a line naming the job, not the frames
// of a main chunk or a test function that has moved on, and not a second
// block.
func TestCallbackErrorPrintsOneTracebackEndingWithTheJob(t *testing.T) {
	// run's exact text is pinned by TestRunJobAndFacetErrors.
	_, _, errOut := cli(t, t.Context(), "run", "testdata/job_error.lua")
	tracebackEndsWith(t, errOut, "\t[job] once #1 scheduled at testdata/job_error.lua:9")

	const file = "testdata/traceback/callback_test.lua"
	code, out, errOut := cli(t, t.Context(), "test", file)
	first, second, _ := strings.Cut(out, "\n"+file+":20: ")
	tracebackEndsWith(t, first, "      [job] every #1 scheduled at "+file+":9")
	want := file + ":10: a job fails: " + file + ":5: boom\n" +
		"    stack traceback:\n" +
		"      [G]: in function 'error'\n" +
		"      " + file + ":5: in function 'explode'\n" +
		"      " + file + ":9: in function <" + file + ":9>\n" +
		"      [job] every #1 scheduled at " + file + ":9"
	if code != 1 || first != want || !strings.HasSuffix(second, "\n0 passed, 2 failed\n") || errOut != "" {
		t.Errorf("test: exit %d, stderr %q, stdout:\n%s\nwant it to start:\n%s", code, errOut, out, want)
	}
}

// A callback that advances a second scheduler whose callback fails gets
// that error out of advance. It prints one traceback, the call stack from
// the error outwards: the inner callback's frames and the inner job, then
// the outer callback's frames from its call to advance, and last the outer
// job, which the run (or the test's advance) ran. Two blocks would split
// one stack into two that each look whole, the second with no message.
func TestNestedCallbackErrorPrintsOneTraceback(t *testing.T) {
	const script = "testdata/traceback/nested.lua"
	code, out, errOut := cli(t, t.Context(), "run", script)
	want := script + ":7: inner boom\n" +
		"stack traceback:\n" +
		"\t[G]: in function 'error'\n" +
		"\t" + script + ":7: in function <" + script + ":7>\n" +
		"\t[job] once #1 scheduled at " + script + ":7\n" +
		"\t[G]: in function 'advance'\n" +
		"\t" + script + ":9: in function <" + script + ":8>\n" +
		"\t[job] once #1 scheduled at " + script + ":8\n" +
		"(at 1.5s of virtual time)\n"
	tracebackEndsWith(t, errOut, "\t[job] once #1 scheduled at "+script+":8")
	if code != 1 || out != "" || errOut != want {
		t.Errorf("run: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, errOut, want)
	}

	const file = "testdata/traceback/callback_test.lua"
	code, out, _ = cli(t, t.Context(), "test", file)
	_, second, _ := strings.Cut(out, "\n"+file+":20: ")
	tracebackEndsWith(t, second, "      [job] once #1 scheduled at "+file+":17")
	want = "a job fails inside another job: " + file + ":16: inner boom\n" +
		"    stack traceback:\n" +
		"      [G]: in function 'error'\n" +
		"      " + file + ":16: in function <" + file + ":16>\n" +
		"      [job] once #1 scheduled at " + file + ":16\n" +
		"      [G]: in function 'advance'\n" +
		"      " + file + ":18: in function <" + file + ":17>\n" +
		"      [job] once #1 scheduled at " + file + ":17\n" +
		"0 passed, 2 failed\n"
	if code != 1 || second != want {
		t.Errorf("test: exit %d, stdout:\n%s\nwant it to end:\n%s", code, out, want)
	}
}

// tracebackEndsWith checks that out holds exactly one "stack traceback:"
// block and that its last line is last.
func tracebackEndsWith(t *testing.T, out, last string) {
	t.Helper()
	if n := strings.Count(out, "stack traceback:"); n != 1 {
		t.Errorf("%d tracebacks in:\n%s", n, out)
		return
	}
	_, tb, _ := strings.Cut(out, "stack traceback:\n")
	lines := strings.Split(tb, "\n")
	i := 0
	// run prints frames after a tab; test's report indents them by six spaces.
	for i < len(lines) && (strings.HasPrefix(lines[i], "\t") || strings.HasPrefix(lines[i], "      ")) {
		i++
	}
	if i == 0 || lines[i-1] != last {
		t.Errorf("traceback does not end with %q:\n%s", last, out)
	}
}

// A message that carries a traceback of its own (a nested error caught and
// raised again with more text) is printed as it is; the line after it then
// names the job that failed, since the traceback's last line does not.
func TestRethrownNestedErrorNamesTheJob(t *testing.T) {
	const script = "testdata/traceback/rethrow.lua"
	code, _, errOut := cli(t, t.Context(), "run", script)
	if want := "\t[job] once #1 scheduled at " + script + ":6 (rethrown)\n(in once #1 scheduled at " + script + ":7, at 1s of virtual time)\n"; code != 1 || !strings.HasSuffix(errOut, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant it to end:\n%s", code, errOut, want)
	}
}

// A keyed tick's error (its callback runs as a coroutine) reads like any
// callback's: its frames out to the callback, then the job.
func TestKeyedCallbackErrorNamesTheJob(t *testing.T) {
	exact(t, []string{"run", "testdata/traceback/keyed.lua"}, 1, "",
		"testdata/traceback/keyed.lua:5: boom\n"+
			"stack traceback:\n"+
			"\t[G]: in function 'error'\n"+
			"\ttestdata/traceback/keyed.lua:5: in function 'helper'\n"+
			"\ttestdata/traceback/keyed.lua:6: in function <testdata/traceback/keyed.lua:6>\n"+
			"\t[job] timer #1 scheduled at testdata/traceback/keyed.lua:6\n"+
			"(at 0.01s of virtual time)\n")
}

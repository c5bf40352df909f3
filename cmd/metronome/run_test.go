package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/metronome-rt/metronome/temporal"
)

// exact checks a run's exit status and both streams exactly.
func exact(t *testing.T, args []string, wantCode int, wantOut, wantErr string) {
	t.Helper()
	code, out, errOut := cli(t, t.Context(), args...)
	if code != wantCode || out != wantOut || errOut != wantErr {
		t.Errorf("metronome %s:\nexit %d, want %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant:\n%s",
			strings.Join(args, " "), code, wantCode, out, wantOut, errOut, wantErr)
	}
}

func TestRunVirtualClockStartsAtAFixedInstant(t *testing.T) {
	exact(t, []string{"run", "testdata/clock.lua"}, 0,
		"2000-01-01T00:00:00Z\t2000-01-01T00:00:00Z\t946684800\t0\n"+
			"2000-01-01T00:00:01.5Z\t2000-01-01T00:00:01Z\t946684801\t1.5\n", "")
}

func TestRunStart(t *testing.T) {
	exact(t, []string{"run", "--start", "2024-03-10T06:59:00.5+01:00", "testdata/clock.lua"}, 0,
		"2024-03-10T05:59:00.5Z\t2024-03-10T05:59:00Z\t1710050340\t0\n"+
			"2024-03-10T05:59:02Z\t2024-03-10T05:59:02Z\t1710050342\t1.5\n", "")
	exact(t, []string{"run", "--start=1999-12-31T23:59:59Z", "testdata/clock.lua"}, 0,
		"1999-12-31T23:59:59Z\t1999-12-31T23:59:59Z\t946684799\t0\n"+
			"2000-01-01T00:00:00.5Z\t2000-01-01T00:00:00Z\t946684800\t1.5\n", "")
}

// A run whose virtual time reaches the last instant it can hold stops
// there with an error in the run's terms: the frame that would pass it is
// cut to end there, as at --until.
func TestRunStopsAtTheLastInstant(t *testing.T) {
	path := writeScript(t, "ui.lua", `require("app-host").scheduler:register("ui", function() end)`)
	exact(t, []string{"run", "--start", "2262-04-11T23:47:16Z", path}, 1, "",
		"metronome run: virtual time cannot go past 2262-04-11T23:47:16.854775807Z, the last instant it can hold: "+
			"stopped there (0.854775807s of virtual time) with 0 jobs pending and 1 facet registered\n")
}

func TestRunUntil(t *testing.T) {
	minutes := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			d := time.Duration(i) * time.Minute
			s := "PT"
			if h := int(d.Hours()); h > 0 {
				s += strings.TrimSuffix(time.Duration(h*int(time.Hour)).String(), "0m0s")
				d -= time.Duration(h) * time.Hour
			}
			if m := int(d.Minutes()); m > 0 {
				s += strings.TrimSuffix(d.String(), "0s")
			}
			b.WriteString(strings.ToUpper(s) + "\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		flag     string
		fires    int
		at, text string
	}{
		{"90s", 1, "90s", "90s"},
		{"5m", 5, "300s", "5m"},
		{"2h", 120, "7200s", "2h"},
		{"1h30m", 90, "5400s", "1h30m"},
		{"1.5m", 1, "90s", "1.5m"},
		{"PT3M", 3, "180s", "PT3M"},
		{"PT2M30.5S", 2, "150.5s", "PT2M30.5S"},
		{"120000ms", 2, "120s", "120000ms"}, // a deadline exactly at --until runs
	} {
		// The message names the job due next and when: the next whole minute.
		next := temporal.Duration(tc.fires+1) * temporal.Minute
		at, err := temporal.ParseDurationText(tc.at)
		if err != nil {
			t.Fatal(err)
		}
		due, err := defaultStart.Add(next)
		if err != nil {
			t.Fatal(err)
		}
		exact(t, []string{"run", "--until", tc.flag, "testdata/minutes.lua"}, 0, minutes(tc.fires),
			"metronome run: stopped at --until "+tc.text+" ("+tc.at+" of virtual time) with 1 job pending and 0 facets registered; "+
				"the next is every #1 scheduled at testdata/minutes.lua:5, due at "+due.String()+" (in "+humanDuration(next-at)+")\n")
	}
	// The default is 24h.
	code, out, errOut := cli(t, t.Context(), "run", "testdata/minutes.lua")
	if lines := strings.Count(out, "\n"); code != 0 || lines != 24*60 ||
		errOut != "metronome run: stopped at --until 24h (86400s of virtual time) with 1 job pending and 0 facets registered; the next is every #1 scheduled at testdata/minutes.lua:5, due at 2000-01-02T00:01:00Z (in 1m)\n" {
		t.Errorf("default --until: exit %d, %d lines, stderr %q", code, lines, errOut)
	}
}

func TestRunBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--until", "soon"}, `invalid value "soon" for flag -until: want an ISO 8601 duration (PT1H30M) or a short one (90s, 5m, 2h, 1h30m)`},
		{[]string{"--until", "0s"}, `invalid value "0s" for flag -until: want a duration > 0, got 0s`},
		{[]string{"--until", "-5m"}, `invalid value "-5m" for flag -until: want a duration > 0, got -5m`},
		{[]string{"--until", "PT0S"}, `invalid value "PT0S" for flag -until: want a duration > 0, got PT0S`},
		{[]string{"--until", "P1D"}, `invalid value "P1D" for flag -until: calendar unit 'D' is not an exact length; use hours, minutes and seconds (PT...)`},
		{[]string{"--until", "5m1"}, `invalid value "5m1" for flag -until: want an ISO 8601 duration`},
		{[]string{"--until", "1.0000000001s"}, `invalid value "1.0000000001s" for flag -until: 1.0000000001s is not a whole number of nanoseconds`},
		{[]string{"--until", "1d"}, `invalid value "1d" for flag -until: want an ISO 8601 duration`},
		{[]string{"--frame-ms", "NaN"}, `invalid value "NaN" for flag -frame-ms: want a finite number of milliseconds > 0, got NaN`},
		{[]string{"--frame-ms", "-16"}, `invalid value "-16" for flag -frame-ms: want a finite number of milliseconds > 0, got -16`},
		{[]string{"--frame-ms", "0"}, `invalid value "0" for flag -frame-ms: want a finite number of milliseconds > 0, got 0`},
		{[]string{"--frame-ms", "+Inf"}, `invalid value "+Inf" for flag -frame-ms: want a finite number of milliseconds > 0, got +Inf`},
		{[]string{"--frame-ms", "fast"}, `invalid value "fast" for flag -frame-ms: want a number of milliseconds > 0, such as 16.667`},
		{[]string{"--frame-ms", "1e-7"}, `invalid value "1e-7" for flag -frame-ms: 1e-7 ms rounds to 0ns; want at least 0.000001 (1ns)`},
		{[]string{"--frame-ms", "1e300"}, `invalid value "1e300" for flag -frame-ms: want a number of milliseconds within int64 nanoseconds, got 1e300`},
		{[]string{"--start", "2024-03-10T06:59:00"}, `invalid value "2024-03-10T06:59:00" for flag -start: instant "2024-03-10T06:59:00" has no offset: add Z or ±hh:mm (RFC 3339)`},
		{[]string{"--start", "yesterday"}, `invalid value "yesterday" for flag -start: want RFC 3339 such as 2024-03-10T06:59:00Z`},
		{[]string{"--trace=some"}, `invalid boolean value "some" for -trace: want true, false or all`},
		{[]string{"--start", "2024-03-10T06:59:00Z", "--realtime"}, `--start sets where virtual time starts; --realtime runs on the system clock`},
	} {
		args := append(append([]string{"run"}, tc.args...), "testdata/clock.lua")
		code, out, errOut := cli(t, t.Context(), args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, "metronome run: "+tc.want) ||
			!strings.HasSuffix(errOut, "\nusage: metronome run [flags] FILE.lua [args...]; see metronome run -h\n") {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and usage after %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

func TestRunFrames(t *testing.T) {
	exact(t, []string{"run", "--frame-ms", "10", "testdata/frames.lua"}, 0,
		"frame\t10\tPT0.01S\nframe\t10\tPT0.02S\njob\tPT0.025S\nframe\t10\tPT0.03S\nframe\t10\tPT0.04S\nunregistered\tPT0.05S\n", "")
	// The default: 16.667 ms, exactly 16667000 ns a frame, on a grid.
	exact(t, []string{"run", "testdata/frames.lua"}, 0,
		"frame\t16.667\tPT0.016667S\njob\tPT0.025S\nframe\t16.667\tPT0.033334S\nunregistered\tPT0.05S\n", "")
	// Converted once, to the nearest ns; facets get that exact length.
	exact(t, []string{"run", "--frame-ms=12.3456789", "testdata/frames.lua"}, 0,
		"frame\t12.345679\tPT0.012345679S\nframe\t12.345679\tPT0.024691358S\njob\tPT0.025S\n"+
			"frame\t12.345679\tPT0.037037037S\nframe\t12.345679\tPT0.049382716S\nunregistered\tPT0.05S\n", "")
}

func TestRunPausedHostStops(t *testing.T) {
	exact(t, []string{"run", "testdata/paused.lua"}, 0,
		"tick\t2000-01-01T00:00:01Z\ntick\t2000-01-01T00:00:02Z\npausing\n",
		"metronome run: the host is paused at 2.5s of virtual time and nothing can resume it; stopping with 1 job pending and 0 facets registered\n")
	exact(t, []string{"run", "testdata/paused_main.lua"}, 0, "",
		"metronome run: the host is paused at 0s of virtual time and nothing can resume it; stopping with 0 jobs pending and 1 facet registered\n")
}

func TestRunQuit(t *testing.T) {
	exact(t, []string{"run", "testdata/quit.lua"}, 0,
		"tick\t2000-01-01T00:00:00.5Z\ntick\t2000-01-01T00:00:01Z\ntick\t2000-01-01T00:00:01.5Z\nquit\ttrue\n", "")
	exact(t, []string{"run", "testdata/quit_main.lua"}, 0, "main chunk done\n", "")
}

func TestRunNothingPendingEndsQuietly(t *testing.T) {
	exact(t, []string{"run", "testdata/requires.lua", "x"}, 0, "hello, x\n", "")
}

func TestRunJobAndFacetErrors(t *testing.T) {
	// The traceback's last line names the job or facet; the line after it
	// says when.
	exact(t, []string{"run", "testdata/job_error.lua"}, 1, "",
		"testdata/job_error.lua:6: boom: from a job\n"+
			"stack traceback:\n"+
			"\t[G]: in function 'error'\n"+
			"\ttestdata/job_error.lua:6: in function 'explode'\n"+
			"\ttestdata/job_error.lua:9: in function <testdata/job_error.lua:9>\n"+
			"\t[job] once #1 scheduled at testdata/job_error.lua:9\n"+
			"(at 1.5s of virtual time)\n")
	exact(t, []string{"run", "testdata/facet_error.lua"}, 1, "frame\t1\t16.667\nframe\t2\t16.667\nframe\t3\t16.667\n",
		"testdata/facet_error.lua:7: physics exploded\n"+
			"stack traceback:\n"+
			"\t[G]: in function 'error'\n"+
			"\ttestdata/facet_error.lua:7: in function <testdata/facet_error.lua:4>\n"+
			"\t[facet] \"physics\"\n"+
			"(at 0.050001s of virtual time)\n")
}

const traceJobsWant = `0.00025s  once  #4  testdata/trace.lua:16
1s  every  #2  testdata/trace.lua:10
1.5s  once  #1  testdata/trace.lua:8
2s  every  #2  testdata/trace.lua:10
3s  every  #2  testdata/trace.lua:10
3s  cancel  #2  testdata/trace.lua:10  every
10800s  recurrence  #3  testdata/trace.lua:15  occurrence 1
97200s  recurrence  #3  testdata/trace.lua:15  occurrence 2
108000.015s  once  #5  testdata/trace.lua:24
`

const traceAllWant = `0.00025s  once  #4  testdata/trace.lua:16
0.01s  frame  0.01s  physics
0.01s  pause
0.015s  step  0.005s  physics
0.015s  resume
1s  every  #2  testdata/trace.lua:10
1.5s  once  #1  testdata/trace.lua:8
2s  every  #2  testdata/trace.lua:10
3s  every  #2  testdata/trace.lua:10
3s  cancel  #2  testdata/trace.lua:10  every
10800s  recurrence  #3  testdata/trace.lua:15  occurrence 1
97200s  recurrence  #3  testdata/trace.lua:15  occurrence 2
108000.015s  once  #5  testdata/trace.lua:24
108000.015s  quit
`

func TestRunTrace(t *testing.T) {
	exact(t, []string{"run", "--until", "48h", "--trace", "testdata/trace.lua"}, 0, "", traceJobsWant)
	exact(t, []string{"run", "--until", "48h", "--trace=true", "testdata/trace.lua"}, 0, "", traceJobsWant)
	exact(t, []string{"run", "--until", "48h", "--trace=all", "testdata/trace.lua"}, 0, "", traceAllWant)
	exact(t, []string{"run", "--until", "48h", "--trace=false", "testdata/trace.lua"}, 0, "", "")

	// --trace-file: the same lines in a file; stderr keeps only messages.
	path := filepath.Join(t.TempDir(), "trace.txt")
	exact(t, []string{"run", "--trace-file", path, "testdata/trace.lua"}, 0, "",
		"metronome run: stopped at --until 24h (86400s of virtual time) with 2 jobs pending and 0 facets registered; the next is recurrence #3 scheduled at testdata/trace.lua:15, due at 2000-01-02T03:00:00Z (in 3h)\n")
	b, err := os.ReadFile(path)
	if want := strings.Join(strings.Split(traceJobsWant, "\n")[:7], "\n") + "\n"; err != nil || string(b) != want {
		t.Errorf("trace file: %v\n%s\nwant:\n%s", err, b, want)
	}
	exact(t, []string{"run", "--until", "48h", "--trace=all", "--trace-file", path, "testdata/trace.lua"}, 0, "", "")
	if b, _ := os.ReadFile(path); string(b) != traceAllWant {
		t.Errorf("trace=all file:\n%s", b)
	}
	code, _, errOut := cli(t, t.Context(), "run", "--trace-file", filepath.Join(t.TempDir(), "no", "such", "dir"), "testdata/trace.lua")
	if code != 1 || !strings.HasPrefix(errOut, "metronome run: trace: open ") {
		t.Errorf("unwritable trace file: exit %d, stderr %q", code, errOut)
	}
}

// The trace and the output of a run do not depend on anything but the script.
func TestRunIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	var outs [2][3]string
	for i := range outs {
		svg := filepath.Join(dir, "run.svg")
		code, out, errOut := cli(t, t.Context(), "run", "--trace=all", "--timeline", svg, "../../examples/quickstart.lua")
		b, err := os.ReadFile(svg)
		if code != 0 || err != nil {
			t.Fatalf("run %d: exit %d, %v, stderr %q", i, code, err, errOut)
		}
		outs[i] = [3]string{out, errOut, string(b)}
	}
	if outs[0] != outs[1] {
		t.Error("two runs of quickstart.lua differ (stdout, trace or timeline)")
	}
}

// --realtime runs the same loop on the wall clock; inside a synctest bubble
// the wall clock is fake, so the scene's output is exactly that of a virtual
// run, and the run takes the scene's 3.5 s of (fake) wall time.
func TestRunRealtime(t *testing.T) {
	_, want, _ := cli(t, t.Context(), "run", "--trace", "../../examples/countdown.lua")
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		code, out, errOut := cli(t, t.Context(), "run", "--realtime", "../../examples/countdown.lua")
		if code != 0 || out != want || errOut != "" {
			t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errOut, out, want)
		}
		if took := time.Since(start); took != 3500*time.Millisecond {
			t.Errorf("took %v of wall time, want 3.5s", took)
		}
	})
}

func TestRunRealtimeUntilAndTrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		code, out, errOut := cli(t, t.Context(), "run", "--realtime", "--until", "150s", "--trace", "testdata/minutes.lua")
		if code != 0 || out != "PT1M\nPT2M\n" || errOut !=
			"60s  every  #1  testdata/minutes.lua:5\n120s  every  #1  testdata/minutes.lua:5\n"+
				"metronome run: stopped at --until 150s (150s of wall time) with 1 job pending and 0 facets registered; the next is every #1 scheduled at testdata/minutes.lua:5, due at 2000-01-01T00:03:00Z (in 30s)\n" {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})
}

func TestRunRealtimePausedAndQuit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		code, _, errOut := cli(t, t.Context(), "run", "--realtime", "testdata/paused.lua")
		if code != 0 || time.Since(start) != 2500*time.Millisecond ||
			errOut != "metronome run: the host is paused at 2.5s of wall time and nothing can resume it; stopping with 1 job pending and 0 facets registered\n" {
			t.Errorf("paused: exit %d after %v, stderr %q", code, time.Since(start), errOut)
		}
		start = time.Now()
		code, out, _ := cli(t, t.Context(), "run", "--realtime", "testdata/quit.lua")
		if code != 0 || time.Since(start) != 1500*time.Millisecond || !strings.HasSuffix(out, "quit\ttrue\n") {
			t.Errorf("quit: exit %d after %v, stdout %q", code, time.Since(start), out)
		}
	})
}

func TestRunRealtimeInterrupted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		type result struct {
			code        int
			out, errOut string
		}
		done := make(chan result)
		go func() {
			code, out, errOut := cli(t, ctx, "run", "--realtime", "testdata/minutes.lua")
			done <- result{code, out, errOut}
		}()
		time.Sleep(150 * time.Second)
		cancel()
		r := <-done
		if r.code != 130 || r.out != "PT1M\nPT2M\n" || r.errOut != "metronome run: interrupted\n" {
			t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.out, r.errOut)
		}
	})
}

// A run that ends at --until says which job is due next and when; one whose
// first job is due years past --start is warned about once, before it runs;
// one kept going only by a facet gets a hint.
func TestRunSaysWhyNothingHappened(t *testing.T) {
	script := writeScript(t, "far.lua", `local Temporal = require "temporal"
local hs = require("app-host").scheduler
local daily = Temporal["recurrence-set"]{ dtstart = "2024-03-08T09:00:00", rrule = "FREQ=DAILY" }
hs:schedule_recurrence{ recurrence_set = daily, zone_id = "America/New_York", callback = function() print("fired") end }
`)
	exact(t, []string{"run", script}, 0, "",
		"metronome run: warning: the first job due, recurrence #1 scheduled at "+script+":4, is due at 2024-03-08T14:00:00Z, 8833d14h after --start 2000-01-01T00:00:00Z; to run from there give --start 2024-03-08T00:00:00Z\n"+
			"metronome run: stopped at --until 24h (86400s of virtual time) with 1 job pending and 0 facets registered; the next is recurrence #1 scheduled at "+script+":4, due at 2024-03-08T14:00:00Z (in 8832d14h)\n")
	// From the suggested start the job runs, and nothing warns.
	exact(t, []string{"run", "--start", "2024-03-08T00:00:00Z", "--until", "15h", script}, 0, "fired\n",
		"metronome run: stopped at --until 15h (54000s of virtual time) with 1 job pending and 0 facets registered; the next is recurrence #1 scheduled at "+script+":4, due at 2024-03-09T14:00:00Z (in 23h)\n")

	facet := writeScript(t, "facet.lua", `local hs = require("app-host").scheduler
hs:register("physics", function() end)
`)
	exact(t, []string{"run", "--until", "2s", facet}, 0, "",
		"metronome run: stopped at --until 2s (2s of virtual time) with 0 jobs pending and 1 facet registered\n"+
			"metronome run: hint: no job was pending; only the facets registered (physics) kept the run going until --until: unregister a facet when it is done (hs:unregister(name)), or end the run with host.quit()\n")
}

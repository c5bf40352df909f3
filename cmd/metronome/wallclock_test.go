package main

import (
	"strings"
	"testing"
)

// Under virtual time a scheduler made without a clock starts at the host's
// instant, and Temporal.clock.system() is refused unless --allow-wallclock
// or --realtime.
func TestRunWallClock(t *testing.T) {
	const refused = "testdata/wallclock.lua:7: clock.system: the wall clock is refused: this state runs on a virtual clock, so a run repeats; " +
		"use Temporal.clock.fixed(t), or allow the wall clock with --allow-wallclock (Options.AllowWallClock in Go)\n"
	exact(t, []string{"run", "testdata/wallclock.lua"}, 0,
		"2000-01-01T00:00:01.5Z\t2000-01-01T00:00:01.5Z\n"+refused, "")
	exact(t, []string{"run", "--start", "2024-03-10T06:59:00Z", "testdata/wallclock.lua"}, 0,
		"2024-03-10T06:59:01.5Z\t2024-03-10T06:59:01.5Z\n"+refused, "")
	exact(t, []string{"run", "--allow-wallclock", "testdata/wallclock.lua"}, 0,
		"2000-01-01T00:00:01.5Z\t2000-01-01T00:00:01.5Z\nwall clock allowed\n", "")

	// --realtime: the system clock is the default and allowed.
	code, out, errOut := cli(t, t.Context(), "run", "--realtime", "testdata/wallclock.lua")
	lines := strings.Split(out, "\n")
	if code != 0 || errOut != "" || len(lines) != 3 || lines[1] != "wall clock allowed" || strings.HasPrefix(lines[0], "2000-") {
		t.Errorf("--realtime: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestTestWallClock(t *testing.T) {
	code, out, _ := cli(t, t.Context(), "test", "testdata/wallclock")
	if code != 1 || !strings.Contains(out, "clock.system: the wall clock is refused") || !strings.Contains(out, "--allow-wallclock") ||
		!strings.Contains(out, "1 passed, 1 failed") {
		t.Errorf("without --allow-wallclock: exit %d, stdout:\n%s", code, out)
	}
	code, out, _ = cli(t, t.Context(), "test", "--allow-wallclock", "testdata/wallclock")
	if code != 0 || !strings.Contains(out, "2 passed") {
		t.Errorf("--allow-wallclock: exit %d, stdout:\n%s", code, out)
	}
}

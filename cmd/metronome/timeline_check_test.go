package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An unwritable --timeline fails before the script runs, as --trace-file
// does, not after the whole run.
func TestRunTimelineUnwritableFailsFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "run.svg")
	code, out, errOut := cli(t, t.Context(), "run", "--timeline", path, "testdata/clock.lua")
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "metronome run: timeline: open ") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing (the script must not run), a timeline error", code, out, errOut)
	}
}

// The check leaves no file behind when the script then fails to load.
func TestRunTimelineCheckLeavesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.svg")
	code, _, _ := cli(t, t.Context(), "run", "--timeline", path, "testdata/no-such-script.lua")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("timeline file after a run that never started: %v", err)
	}
}

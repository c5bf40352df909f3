package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// after returns the lines of out after the first line containing mark.
func after(t *testing.T, out, mark string) string {
	t.Helper()
	i := strings.Index(out, mark)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", mark, out)
	}
	j := strings.IndexByte(out[i:], '\n')
	return out[i+j+1:]
}

// runCLI runs metronome in-process with args; it returns stdout, stderr
// and the exit status.
func runCLI(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestStateResumesAfterQuit: a run that quits at its checkpoint with
// --state, resumed by a second run, prints and traces after the
// checkpoint what the uninterrupted run does.
func TestStateResumesAfterQuit(t *testing.T) {
	script := filepath.Join("testdata", "save_state.lua")
	state := filepath.Join(t.TempDir(), "save.json")
	full, fullTrace, code := runCLI("run", "--trace", script)
	if code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", code, fullTrace)
	}
	first, firstTrace, code := runCLI("run", "--trace", "--state", state, script, "quit")
	if code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, firstTrace)
	}
	if strings.Contains(first, "boom") {
		t.Fatalf("first run went past the checkpoint:\n%s", first)
	}
	second, secondTrace, code := runCLI("run", "--trace", "--state", state, script)
	if code != 0 {
		t.Fatalf("resumed run: exit %d\n%s", code, secondTrace)
	}
	if want := after(t, full, "checkpoint"); second != want || !strings.Contains(want, "boom") {
		t.Errorf("resumed run printed:\n%s\nwant what the uninterrupted run printed after the checkpoint:\n%s", second, want)
	}
	if want := after(t, fullTrace, `label "checkpoint"`); secondTrace != want {
		t.Errorf("resumed run traced:\n%s\nwant:\n%s", secondTrace, want)
	}
}

// TestStateUntilCountsFromTheSavedTime: a run resumed from a state saved
// at 36 h runs --until 24h more, from there, not from --start (where it
// would stop at once), and prints what the uninterrupted run printed in
// those hours.
func TestStateUntilCountsFromTheSavedTime(t *testing.T) {
	script := writeScript(t, "halfday.lua", `local Temporal = require "temporal"
local host = require "app-host"
local hs = host.scheduler
local handlers = { tick = function() print(tostring(hs:now())) end }
if not host.handlers(handlers) then
  hs:schedule_every{ interval = Temporal.duration{ hours = 12 }, label = "tick", callback = handlers.tick }
end
`)
	state := filepath.Join(t.TempDir(), "save.json")
	full, _, code := runCLI("run", "--until", "60h", script)
	if code != 0 {
		t.Fatalf("uninterrupted run: exit %d", code)
	}
	first, _, _ := runCLI("run", "--until", "36h", "--state", state, script)
	if want := "2000-01-01T12:00:00Z\n2000-01-02T00:00:00Z\n2000-01-02T12:00:00Z\n"; first != want {
		t.Fatalf("first run printed:\n%s\nwant:\n%s", first, want)
	}
	second, errOut, _ := runCLI("run", "--state", state, script)
	if want := strings.TrimPrefix(full, first); second != want || want == "" {
		t.Errorf("resumed run printed:\n%s\nwant the uninterrupted run's hours 36 to 60:\n%s", second, want)
	}
	if !strings.HasPrefix(errOut, "metronome run: stopped at --until 24h (86400s of virtual time since the saved state's time)") {
		t.Errorf("resumed run's stderr %q; want it stopped at --until 24h, 86400s after the saved state's time", errOut)
	}
}

// TestStateSavedUnderRealtimeResumesInVirtualTime: a state saved by a
// --realtime run (its time is the wall clock's) resumes in virtual time
// from that time: the job left pending runs, without a warning and
// without stopping at --until first.
func TestStateSavedUnderRealtimeResumesInVirtualTime(t *testing.T) {
	script := writeScript(t, "rt.lua", `local Temporal = require "temporal"
local host = require "app-host"
local hs = host.scheduler
local function ms(n) return Temporal.duration{ milliseconds = n } end
local handlers = {
  checkpoint = function() print("checkpoint"); host.quit() end,
  later = function() print("later"); host.quit() end,
}
if not host.handlers(handlers) then
  hs:schedule_once{ delay = ms(20), label = "checkpoint", callback = handlers.checkpoint }
  hs:schedule_once{ delay = ms(3600000), label = "later", callback = handlers.later }
end
`)
	state := filepath.Join(t.TempDir(), "save.json")
	out, errOut, code := runCLI("run", "--realtime", "--state", state, script)
	if code != 0 || out != "checkpoint\n" {
		t.Fatalf("realtime run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = runCLI("run", "--state", state, script)
	if code != 0 || out != "later\n" || errOut != "" {
		t.Errorf("resumed run: exit %d, stdout %q, stderr %q; want 0, \"later\\n\" and no message", code, out, errOut)
	}
}

// TestStateFarFirstJobAfterResume: the far-first-job warning of a resumed
// run measures from the saved state's time and gives no --start advice.
func TestStateFarFirstJobAfterResume(t *testing.T) {
	script := writeScript(t, "far.lua", `local Temporal = require "temporal"
local host = require "app-host"
local hs = host.scheduler
local handlers = { yearly = function() print("yearly") end, quit = function() host.quit() end }
if not host.handlers(handlers) then
  hs:schedule_once{ delay = Temporal.duration{ hours = 48 }, label = "quit", callback = handlers.quit }
  hs:schedule_once{ delay = Temporal.duration{ hours = 48 + 24 * 400 }, label = "yearly", callback = handlers.yearly }
end
`)
	state := filepath.Join(t.TempDir(), "save.json")
	if _, errOut, code := runCLI("run", "--until", "72h", "--state", state, script); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	_, errOut, code := runCLI("run", "--state", state, script)
	want := "metronome run: warning: the first job due, once #2 'yearly' scheduled at " + script + ":7, is due at 2001-02-06T00:00:00Z, 400d after the saved state's time 2000-01-03T00:00:00Z\n"
	if code != 0 || !strings.HasPrefix(errOut, want) {
		t.Errorf("resumed run: exit %d, stderr:\n%s\nwant it to begin:\n%s", code, errOut, want)
	}
}

// TestStateMissingHandlers: a saved state the script never binds with
// host.handlers is an error, and the file stays as it was.
func TestStateMissingHandlers(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "save.json")
	if _, stderr, code := runCLI("run", "--state", state, filepath.Join("testdata", "save_state.lua"), "quit"); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	saved, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "nohandlers.lua")
	if err := os.WriteFile(script, []byte("print('hi')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI("run", "--state", state, script)
	if code != 1 || !strings.Contains(stderr, "never called host.handlers{...}") {
		t.Errorf("exit %d, stderr %q: want 1 and a message naming host.handlers", code, stderr)
	}
	if now, _ := os.ReadFile(state); !bytes.Equal(now, saved) {
		t.Error("the state file changed")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the folder holds %d entries, want the state and the script (no temporary file left)", len(entries))
	}
}

// cliProcess returns the metronome command with args as a process of its
// own: this test binary, run as the command (see asCLI). ctx bounds it:
// when ctx ends, the process is killed and its pipes closed.
func cliProcess(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), asCLI+"=1")
	cmd.WaitDelay = 5 * time.Second // pipes close at most this long after a kill
	return cmd
}

// TestStateResumesAfterSIGTERM: a metronome process stopped by SIGTERM
// at its checkpoint writes its state; a second process resumes from it
// and prints what the uninterrupted run prints after the checkpoint.
//
// Every wait is for an event of the child process (a line, its exit), not
// for time; the context only bounds them, so that a child that misbehaves
// fails the test instead of hanging it.
func TestStateResumesAfterSIGTERM(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join("testdata", "save_state.lua")
	state := filepath.Join(dir, "save.json")
	full, _, code := runCLI("run", script)
	if code != 0 {
		t.Fatalf("uninterrupted run: exit %d", code)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a bound, not a wait
	defer cancel()
	cmd := cliProcess(ctx, "run", "--budget", "1h", "--state", state, script, "hang")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The process prints "checkpoint" and then loops in that callback
	// until the signal: read up to that line (its handler for SIGTERM is
	// installed before the script runs), then send it.
	sc := bufio.NewScanner(stdout)
	var first []string
	seen := false
	for !seen && sc.Scan() {
		first = append(first, sc.Text())
		seen = strings.HasSuffix(sc.Text(), " checkpoint")
	}
	if !seen {
		err := cmd.Wait()
		t.Fatalf("first process ended before its checkpoint: %v\nstdout:\n%s\nstderr:\n%s", err, strings.Join(first, "\n"), stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		first = append(first, sc.Text())
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("first process: %v, want exit 130 (context: %v)\nstdout:\n%s\nstderr:\n%s", err, ctx.Err(), strings.Join(first, "\n"), stderr.String())
	}
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("no state written on SIGTERM: %v\nstderr:\n%s", err, stderr.String())
	}

	second := cliProcess(ctx, "run", "--state", state, script)
	var secondErr bytes.Buffer
	second.Stderr = &secondErr
	out, err := second.Output()
	if err != nil {
		t.Fatalf("resumed process: %v\nstderr:\n%s", err, secondErr.String())
	}
	if want := after(t, full, "checkpoint"); string(out) != want || !strings.Contains(want, "boom") {
		t.Errorf("resumed process printed:\n%s\nwant what the uninterrupted run printed after the checkpoint:\n%s", out, want)
	}
}

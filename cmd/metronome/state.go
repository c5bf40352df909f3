package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/runtime/sched/snapshot"
	"github.com/metronome-rt/metronome/temporal"
)

// --state FILE: the host's timed work is saved in FILE when the run ends
// (the plain end, host.quit(), --until, a pause, SIGTERM or Ctrl-C; not
// after a script error, which leaves FILE as it was) and restored from it
// at the script's host.handlers{...} call in the next run. FILE is written
// whole or not at all: a temporary file beside it, renamed over it.

// readState reads --state's file, when it exists, for host.handlers. In
// virtual time a restore moves the fresh host up to the state's time, and
// --until counts the run's own time from there: resuming a run saved at
// day 3, or under --realtime, runs up to --until more.
func readState(o *runOptions) error {
	if o.State == "" {
		return nil
	}
	text, err := os.ReadFile(o.State)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--state: %w", err)
	}
	o.stateText = text
	if o.Realtime {
		return nil
	}
	at, ok := stateTime(text)
	if !ok {
		return nil // a malformed file is reported, by field, when host.handlers restores it
	}
	if d, err := at.Sub(o.Start); err == nil && d > 0 {
		o.resumedAt = d
		if o.Until, err = o.Until.Add(d); err != nil {
			o.Until = math.MaxInt64
		}
	}
	return nil
}

// stateTime reads a saved state's "now" and stops there: in the text the
// run writes it comes second, before the jobs, so a long state is not
// scanned twice (host.handlers decodes it all).
func stateTime(text []byte) (temporal.Instant, bool) {
	dec := json.NewDecoder(bytes.NewReader(text))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return temporal.Instant{}, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return temporal.Instant{}, false
		}
		if k == "now" {
			var now string
			if dec.Decode(&now) != nil {
				return temporal.Instant{}, false
			}
			at, err := temporal.ParseInstant(now)
			return at, err == nil
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return temporal.Instant{}, false
		}
	}
	return temporal.Instant{}, false
}

// stateUsed is an error when the main chunk left a saved state unrestored.
func (s *session) stateUsed() error {
	if s.o.State == "" || !scripting.SavedStatePending(s.L) {
		return nil
	}
	return fmt.Errorf("--state %s: the file holds a saved state, but the script never called host.handlers{...} to restore it: call it in the main chunk with a function for each label (see docs/save-restore.md)", s.o.State)
}

// saveState writes the host's state to --state's file at the end of the
// run, unless the run ended in a script error or before a saved state was
// restored.
func (s *session) saveState(ctx context.Context, runErr error) error {
	if s.o.State == "" || scripting.SavedStatePending(s.L) {
		return nil
	}
	if runErr != nil && ctx.Err() == nil {
		return nil
	}
	text, left, err := scripting.SaveHostState(s.L, s.host)
	if err != nil {
		return fmt.Errorf("--state %s: %w", s.o.State, err)
	}
	if len(left) > 0 {
		fmt.Fprintf(s.o.Stderr, "metronome run: --state %s: %s left out: %s\n", s.o.State, plural(len(left), "job", "jobs"), refusedText(left))
	}
	if err := writeAtomic(s.o.State, text); err != nil {
		return fmt.Errorf("--state: %w", err)
	}
	return nil
}

func refusedText(left []snapshot.Refused) string {
	parts := make([]string, len(left))
	for i, r := range left {
		parts[i] = r.String()
	}
	return strings.Join(parts, "; ")
}

// writeAtomic writes data to path through a temporary file in path's
// folder, synced and renamed over path: a reader sees the old file or the
// new one, never a part.
func writeAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil { // CreateTemp's 0600 is not a save file's
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

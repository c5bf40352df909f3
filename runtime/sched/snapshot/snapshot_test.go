package snapshot_test

import (
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched/snapshot"
)

func TestDecodeRefuses(t *testing.T) {
	for text, want := range map[string]string{
		`{"version": 2, "now": "2000-01-01T00:00:00Z", "jobs": []}`:             "version: want a snapshot version from 1 to 1 (a newer one needs a newer build), got 2",
		`{"version": 1, "now": "2000-01-01T00:00:00Z", "jobs": [], "extra": 1}`: `unknown field "extra"`,
		`{"version": 1, "now": "yesterday", "jobs": []}`:                        "Decode: now:",
		`[1, 2]`: "not a snapshot's JSON",
		`{"version": 1, "now": "2000-01-01T00:00:00Z"} {}`: "text: want one JSON object, got more text after it",
		`{"version": 1, "now": "2000-01-01T00:00:00Z", "seq": 1, "jobs": [{"kind": "once", "seq": 1, "label": "x", "due": "-PT1S"}]}`:     "jobs[0].due: want a duration >= 0",
		`{"version": 1, "now": "2000-01-01T00:00:00Z", "seq": 1, "jobs": [{"kind": "every", "seq": 1, "label": "x", "due": "PT1S"}]}`:     "jobs[0].interval",
		`{"version": 1, "now": "2000-01-01T00:00:00Z", "seq": 1, "jobs": [{"kind": "once", "seq": 2, "label": "x", "due": "PT1S"}]}`:      "jobs[0].seq",
		`{"version": 1, "now": "2000-01-01T00:00:00Z", "seq": 1, "jobs": [{"kind": "timer", "seq": 1, "label": "x", "due": "PT1S"}]}`:     "jobs[0].key: want a non-empty key",
		`{"version": 1, "now": "2000-01-01T00:00:00Z", "seq": 1, "jobs": [{"kind": "sometimes", "seq": 1, "label": "x", "due": "PT1S"}]}`: `jobs[0].kind: want "once", "every", "recurrence" or "timer", got "sometimes"`,
	} {
		_, err := snapshot.Decode([]byte(text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
}

// Check fills in a recurrence's or a timer's missing part in a copy: the
// caller's State keeps its nil parts.
func TestCheckLeavesTheStateAlone(t *testing.T) {
	st := snapshot.State{Version: 1, Now: "2000-01-01T00:00:00Z", Seq: 1, Jobs: []snapshot.Job{{Kind: "timer", Seq: 1, Label: "x", Due: "PT1S"}}}
	if _, err := snapshot.Check("Restore", st); err == nil || !strings.HasPrefix(err.Error(), "Restore: jobs[0].key") {
		t.Fatalf("%v", err)
	}
	if st.Jobs[0].Timer != nil {
		t.Fatal("Check changed the caller's job")
	}
}

// A refusal names the job as errors name jobs, then why.
func TestRefusedText(t *testing.T) {
	e := &snapshot.Error{Method: "Snapshot", Jobs: []snapshot.Refused{
		{ID: 1, Kind: "once", Where: "game.lua:3", Reason: "no label"},
		{ID: 3, Kind: "spawn", Reason: "a waiting task"},
		{ID: 4, Kind: "every", Label: "regen", Where: "game.lua:5", Reason: "no handler"},
	}}
	want := "Snapshot: 3 jobs cannot be saved or restored (leave them out with skip): once #1 scheduled at game.lua:3: no label; " +
		"spawn #3: a waiting task; every #4 'regen' scheduled at game.lua:5: no handler"
	if got := e.Error(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

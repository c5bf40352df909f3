// Package snapshot is the data format of a scheduler's saved state:
// (*sched.Scheduler).Snapshot writes a State, which encoding/json writes
// as it is, and Restore builds the same work again from one in a fresh
// scheduler, binding each job's callback again by its label. Decode reads
// the JSON text; Check reads a State field by field, as Restore does.
//
// The format, version 1 (field names in kebab case, as scripts spell
// them). Instants are RFC 3339 text with nanoseconds; durations are
// ISO 8601 text ("PT4.5S"); every deadline is a duration after "now":
//
//	{"version": 1, "now": "2000-01-01T00:00:10Z", "seq": 7,
//	 "owners": [{"id": "w1", "lease": "PT5S", "deadline": "PT2S", "authority": 1}],
//	 "jobs": [
//	  {"kind": "once", "seq": 3, "label": "bomb", "where": "game.lua:9", "due": "PT4.5S"},
//	  {"kind": "every", "seq": 4, "label": "regen", "due": "PT1S", "interval": "PT1S", "left": 3},
//	  {"kind": "recurrence", "seq": 5, "label": "daily", "due": "PT13H50M",
//	   "dtstart": "2024-03-09T09:00:00", "rrule": ["FREQ=DAILY"], "zone": "America/New_York",
//	   "disambiguation": "compatible", "index": 2},
//	  {"kind": "timer", "seq": 6, "label": "poison", "due": "PT0.5S", "key": "poison",
//	   "generation": 1, "interval": "PT1S", "overrun": "skip-late-ticks",
//	   "anchor-index": 1, "anchor-at": "-PT6.5S", "next-index": 8,
//	   "scheduled-index": 7, "delivery-index": 7}]}
//
// "seq" is the job's creation number, which orders jobs due at one instant
// and is its id ("id" appears only when a Reset kept another); the
// snapshot's "seq" is the last one handed out, so jobs scheduled after a
// restore get the ids they would have got. "left" is an interval's fires
// left under a count; "index" a recurrence's next occurrence index and
// "limit-left" the fires its limit still allows; "rrule", "rdate",
// "exdate" and "exrule" are lists. A keyed timer holds its cadence: the
// nominal index whose deadline is "anchor-at", the next nominal index,
// and the last scheduled and delivery indices; "owner" is the id of an
// owner in "owners" (a lease: its length, deadline and authority), absent
// for a standing owner. A job restored after downtime and not yet caught
// up has "catch-up" (fires left, due now; a recurrence's "due" is then its
// missed occurrence) and "after" (an interval's deadline after them; where
// a recurrence goes on from). Unknown fields and a newer version are
// errors.
package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Version is the format version a scheduler writes and the newest Decode
// and Restore read.
const Version = 1

// DefaultMaxCatchUp is how many missed runs of one job the fire-all
// misfire policy fires at most; the rest are skipped.
const DefaultMaxCatchUp = 1_000

// State is a scheduler's pending work as plain data; encoding/json writes
// and reads it.
type State struct {
	Version int     `json:"version"`
	Now     string  `json:"now"`
	Seq     uint64  `json:"seq"`
	Owners  []Owner `json:"owners,omitempty"`
	Jobs    []Job   `json:"jobs"`
}

// Owner is an owner with a lease whose keyed timers a snapshot holds.
type Owner struct {
	ID        string `json:"id"`
	Lease     string `json:"lease"`
	Deadline  string `json:"deadline"`
	Authority uint64 `json:"authority,omitempty"`
}

// Job is one pending job of a snapshot; which fields it has depends on
// its kind. A recurrence's and a keyed timer's own fields are behind
// pointers, nil for other kinds, so a snapshot of many one-shots stays
// small.
type Job struct {
	Kind  string `json:"kind"`
	Seq   uint64 `json:"seq"`
	ID    uint64 `json:"id,omitempty"`
	Label string `json:"label"`
	Where string `json:"where,omitempty"`
	Group string `json:"group,omitempty"`
	Due   string `json:"due,omitempty"`

	Interval string `json:"interval,omitempty"` // every, timer
	Left     int    `json:"left,omitempty"`     // every with a count

	*Recurrence
	*Timer

	// A restored job's catch-up not yet run.
	CatchUp int    `json:"catch-up,omitempty"`
	After   string `json:"after,omitempty"`
}

// Recurrence is a recurrence's part of a Job.
type Recurrence struct {
	DTStart        string   `json:"dtstart,omitempty"`
	RRule          []string `json:"rrule,omitempty"`
	RDate          []string `json:"rdate,omitempty"`
	ExDate         []string `json:"exdate,omitempty"`
	ExRule         []string `json:"exrule,omitempty"`
	Zone           string   `json:"zone,omitempty"`
	Disambiguation string   `json:"disambiguation,omitempty"`
	Index          int      `json:"index,omitempty"`
	LimitLeft      int      `json:"limit-left,omitempty"`
}

// Timer is a keyed timer's part of a Job.
type Timer struct {
	Key             string `json:"key,omitempty"`
	Generation      uint64 `json:"generation,omitempty"`
	Overrun         string `json:"overrun,omitempty"`
	MaxCatchUpTicks int64  `json:"max-catch-up-ticks,omitempty"`
	AnchorIndex     int64  `json:"anchor-index,omitempty"`
	AnchorAt        string `json:"anchor-at,omitempty"`
	NextIndex       int64  `json:"next-index,omitempty"`
	ScheduledIndex  int64  `json:"scheduled-index,omitempty"`
	DeliveryIndex   int64  `json:"delivery-index,omitempty"`
	Owner           string `json:"owner,omitempty"`
	OnCancel        bool   `json:"on-cancel,omitempty"`
}

// Handler binds a label to a restored job's callback and what goes with
// it. Fn is the callback a scheduler takes for the job's kind: func()
// error for a once or every job, func(temporal.Instant, int) error for a
// recurrence, func(*sched.Step) error for a keyed timer. OnCancel is a
// keyed timer's cleanup (needed for a timer saved with one); Data is what
// the restored job carries (sched.WithData).
type Handler struct {
	Fn       any
	OnCancel func()
	Data     any
}

// Refused is a job a scheduler cannot save or restore, and why.
type Refused struct {
	ID     uint64
	Kind   string // "once", "every", "recurrence", "timer" or "spawn"
	Label  string // its user's name, which binds its callback
	Where  string // where it was scheduled
	Reason string
}

// String returns "once #1 'bomb' scheduled at game.lua:9: reason": the
// label and the position each only when known.
func (r Refused) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s #%d", r.Kind, r.ID)
	if r.Label != "" {
		b.WriteString(" '" + r.Label + "'")
	}
	if r.Where != "" {
		b.WriteString(" scheduled at " + r.Where)
	}
	b.WriteString(": " + r.Reason)
	return b.String()
}

// Error lists the jobs Snapshot or Restore refused. Restore changed
// nothing; the State Snapshot returns beside it holds every other job.
type Error struct {
	Method string // "Snapshot" or "Restore"
	Jobs   []Refused
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d job", e.Method, len(e.Jobs))
	if len(e.Jobs) != 1 {
		b.WriteString("s")
	}
	b.WriteString(" cannot be saved or restored (leave them out with skip): ")
	for i, r := range e.Jobs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(r.String())
	}
	return b.String()
}

// Decode reads the JSON text of a State. Malformed text, an unknown
// field, a version newer than Version and a job no scheduler could hold
// are a *temporal.OptionError naming the field ("Decode: jobs[2].due:
// ..."), never a panic.
func Decode(text []byte) (State, error) {
	const name = "Decode"
	// The decoder appends the jobs to the slice it is given: sized from
	// the text, a long list is not grown and copied again and again. A
	// hint that is off only costs that.
	st := State{Jobs: make([]Job, 0, min(bytes.Count(text, []byte(`"kind"`)), len(text)/32))}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return State{}, optionError(name, "text", "", nil, fmt.Errorf("not a snapshot's JSON: %w", JSONError(err)))
	}
	if dec.More() {
		return State{}, optionError(name, "text", "one JSON object", "more text after it", nil)
	}
	if _, err := Check(name, st); err != nil {
		return State{}, err
	}
	return st, nil
}

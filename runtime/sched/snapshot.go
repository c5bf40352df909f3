package sched

// Save and restore.
//
// Snapshot writes a scheduler's pending work as plain data, which
// encoding/json writes as it is; Restore builds the same work again in a
// fresh scheduler, binding each job's callback again by its label (the
// user's name, WithName, a script's label option). Restored at the
// snapshot's now, the run goes on exactly as if never interrupted: the
// same callbacks at the same instants, with the same arguments, ids, tick
// indices and observer events.
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
// for the scheduler's or a group's own owner. A job restored after
// downtime and not yet caught up has "catch-up" (fires left, due now; a
// recurrence's "due" is then its missed occurrence) and "after" (an
// interval's deadline after them; where a recurrence goes on from). Unknown fields and a newer version are errors.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// SnapshotVersion is the format version Snapshot writes and the newest
// DecodeSnapshot and Restore read.
const SnapshotVersion = 1

// Snapshot is a scheduler's pending work as plain data (see Snapshot and
// Restore); encoding/json writes and reads it.
type Snapshot struct {
	Version int             `json:"version"`
	Now     string          `json:"now"`
	Seq     uint64          `json:"seq"`
	Owners  []SnapshotOwner `json:"owners,omitempty"`
	Jobs    []SnapshotJob   `json:"jobs"`
}

// SnapshotOwner is an owner with a lease whose keyed timers a snapshot
// holds.
type SnapshotOwner struct {
	ID        string `json:"id"`
	Lease     string `json:"lease"`
	Deadline  string `json:"deadline"`
	Authority uint64 `json:"authority,omitempty"`
}

// SnapshotJob is one pending job of a snapshot; which fields it has
// depends on its kind. A recurrence's and a keyed timer's own fields are
// behind pointers, nil for other kinds, so a snapshot of many one-shots
// stays small.
type SnapshotJob struct {
	Kind  string `json:"kind"`
	Seq   uint64 `json:"seq"`
	ID    uint64 `json:"id,omitempty"`
	Label string `json:"label"`
	Where string `json:"where,omitempty"`
	Group string `json:"group,omitempty"`
	Due   string `json:"due,omitempty"`

	Interval string `json:"interval,omitempty"` // every, timer
	Left     int    `json:"left,omitempty"`     // every with a count

	*SnapshotRecurrence
	*SnapshotTimer

	// A restored job's catch-up not yet run.
	CatchUp int    `json:"catch-up,omitempty"`
	After   string `json:"after,omitempty"`
}

// SnapshotRecurrence is a recurrence's part of a SnapshotJob.
type SnapshotRecurrence struct {
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

// SnapshotTimer is a keyed timer's part of a SnapshotJob.
type SnapshotTimer struct {
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

// Refused is a job Snapshot or Restore cannot take, and why.
type Refused struct {
	Job
	Reason string
}

func (r Refused) String() string { return r.Job.String() + ": " + r.Reason }

// SnapshotError lists the jobs Snapshot or Restore refused. Restore
// changed nothing; the Snapshot returned beside it holds every other job.
type SnapshotError struct {
	Method string // "Snapshot" or "Restore"
	Jobs   []Refused
}

func (e *SnapshotError) Error() string {
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

// Snapshot returns the scheduler's pending work as plain data: every once,
// every, recurrence and keyed timer, with its label, deadline and creation
// order, and the owners with a lease its timers use. It changes nothing.
//
// A job it cannot save makes it return a *SnapshotError naming each: a
// job without a label (WithName; a keyed timer's label is its key unless
// it has a name), a waiting or running task (Spawn), a keyed timer whose
// handler is running or waits for an older generation's, a timer of an
// owner whose authority is an Admitter or whose id is "" or not unique.
// The Snapshot returned beside that error holds every other job, for a
// caller that leaves them out. Data attached to a job (WithData,
// TimerOptions.Data) is not saved.
func (s *Scheduler) Snapshot() (Snapshot, error) {
	const name = "Snapshot"
	if err := s.check(name); err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{Version: SnapshotVersion, Now: s.Now().String(), Seq: s.seq, Jobs: make([]SnapshotJob, 0, s.q.Len())}
	var refused []Refused
	refuse := func(j Job, why string) { refused = append(refused, Refused{Job: j, Reason: why}) }
	type entry struct {
		when int64
		key  uint64
		id   timerq.ID
		p    ref
	}
	es := make([]entry, 0, s.q.Len())
	dues := make([]int64, 0, s.q.Len()) // each job's deadline, beside snap.Jobs, for the order
	s.q.Each(func(id timerq.ID, when int64, key uint64, p ref) bool {
		if key&tagMask != tagTimer {
			es = append(es, entry{when, key, id, p})
		}
		return true
	})
	slices.SortFunc(es, func(a, b entry) int {
		if c := cmp.Compare(a.when, b.when); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	if s.inJob && s.curKey&tagMask == tagSpawn {
		refuse(s.curExt.job(s.curKey), "a running task: its steps are code, not data")
	}
	for _, e := range es {
		tag := e.key & tagMask
		ext := extOf(e.key, e.p)
		switch {
		case tag == tagSpawn:
			refuse(ext.job(e.key), "a waiting task: its steps are code, not data")
			continue
		case ext == nil || ext.name == "":
			refuse(ext.job(e.key), "no label to bind its callback to again (WithName)")
			continue
		}
		kind := tagKind(tag)
		if tag == tagLate {
			kind = ext.kind
		}
		snap.Jobs = append(snap.Jobs, SnapshotJob{Kind: kind.String(), Seq: e.key >> tagBits, Label: ext.name, Where: ext.label, Due: s.offset(e.when)})
		sj := &snap.Jobs[len(snap.Jobs)-1]
		if ext.id != 0 && ext.id != sj.Seq {
			sj.ID = ext.id
		}
		if ext.group != nil {
			sj.Group = ext.group.name
		}
		if tag == tagLate {
			st := s.late[e.key]
			sj.CatchUp = st.n
			if st.after >= 0 {
				sj.After = s.offset(st.after)
			}
		}
		switch kind {
		case KindEvery:
			sj.Interval = durationText(s.fns[e.id].interval)
			if tag == tagEveryCount || tag == tagLate && s.late[e.key].tag == tagEveryCount {
				sj.Left = ext.left
			}
		case KindRecurrence:
			r := ext.rec
			sj.SnapshotRecurrence = &SnapshotRecurrence{}
			spec := r.spec.Set.Spec()
			sj.DTStart = spec.DTStart.String()
			sj.RRule, sj.ExRule = spec.RRules, spec.ExRules
			for _, l := range spec.RDates {
				sj.RDate = append(sj.RDate, l.String())
			}
			for _, l := range spec.ExDates {
				sj.ExDate = append(sj.ExDate, l.String())
			}
			sj.Zone, sj.Disambiguation = r.spec.Zone, r.spec.Disambiguation.String()
			if tag == tagLate {
				sj.Due = s.offset(s.sinceEpoch(r.nextAt)) // the missed occurrence
			}
			sj.Index = r.fired + 1
			if r.limit > 0 {
				sj.LimitLeft = r.limit - r.fired
			}
		}
		dues = append(dues, e.when)
	}
	var timers []*Timer
	if s.keyed != nil {
		for t := s.keyed.live; t != nil; t = t.next {
			timers = append(timers, t)
		}
	}
	// An owner with a lease is saved by id: an id two of them share, or
	// none, names none.
	byID := map[string]*Owner{}
	shared := map[string]bool{}
	for _, t := range timers {
		if o := t.owner; leased(o) {
			if p := byID[o.id]; p != nil && p != o {
				shared[o.id] = true
			}
			byID[o.id] = o
		}
	}
	saved := map[*Owner]bool{}
	slices.Reverse(timers) // registration order
	for _, t := range timers {
		j := t.ext.job(t.key)
		label := t.ext.name
		if label == "" {
			label = t.tick.Key
		}
		switch {
		case t.canceled && !t.running:
			continue // ended: not pending
		case t.running:
			refuse(j, "its handler is running: a handler is code, not data")
			continue
		case t.waiting || t.blocked:
			refuse(j, "it waits for an older generation's running handler")
			continue
		}
		o := t.owner
		owner := ""
		if o.adm != nil {
			refuse(j, "its owner's authority is an Admitter, outside the snapshot")
			continue
		}
		if leased(o) {
			if o.id == "" || shared[o.id] {
				refuse(j, fmt.Sprintf("its owner's id %q does not name one owner", o.id))
				continue
			}
			if !saved[o] {
				saved[o] = true
				snap.Owners = append(snap.Owners, SnapshotOwner{ID: o.id, Lease: temporal.Duration(o.lease).String(),
					Deadline: s.offset(o.deadline), Authority: o.authority})
			}
			owner = o.id
		}
		c := t.cad.State()
		sj := SnapshotJob{Kind: KindTimer.String(), Seq: t.ID(), Label: label, Where: t.ext.label,
			Interval: durationText(c.Interval), SnapshotTimer: &SnapshotTimer{Key: t.tick.Key,
				Generation: t.tick.Generation, Overrun: c.Overrun.Policy.String(),
				AnchorIndex: c.AnchorIndex, AnchorAt: s.offset(c.AnchorAt), NextIndex: c.Next, ScheduledIndex: c.LastScheduled,
				DeliveryIndex: c.Delivered, Owner: owner, OnCancel: t.onCancel != nil}}
		if c.Overrun.Policy == cadence.CatchUpBounded {
			sj.MaxCatchUpTicks = c.Overrun.MaxCatchUpTicks
		}
		if t.ext.group != nil {
			sj.Group = t.ext.group.name
		}
		due := int64(math.MaxInt64) // not queued: its lease lapsed
		if t.queued {
			due, _, _, _ = s.q.Get(t.qid)
			sj.Due = s.offset(due)
		}
		snap.Jobs = append(snap.Jobs, sj)
		dues = append(dues, due)
	}
	snap.Jobs = sortJobs(snap.Jobs, dues)
	if len(refused) > 0 {
		slices.SortStableFunc(refused, func(a, b Refused) int { return cmp.Compare(a.ID, b.ID) })
		return snap, &SnapshotError{Method: name, Jobs: refused}
	}
	return snap, nil
}

// leased reports whether o is an owner a snapshot lists: not the
// scheduler's or a group's own.
func leased(o *Owner) bool { return o.lease > 0 || o.adm != nil }

// sortJobs returns jobs ordered by deadline (dues), then creation; a
// timer without one comes last.
func sortJobs(jobs []SnapshotJob, dues []int64) []SnapshotJob {
	type pos struct {
		due int64
		seq uint64
		i   int
	}
	order := make([]pos, len(jobs))
	for i := range jobs {
		order[i] = pos{dues[i], jobs[i].Seq, i}
	}
	by := func(a, b pos) int {
		if c := cmp.Compare(a.due, b.due); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	}
	if slices.IsSortedFunc(order, by) {
		return jobs
	}
	slices.SortFunc(order, by)
	out := make([]SnapshotJob, len(jobs))
	for k, p := range order {
		out[k] = jobs[p.i]
	}
	return out
}

// offset returns the deadline at (ns after the epoch) as text: a duration
// after Now().
func (s *Scheduler) offset(at int64) string {
	d, ok := subNs(at, s.now)
	if !ok {
		if at > s.now {
			d = math.MaxInt64
		} else {
			d = math.MinInt64
		}
	}
	return durationText(d)
}

// durationText is temporal.Duration(d).String() with one allocation, the
// string: a snapshot writes one per job.
func durationText(d int64) string {
	if d == 0 {
		return "PT0S"
	}
	var buf [48]byte
	b := buf[:0]
	u := uint64(d)
	if d < 0 {
		b = append(b, '-')
		u = -u
	}
	b = append(b, 'P', 'T')
	h, u := u/uint64(temporal.Hour), u%uint64(temporal.Hour)
	m, u := u/uint64(temporal.Minute), u%uint64(temporal.Minute)
	sec, ns := u/uint64(temporal.Second), u%uint64(temporal.Second)
	if h > 0 {
		b = append(strconv.AppendUint(b, h, 10), 'H')
	}
	if m > 0 {
		b = append(strconv.AppendUint(b, m, 10), 'M')
	}
	if sec > 0 || ns > 0 {
		b = strconv.AppendUint(b, sec, 10)
		if ns > 0 {
			var frac [9]byte
			for i := 8; i >= 0; i-- {
				frac[i] = byte('0' + ns%10)
				ns /= 10
			}
			n := 9
			for frac[n-1] == '0' {
				n--
			}
			b = append(append(b, '.'), frac[:n]...)
		}
		b = append(b, 'S')
	}
	return string(b)
}

// subNs returns a-b and whether it fits int64.
func subNs(a, b int64) (int64, bool) {
	d := a - b
	if (b < 0 && d < a) || (b > 0 && d > a) {
		return 0, false
	}
	return d, true
}

// addNs returns a+b and whether it fits int64.
func addNs(a, b int64) (int64, bool) {
	c := a + b
	if (b > 0 && c < a) || (b < 0 && c > a) {
		return 0, false
	}
	return c, true
}

// DecodeSnapshot reads the JSON text of a Snapshot. Malformed text, an
// unknown field, a version newer than SnapshotVersion and a job no
// scheduler could hold are a *temporal.OptionError naming the field
// ("DecodeSnapshot: jobs[2].due: ..."), never a panic.
func DecodeSnapshot(text []byte) (Snapshot, error) {
	const name = "DecodeSnapshot"
	var snap Snapshot
	dec := json.NewDecoder(strings.NewReader(string(text)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&snap); err != nil {
		return Snapshot{}, &temporal.OptionError{Method: name, Param: "text", Err: fmt.Errorf("not a snapshot's JSON: %w", err)}
	}
	if dec.More() {
		return Snapshot{}, &temporal.OptionError{Method: name, Param: "text", Want: "one JSON object", Got: "more text after it"}
	}
	if _, err := parseSnapshot(name, &snap); err != nil {
		return Snapshot{}, err
	}
	return snap, nil
}

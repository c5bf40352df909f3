package snapshot

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/temporal"
)

// maxSeq is the largest creation number a scheduler hands out: a queue
// key keeps three bits of its 64 for the job's kind.
const maxSeq = math.MaxUint64 >> 3

// maxRejections bounds how many rejected local times in a row a
// recurrence skips while looking for an occurrence, as a scheduler does.
const maxRejections = 10_000

// Plan is a State read and checked: every field parsed. Restore builds
// from it.
type Plan struct {
	Now    temporal.Instant
	Seq    uint64
	Owners map[string]*PlanOwner // by id
	Jobs   []PlanJob
}

// PlanOwner is an owner of a Plan. Deadline is in ns after the Plan's Now.
type PlanOwner struct {
	ID        string
	Lease     int64
	Deadline  int64
	Authority uint64
}

// PlanJob is a job of a Plan. Times are in ns; Due, After and the
// cadence's AnchorAt are after the Plan's Now.
type PlanJob struct {
	Job      *Job // as the State holds it, with its kind's part
	Index    int  // in State.Jobs
	ID       uint64
	Due      int64
	Interval int64 // every, timer
	After    int64 // when Job.After is set

	// A recurrence's set, zone and disambiguation, and its pending
	// occurrence.
	Set            *temporal.RecurrenceSet
	Zone           *temporal.Zone
	Disambiguation temporal.Disambiguation
	Next           temporal.Instant

	Cadence cadence.State // a keyed timer's
}

func optionError(method, param, want string, got any, err error) error {
	return &temporal.OptionError{Method: method, Param: param, Want: want, Got: got, Err: err}
}

// Check reads st as method (its errors' Method) reads it: malformed
// fields, a version newer than Version and a job no scheduler could hold
// are a *temporal.OptionError naming the field ("jobs[2].due"). The Plan's
// jobs point into st.Jobs, or into a copy when a job lacks its kind's
// part; st is not changed.
func Check(method string, st State) (*Plan, error) {
	bad := func(param, want string, got any, err error) error {
		return optionError(method, param, want, got, err)
	}
	if st.Version < 1 || st.Version > Version {
		return nil, bad("version", fmt.Sprintf("a snapshot version from 1 to %d (a newer one needs a newer build)", Version), st.Version, nil)
	}
	now, err := temporal.ParseInstant(st.Now)
	if err != nil {
		return nil, bad("now", "", nil, err)
	}
	if st.Seq > maxSeq {
		return nil, bad("seq", fmt.Sprintf("a creation number <= %d", uint64(maxSeq)), st.Seq, nil)
	}
	p := &Plan{Now: now, Seq: st.Seq, Owners: map[string]*PlanOwner{}}
	// dur parses the duration text of field of list[i]; the parameter's
	// name is built only for an error.
	dur := func(list string, i int, field, text string) (int64, error) {
		d, err := temporal.ParseDuration(text)
		if err != nil {
			return 0, bad(fmt.Sprintf("%s[%d].%s", list, i, field), "", nil, err)
		}
		return int64(d), nil
	}
	for i := range st.Owners {
		so := &st.Owners[i]
		param := fmt.Sprintf("owners[%d]", i)
		if so.ID == "" || p.Owners[so.ID] != nil {
			return nil, bad(param+".id", "a non-empty id no other owner has", strconv.Quote(so.ID), nil)
		}
		o := &PlanOwner{ID: so.ID, Authority: so.Authority}
		if o.Lease, err = dur("owners", i, "lease", so.Lease); err != nil {
			return nil, err
		}
		if o.Lease <= 0 {
			return nil, bad(param+".lease", "a duration > 0", so.Lease, nil)
		}
		if o.Deadline, err = dur("owners", i, "deadline", so.Deadline); err != nil {
			return nil, err
		}
		p.Owners[so.ID] = o
	}
	seqs := newSeqSet(st.Seq, len(st.Jobs))
	keys := map[[3]string]bool{}
	jobs := st.Jobs
	for i := range jobs {
		if missingPart(&jobs[i]) {
			jobs = slices.Clone(jobs) // the kind's part filled in, not in the caller's state
			break
		}
	}
	p.Jobs = make([]PlanJob, len(jobs))
	for i := range jobs {
		sj := &jobs[i]
		switch {
		case sj.Kind == "recurrence" && sj.Recurrence == nil:
			sj.Recurrence = &Recurrence{}
		case sj.Kind == "timer" && sj.Timer == nil:
			sj.Timer = &Timer{}
		}
		j := &p.Jobs[i]
		*j = PlanJob{Job: sj, Index: i, ID: sj.Seq}
		param := func(f string) string { return fmt.Sprintf("jobs[%d].%s", i, f) }
		if sj.Seq == 0 || sj.Seq > st.Seq || !seqs.add(sj.Seq) {
			return nil, bad(param("seq"), "a creation number from 1 to the snapshot's seq that no other job has", sj.Seq, nil)
		}
		if sj.ID != 0 {
			j.ID = sj.ID
		}
		if sj.Label == "" {
			return nil, bad(param("label"), "a non-empty label", `""`, nil)
		}
		if sj.CatchUp < 0 {
			return nil, bad(param("catch-up"), "an integer >= 0", sj.CatchUp, nil)
		}
		if sj.Due != "" || sj.Kind != "timer" {
			if j.Due, err = dur("jobs", i, "due", sj.Due); err != nil {
				return nil, err
			}
			if j.Due < 0 && sj.Kind != "timer" && (sj.Kind != "recurrence" || sj.CatchUp == 0) {
				return nil, bad(param("due"), "a duration >= 0 (a pending deadline is not before now)", sj.Due, nil)
			}
		}
		if sj.After != "" {
			if j.After, err = dur("jobs", i, "after", sj.After); err != nil {
				return nil, err
			}
		}
		switch sj.Kind {
		case "once":
		case "every":
			if j.Interval, err = dur("jobs", i, "interval", sj.Interval); err != nil {
				return nil, err
			}
			if j.Interval <= 0 {
				return nil, bad(param("interval"), "a duration > 0", sj.Interval, nil)
			}
			if sj.Left < 0 {
				return nil, bad(param("left"), "an integer >= 0", sj.Left, nil)
			}
		case "recurrence":
			if err := j.checkRecurrence(now, param, bad); err != nil {
				return nil, err
			}
		case "timer":
			if err := j.checkTimer(param, bad, func(f, text string) (int64, error) { return dur("jobs", i, f, text) }); err != nil {
				return nil, err
			}
			if sj.Owner != "" && p.Owners[sj.Owner] == nil {
				return nil, bad(param("owner"), "the id of an owner in owners", strconv.Quote(sj.Owner), nil)
			}
			k := [3]string{sj.Owner, sj.Group, sj.Key}
			if keys[k] {
				return nil, bad(param("key"), "a key no other timer of its owner has", strconv.Quote(sj.Key), nil)
			}
			keys[k] = true
		default:
			return nil, bad(param("kind"), `"once", "every", "recurrence" or "timer"`, strconv.Quote(sj.Kind), nil)
		}
	}
	return p, nil
}

// seqSet holds creation numbers from 1 to max: a bit set when max is
// near the count, else a map.
type seqSet struct {
	bits []uint64
	m    map[uint64]bool
}

func newSeqSet(max uint64, n int) seqSet {
	if max/64 <= uint64(4*n+64) {
		return seqSet{bits: make([]uint64, max/64+1)}
	}
	return seqSet{m: make(map[uint64]bool, n)}
}

// add adds seq and reports whether it was new.
func (s seqSet) add(seq uint64) bool {
	if s.m != nil {
		if s.m[seq] {
			return false
		}
		s.m[seq] = true
		return true
	}
	w, b := seq/64, uint64(1)<<(seq%64)
	if s.bits[w]&b != 0 {
		return false
	}
	s.bits[w] |= b
	return true
}

// missingPart reports whether sj is a recurrence or a keyed timer
// without its kind's part (all its fields zero).
func missingPart(sj *Job) bool {
	return sj.Kind == "recurrence" && sj.Recurrence == nil || sj.Kind == "timer" && sj.Timer == nil
}

func (j *PlanJob) checkRecurrence(now temporal.Instant, param func(string) string, bad func(string, string, any, error) error) error {
	sj := j.Job
	var spec temporal.RecurrenceSpec
	var err error
	if spec.DTStart, err = temporal.ParseLocalDateTime(sj.DTStart); err != nil {
		return bad(param("dtstart"), "", nil, err)
	}
	spec.RRules, spec.ExRules = sj.RRule, sj.ExRule
	for f, list := range map[string][]string{"rdate": sj.RDate, "exdate": sj.ExDate} {
		for k, text := range list {
			l, err := temporal.ParseLocalDateTime(text)
			if err != nil {
				return bad(fmt.Sprintf("%s[%d]", param(f), k), "", nil, err)
			}
			if f == "rdate" {
				spec.RDates = append(spec.RDates, l)
			} else {
				spec.ExDates = append(spec.ExDates, l)
			}
		}
	}
	if j.Set, err = temporal.NewRecurrenceSet(spec); err != nil {
		return bad(param("rrule"), "", nil, err)
	}
	if j.Zone, err = temporal.LoadZone(sj.Zone); err != nil {
		return bad(param("zone"), "", nil, err)
	}
	if j.Disambiguation, err = temporal.ParseDisambiguation(sj.Disambiguation); err != nil {
		return bad(param("disambiguation"), "", nil, err)
	}
	if sj.Index < 1 {
		return bad(param("index"), "an occurrence index >= 1", sj.Index, nil)
	}
	if sj.LimitLeft < 0 || sj.LimitLeft > math.MaxInt-sj.Index {
		return bad(param("limit-left"), "an integer >= 0", sj.LimitLeft, nil)
	}
	at, ok := now.Add(temporal.Duration(j.Due))
	if ok != nil {
		return bad(param("due"), "a deadline an instant holds", sj.Due, nil)
	}
	// The pending occurrence must be one of the set's.
	it := j.Set.Iterator(j.Zone, j.Disambiguation)
	it.Seek(at)
	for tries := 0; tries < maxRejections; tries++ {
		got, ok, err := it.Next()
		if err != nil && ok {
			continue
		}
		if !ok || got != at {
			return bad(param("due"), "the instant of one of the set's occurrences", at, nil)
		}
		j.Next = got
		return nil
	}
	return bad(param("due"), "the instant of one of the set's occurrences", at, nil)
}

func (j *PlanJob) checkTimer(param func(string) string, bad func(string, string, any, error) error, dur func(string, string) (int64, error)) error {
	sj := j.Job
	var err error
	if sj.Key == "" {
		return bad(param("key"), "a non-empty key", `""`, nil)
	}
	if sj.Generation < 1 {
		return bad(param("generation"), "an integer >= 1", sj.Generation, nil)
	}
	if j.Interval, err = dur("interval", sj.Interval); err != nil {
		return err
	}
	pol, ok := cadence.ParsePolicy(sj.Overrun)
	if !ok {
		return bad(param("overrun"), fmt.Sprintf("one of %v", cadence.PolicyNames()), strconv.Quote(sj.Overrun), nil)
	}
	anchor, err := dur("anchor-at", sj.AnchorAt)
	if err != nil {
		return err
	}
	j.Cadence = cadence.State{Interval: j.Interval, AnchorIndex: sj.AnchorIndex, AnchorAt: anchor, Next: sj.NextIndex,
		LastScheduled: sj.ScheduledIndex, Delivered: sj.DeliveryIndex, Overrun: cadence.Overrun{Policy: pol, MaxCatchUpTicks: sj.MaxCatchUpTicks}}
	if _, err := cadence.FromState(j.Cadence); err != nil {
		return bad(param("interval"), "", nil, fmt.Errorf("not a timer's cadence: %w", err))
	}
	return nil
}

package sched

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/runtime/sched/snapshot"
	"github.com/metronome-rt/metronome/temporal"
)

// Snapshot is a scheduler's pending work as plain data, which
// encoding/json writes and reads; package snapshot holds its format.
type Snapshot = snapshot.State

// Snapshot returns the scheduler's pending work as plain data: every once,
// every, recurrence and keyed timer, with its label, deadline and creation
// order, and the owners with a lease its timers use. It changes nothing.
// Restored at its now (Restore), the run goes on exactly as if never
// interrupted: the same callbacks at the same instants, with the same
// arguments, ids, tick indices and observer events.
//
// A job it cannot save makes it return a *snapshot.Error naming each: a
// job without a label (WithName; a keyed timer's label is its key unless
// it has a name), a waiting or running task (Spawn), a keyed timer whose
// handler is running or waits for an older generation's, a timer of an
// owner under an Authority or whose id (OwnerOptions.ID) is "" or not
// unique. The Snapshot returned beside that error holds every other job,
// for a caller that leaves them out. Data attached to a job (WithData) is
// not saved.
func (s *Scheduler) Snapshot() (Snapshot, error) {
	const name = "Snapshot"
	if err := s.check(name); err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{Version: snapshot.Version, Now: s.Now().String(), Seq: s.seq, Jobs: make([]snapshot.Job, 0, s.q.Len())}
	var refused []snapshot.Refused
	refuse := func(j JobInfo, why string) { refused = append(refused, refusal(j, why)) }
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
		snap.Jobs = append(snap.Jobs, snapshot.Job{Kind: kind.String(), Seq: e.key >> tagBits, Label: ext.name, Where: ext.label, Due: s.offset(e.when)})
		sj := &snap.Jobs[len(snap.Jobs)-1]
		if ext.id != 0 && ext.id != sj.Seq {
			sj.ID = ext.id
		}
		if ext.group != nil {
			sj.Group = ext.group.Name
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
			sj.Recurrence = &snapshot.Recurrence{}
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
	var timers []*timer
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
		if o.auth != nil {
			refuse(j, "its owner's authority is an Authority, outside the snapshot")
			continue
		}
		if leased(o) {
			if o.id == "" || shared[o.id] {
				refuse(j, fmt.Sprintf("its owner's id %q does not name one owner", o.id))
				continue
			}
			if !saved[o] {
				saved[o] = true
				snap.Owners = append(snap.Owners, snapshot.Owner{ID: o.id, Lease: temporal.Duration(o.lease).String(),
					Deadline: s.offset(o.deadline), Authority: o.authority})
			}
			owner = o.id
		}
		c := t.cad.State()
		sj := snapshot.Job{Kind: KindTimer.String(), Seq: t.key >> tagBits, Label: label, Where: t.ext.label,
			Interval: durationText(c.Interval), Timer: &snapshot.Timer{Key: t.tick.Key,
				Generation: t.tick.Generation, Overrun: c.Overrun.Policy.String(),
				AnchorIndex: c.AnchorIndex, AnchorAt: s.offset(c.AnchorAt), NextIndex: c.Next, ScheduledIndex: c.LastScheduled,
				DeliveryIndex: c.Delivered, Owner: owner, OnCancel: t.onCancel != nil}}
		if c.Overrun.Policy == cadence.CatchUpBounded {
			sj.MaxCatchUpTicks = c.Overrun.MaxCatchUpTicks
		}
		if t.ext.group != nil {
			sj.Group = t.ext.group.Name
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
		slices.SortStableFunc(refused, func(a, b snapshot.Refused) int { return cmp.Compare(a.ID, b.ID) })
		return snap, &snapshot.Error{Method: name, Jobs: refused}
	}
	return snap, nil
}

// refusal is the refusal of job j for why.
func refusal(j JobInfo, why string) snapshot.Refused {
	return snapshot.Refused{ID: j.ID, Kind: j.Kind.String(), Label: j.Name, Where: j.Label, Reason: why}
}

// leased reports whether o is an owner a snapshot lists: not a standing
// owner.
func leased(o *Owner) bool { return o.lease > 0 || o.auth != nil }

// sortJobs returns jobs ordered by deadline (dues), then creation; a
// timer without one comes last.
func sortJobs(jobs []snapshot.Job, dues []int64) []snapshot.Job {
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
	out := make([]snapshot.Job, len(jobs))
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

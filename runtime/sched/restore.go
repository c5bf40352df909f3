package sched

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/runtime/sched/snapshot"
	"github.com/metronome-rt/metronome/temporal"
)

// RestoreOptions say how Restore binds a snapshot's jobs and what it does
// with the runs missed while the scheduler was down.
type RestoreOptions struct {
	// Handlers binds each label to its callback: a func() error for once
	// and every jobs, a func(at temporal.Instant, index int) error for
	// recurrences, a func(*Step) error for keyed timers, or a
	// snapshot.Handler holding one of these (and a keyed timer's OnCancel,
	// the Data the restored jobs carry).
	Handlers map[string]any
	// Groups binds each group name of the snapshot to a group.
	Groups map[string]*Group
	// Owners binds each owner id of the snapshot to an owner with a lease
	// of this scheduler (NewOwner); Restore sets its lease, deadline and
	// fence.
	Owners map[string]*Owner
	// Misfire applies to each job whose deadline is before Now() (the
	// scheduler was down): "fire-once" (or ""): it runs once at Now(), as
	// after a Jump, and goes on with its first run after Now();
	// "fire-all": each missed run, at Now(), in order, at most
	// MaxCatchUpTicks of them, then the rest are skipped; "skip": it goes
	// on with its first run not before Now() (a one-shot is dropped). A
	// keyed timer's missed ticks are late ticks its overrun policy
	// delivers (fire-once, fire-all), or are skipped, counted in the next
	// tick's SkippedTicks (skip).
	Misfire string
	// MaxCatchUpTicks bounds fire-all; 0 means snapshot.DefaultMaxCatchUp.
	MaxCatchUpTicks int
	// Skip leaves out the jobs Restore cannot take and returns them,
	// instead of refusing the whole snapshot.
	Skip bool
	// Job, when set, is asked first for each once job's callback: it
	// returns the callback and the Data the restored job carries
	// (WithData), or a nil callback to leave the job to Handlers.
	Job func(snapshot.Job) (func() error, any)
	// Restored, when set, gets the handle of each once and every job
	// Restore put back, with its creation number (snapshot.Job.Seq); not
	// of one with a catch-up pending (misfire), whose handle would end
	// with the catch-up. Reset refuses these handles.
	Restored func(seq uint64, h Handle)
}

// Restore builds snap's pending work in this scheduler, which must have
// nothing pending. A Now() before the snapshot's moves up to it; restored
// there, every job fires as it would have in the scheduler that wrote
// snap, with the same ids, and later jobs get the ids they would have
// got. A Now() after the snapshot's applies opts.Misfire to the jobs
// whose deadline it passed; their catch-up fires are due at Now() and run
// on the next call that moves time.
//
// A job whose label has no handler of its kind, whose group or owner is
// not bound, and a scheduler with work pending make Restore return a
// *snapshot.Error naming each and change nothing; with opts.Skip the
// jobs are left out and returned. A malformed snapshot, a newer version
// or bad options are a *temporal.OptionError and change nothing.
func (s *Scheduler) Restore(snap Snapshot, opts RestoreOptions) ([]snapshot.Refused, error) {
	const name = "Restore"
	if err := s.check(name); err != nil {
		return nil, err
	}
	if s.running {
		return nil, &CallError{Method: name, Err: ErrReentrant}
	}
	misfire, err := parseMisfire(opts.Misfire)
	if err != nil {
		return nil, &temporal.OptionError{Method: name, Param: "opts.Misfire", Want: `"fire-once", "fire-all" or "skip"`, Got: strconv.Quote(opts.Misfire)}
	}
	if opts.MaxCatchUpTicks < 0 {
		return nil, &temporal.OptionError{Method: name, Param: "opts.MaxCatchUpTicks", Want: "an integer >= 0", Got: opts.MaxCatchUpTicks}
	}
	maxCatchUp := opts.MaxCatchUpTicks
	if maxCatchUp == 0 {
		maxCatchUp = snapshot.DefaultMaxCatchUp
	}
	p, err := snapshot.Check(name, snap)
	if err != nil {
		return nil, err
	}
	if busy := s.pendingJobs(); len(busy) > 0 {
		return nil, &snapshot.Error{Method: name, Jobs: busy}
	}
	// Where the snapshot's now is on this scheduler's timeline.
	base, ok := subNs(p.Now.UnixNano(), s.epoch.UnixNano())
	if !ok || base > s.maxAt {
		return nil, &temporal.OptionError{Method: name, Param: "snap.Now", Want: "an instant this scheduler's int64-nanosecond timeline holds", Got: snap.Now}
	}
	now := max(s.now, base)

	jobs := make([]planJob, len(p.Jobs))
	var refused []*planJob
	keep := make([]*planJob, 0, len(p.Jobs))
	for i := range p.Jobs {
		j := &jobs[i]
		j.PlanJob = &p.Jobs[i]
		j.kind = kindOf(j.Job.Kind)
		if j.why = s.bind(j, &opts); j.why != "" {
			refused = append(refused, j)
			continue
		}
		keep = append(keep, j)
	}
	if len(refused) > 0 && !opts.Skip {
		return nil, &snapshot.Error{Method: name, Jobs: refusedJobs(refused)}
	}
	// Deadlines on this timeline; nothing changes before all fit.
	used := map[string]bool{} // owners a restored timer has
	for _, j := range keep {
		if j.at, ok = addNs(base, j.Due); !ok || j.at > s.maxAt {
			return nil, &temporal.OptionError{Method: name, Param: j.param("due"), Want: "a deadline within int64 nanoseconds", Got: j.Job.Due}
		}
		if j.kind == KindTimer {
			if _, ok := addNs(base, j.Cadence.AnchorAt); !ok {
				return nil, &temporal.OptionError{Method: name, Param: j.param("anchor-at"), Want: "a deadline within int64 nanoseconds", Got: j.Job.AnchorAt}
			}
			if j.Job.Owner != "" {
				used[j.Job.Owner] = true
			}
		}
		if j.Job.After != "" {
			if j.after, ok = addNs(base, j.After); !ok || j.after > s.maxAt {
				return nil, &temporal.OptionError{Method: name, Param: j.param("after"), Want: "a deadline within int64 nanoseconds", Got: j.Job.After}
			}
		}
	}
	if len(keep) > s.maxPending {
		return nil, &CallError{Method: name, Err: fmt.Errorf("%w: the cap is %d", ErrTooManyPending, s.maxPending)}
	}

	s.now = now
	s.seq = max(s.seq, p.Seq)
	for id, so := range p.Owners {
		if o := opts.Owners[id]; o != nil && used[id] {
			o.lease, o.authority = so.Lease, so.Authority
			o.deadline = math.MaxInt64
			if d, ok := addNs(base, so.Deadline); ok {
				o.deadline = min(d, s.maxAt)
			} else if so.Deadline < 0 {
				o.deadline = math.MinInt64
			}
		}
	}
	s.fns = slices.Grow(s.fns, len(keep))
	for _, j := range keep {
		if j.kind == KindTimer {
			s.restoreTimer(j, misfire)
		} else {
			s.restoreJob(j, misfire, maxCatchUp, opts.Restored)
		}
	}
	return refusedJobs(refused), nil
}

// kindOf returns the kind a snapshot names (Check accepted it).
func kindOf(kind string) Kind {
	switch kind {
	case "every":
		return KindEvery
	case "recurrence":
		return KindRecurrence
	case "timer":
		return KindTimer
	}
	return KindOnce
}

// pendingJobs names the work pending here, which a restore would mix with
// the snapshot's.
func (s *Scheduler) pendingJobs() []snapshot.Refused {
	var out []snapshot.Refused
	for _, info := range s.List() {
		out = append(out, refusal(info, "pending in the scheduler restored into: restore into one with nothing pending"))
	}
	if s.keyed != nil {
		for t := s.keyed.live; t != nil; t = t.next {
			if !t.queued {
				out = append(out, refusal(t.ext.job(t.key), "registered in the scheduler restored into: restore into one with nothing pending"))
			}
		}
	}
	return out
}

func refusedJobs(js []*planJob) []snapshot.Refused {
	var out []snapshot.Refused
	for _, j := range js {
		out = append(out, snapshot.Refused{ID: j.ID, Kind: j.kind.String(), Label: j.Job.Label, Where: j.Job.Where, Reason: j.why})
	}
	return out
}

// Misfire policies.
const (
	misfireOnce = iota
	misfireAll
	misfireSkip
)

func parseMisfire(s string) (int, error) {
	switch s {
	case "", "fire-once":
		return misfireOnce, nil
	case "fire-all":
		return misfireAll, nil
	case "skip":
		return misfireSkip, nil
	}
	return 0, fmt.Errorf("misfire %q", s)
}

// planJob is a checked job of a snapshot with what Restore binds to it.
type planJob struct {
	*snapshot.PlanJob
	kind  Kind
	at    int64 // the deadline on the restoring timeline
	after int64 // After on the restoring timeline

	why   string // refused: why
	fn    func() error
	rfn   func(at temporal.Instant, index int) error
	tfn   func(*Step) error
	onCxl func()
	data  any // the Handler's Data; RestoreOptions.Job's
	group *Group
	owner *Owner
}

func (j *planJob) param(field string) string { return fmt.Sprintf("snap.Jobs[%d].%s", j.Index, field) }

// bind finds j's callback, group and owner in opts, or says why not.
func (s *Scheduler) bind(j *planJob, opts *RestoreOptions) string {
	sj := j.Job
	if sj.Group != "" {
		if j.group = opts.Groups[sj.Group]; j.group == nil {
			return fmt.Sprintf("its group %q is not in opts.Groups", sj.Group)
		}
	}
	if j.kind == KindOnce && opts.Job != nil {
		if fn, data := opts.Job(*sj); fn != nil {
			j.fn, j.data = fn, data
			return ""
		}
	}
	h, ok := opts.Handlers[sj.Label]
	if !ok || h == nil {
		return fmt.Sprintf("no handler for its label %q", sj.Label)
	}
	fn := h
	if hd, ok := h.(snapshot.Handler); ok {
		fn, j.onCxl, j.data = hd.Fn, hd.OnCancel, hd.Data
	}
	want := ""
	switch j.kind {
	case KindOnce, KindEvery:
		if j.fn, ok = fn.(func() error); !ok || j.fn == nil {
			want = "a func() error"
		}
	case KindRecurrence:
		if j.rfn, ok = fn.(func(temporal.Instant, int) error); !ok || j.rfn == nil {
			want = "a func(temporal.Instant, int) error"
		}
	case KindTimer:
		if j.tfn, ok = fn.(func(*Step) error); !ok || j.tfn == nil {
			want = "a func(*sched.Step) error"
		}
		if want == "" && sj.OnCancel && j.onCxl == nil {
			return fmt.Sprintf("its on-cancel cleanup has no handler: bind %q to a snapshot.Handler with OnCancel", sj.Label)
		}
		if sj.Owner != "" {
			o := opts.Owners[sj.Owner]
			if o == nil || o.s != s || o.auth != nil || o.lease == 0 {
				return fmt.Sprintf("its owner %q is not in opts.Owners (an owner with a lease of this scheduler)", sj.Owner)
			}
			j.owner = o
		} else {
			j.owner = s.standingOwner(j.group)
		}
		if sl := j.owner.slots[sj.Key]; sl != nil && sl.last != nil {
			return fmt.Sprintf("its key %q is registered in the scheduler restored into", sj.Key)
		}
	}
	if want != "" {
		return fmt.Sprintf("its handler %q is a %T; a %s needs %s", sj.Label, h, j.kind, want)
	}
	return ""
}

// late is a restored job's catch-up: fires due at the restore instant
// before the job goes on as itself.
type late struct {
	n     int    // catch-up fires left
	tag   uint64 // the job's own tag, which it takes back after them
	after int64  // an interval's deadline after them (-1: it ends); where a recurrence goes on from
}

// restoreJob queues a once, every or recurrence job.
func (s *Scheduler) restoreJob(j *planJob, misfire, maxCatchUp int, restored func(uint64, Handle)) {
	sj := j.Job
	e := s.newExt(nil)
	e.group, e.label, e.name, e.kind, e.data = j.group, sj.Where, sj.Label, j.kind, j.data
	if j.ID != sj.Seq {
		e.id = j.ID
	}
	f := jobFn{fn: j.fn, interval: j.Interval}
	tag := uint64(tagOnceExt)
	switch j.kind {
	case KindEvery:
		tag = tagEvery
		if sj.Left > 0 {
			tag, e.left = tagEveryCount, sj.Left
		}
	case KindRecurrence:
		tag = tagRecurrence
		it := j.Set.Iterator(j.Zone, j.Disambiguation)
		it.Seek(j.Next)
		for {
			if _, ok, err := it.Next(); err == nil || !ok {
				break // the pending occurrence: Check found it
			}
		}
		limit := 0
		if sj.LimitLeft > 0 {
			limit = sj.Index - 1 + sj.LimitLeft
		}
		e.rec = &recurrence{spec: Recurrence{Set: j.Set, Zone: sj.Zone, Disambiguation: j.Disambiguation, Limit: limit},
			fn: j.rfn, it: it, limit: limit, fired: sj.Index - 1, nextAt: j.Next}
	}
	at := j.at
	var st *late
	switch {
	case sj.CatchUp > 0: // a catch-up saved before it ran
		st = &late{n: sj.CatchUp, tag: tag, after: -1}
		at = max(at, s.now)
		if sj.After != "" {
			st.after = j.after
			if j.kind == KindEvery && st.after < s.now {
				st.after, _ = gridFrom(st.after, j.Interval, s.now, false, s.maxAt)
			}
		}
	case at < s.now:
		st = s.misfired(j, e, tag, misfire, maxCatchUp)
		if st == nil {
			if j.kind == KindOnce || e.rec == nil && j.kind == KindRecurrence {
				s.freeExt(e)
				return
			}
			if j.kind == KindRecurrence {
				at = s.sinceEpoch(e.rec.nextAt)
			} else {
				var ok bool
				if at, ok = gridFrom(at, j.Interval, s.now, false, s.maxAt); !ok {
					s.freeExt(e)
					return
				}
			}
		} else {
			at = s.now
		}
	}
	if st != nil {
		tag = tagLate
	}
	key := sj.Seq<<tagBits | tag
	id := s.q.Push(at, key, ref(e))
	if n := int(id) + 1; n > len(s.fns) {
		s.fns = append(s.fns, make([]jobFn, n-len(s.fns))...)
	}
	s.fns[id] = f
	if st != nil {
		if s.late == nil {
			s.late = map[uint64]*late{}
		}
		s.late[key] = st
	}
	if restored != nil && j.kind != KindRecurrence && st == nil {
		restored(sj.Seq, Handle{s: s, key: key, qid: id})
	}
}

// misfired applies the misfire policy to a job whose deadline j.at passed
// before Now(): the catch-up it gets, or nil when it gets none (then a
// recurrence's e.rec is where it goes on, or nil when it ends).
func (s *Scheduler) misfired(j *planJob, e *jobExt, tag uint64, misfire, maxCatchUp int) *late {
	now := s.now
	switch j.kind {
	case KindOnce:
		if misfire == misfireSkip {
			return nil
		}
		return &late{n: 1, tag: tag, after: -1}
	case KindEvery:
		missed := (now-j.at-1)/j.Interval + 1 // runs before now
		switch misfire {
		case misfireSkip:
			return nil
		case misfireOnce:
			next, ok := gridFrom(j.at, j.Interval, now, true, s.maxAt)
			if !ok {
				next = -1
			}
			return &late{n: 1, tag: tag, after: next}
		}
		n := int(min(missed, int64(maxCatchUp)))
		if e.left > 0 {
			n = min(n, e.left)
		}
		next, ok := gridFrom(j.at, j.Interval, now, false, s.maxAt)
		if !ok {
			next = -1
		}
		return &late{n: n, tag: tag, after: next}
	}
	// A recurrence.
	r := e.rec
	switch misfire {
	case misfireOnce:
		return &late{n: 1, tag: tag, after: now + 1}
	case misfireAll:
		return &late{n: maxCatchUp, tag: tag, after: now}
	}
	r.it.Seek(s.instant(now))
	at, ok := nextOccurrence(r)
	if !ok {
		e.rec = nil
		return nil
	}
	r.nextAt = at
	return nil
}

// gridFrom returns the first deadline at+k*iv (k >= 0) not before now, or
// after now when strict; ok is false past last.
func gridFrom(at, iv, now int64, strict bool, last int64) (int64, bool) {
	if at > now || at == now && !strict {
		return at, true
	}
	k := (now-at)/iv + 1
	if !strict && (now-at)%iv == 0 {
		k--
	}
	if k > (last-at)/iv {
		return 0, false
	}
	return at + k*iv, true
}

func (s *Scheduler) instant(ns int64) temporal.Instant {
	return temporal.FromUnixNano(s.epoch.UnixNano() + ns)
}

func (s *Scheduler) sinceEpoch(t temporal.Instant) int64 { return t.UnixNano() - s.epoch.UnixNano() }

// nextOccurrence pulls r's next occurrence, past rejected local times; ok
// is false when there is none.
func nextOccurrence(r *recurrence) (temporal.Instant, bool) {
	for tries := 0; tries < maxRejections; tries++ {
		at, ok, err := r.it.Next()
		if err != nil && ok {
			continue
		}
		return at, ok && err == nil
	}
	return temporal.Instant{}, false
}

// restoreTimer registers a keyed timer with its saved cadence.
func (s *Scheduler) restoreTimer(j *planJob, misfire int) {
	sj := j.Job
	o := j.owner
	c := j.Cadence
	c.AnchorAt += j.at - j.Due // on this timeline
	cad, _ := cadence.FromState(c)
	sl := o.slots[sj.Key]
	var t *timer
	if sl == nil {
		ts := &slotTimer{}
		sl, t = &ts.slot, &ts.timer
		o.slots[sj.Key] = sl
	} else {
		t = &timer{}
	}
	sl.gen = sj.Generation
	*t = timer{s: s, owner: o, slot: sl, delayed: c.Overrun.Policy == cadence.DelayNextTick, key: sj.Seq<<tagBits | tagTimer,
		fn: j.tfn, onCancel: j.onCxl, cad: cad}
	t.ext = jobExt{group: j.group, label: sj.Where, name: sj.Label, data: j.data}
	if sj.Label == sj.Key {
		t.ext.name = ""
	}
	t.tick = Step{Key: sj.Key, Generation: sj.Generation, timer: t, Data: j.data, Scheduler: s}
	sl.cur, sl.last = t, t
	k := s.keyedState()
	t.next = k.live
	if k.live != nil {
		k.live.prev = t
	}
	k.live = t
	if misfire == misfireSkip && t.cad.Due() < s.now {
		t.cad.Resume(s.now)
	}
	t.requeue()
}

// fireLate runs one catch-up fire of a restored job, at when.
func (s *Scheduler) fireLate(id timerq.ID, when int64, key uint64, ext *jobExt, jump bool, target int64) error {
	st := s.late[key]
	s.curExt = ext
	st.n--
	f := s.fns[id]
	done, idx := false, 0
	var occAt temporal.Instant
	becomes := func(at int64) {
		s.q.Update(id, at, key&^tagMask|st.tag)
		delete(s.late, key)
	}
	switch ext.kind {
	case KindOnce:
		done = true
	case KindEvery:
		if st.tag == tagEveryCount {
			if ext.left--; ext.left == 0 {
				done = true
			}
		}
		if !done && st.n <= 0 {
			switch {
			case st.after < 0:
				done = true
			case jump && st.after <= target:
				if at, ok := gridFrom(st.after, f.interval, target, true, s.maxAt); ok {
					becomes(at)
				} else {
					done = true
				}
			default:
				becomes(st.after)
			}
		}
	case KindRecurrence:
		r := ext.rec
		r.fired++
		occAt, idx = r.nextAt, r.fired
		if r.limit != 0 && r.fired >= r.limit {
			done = true
			break
		}
		at, ok := nextOccurrence(r)
		if ok && s.sinceEpoch(at) < when && st.n > 0 && !jump {
			r.nextAt = at // another missed run
			break
		}
		if from := max(st.after, when); ok && s.sinceEpoch(at) < from || jump {
			if jump {
				from = target + 1
			}
			r.it.Seek(s.instant(from))
			at, ok = nextOccurrence(r)
		}
		if ok {
			r.nextAt = at
			becomes(s.sinceEpoch(at))
		} else {
			done = true
		}
	}
	if done {
		s.q.Remove(id)
		delete(s.late, key)
	}
	s.observe(key, ext, idx)
	var err error
	if ext.kind == KindRecurrence {
		err = ext.rec.fn(occAt, idx)
	} else {
		err = f.fn()
	}
	if err != nil {
		err = &JobError{Job: ext.job(key), Err: err}
	}
	if done || s.extDone {
		s.extDone = false
		if _, _, _, queued := s.q.Get(id); !queued && int(id) < len(s.fns) {
			s.fns[id] = jobFn{}
		}
		s.freeExt(ext)
	}
	return err
}

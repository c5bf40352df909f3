package sched

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// DefaultMaxCatchUpTicks is how many missed runs of one job the fire-all
// misfire policy fires at most; the rest are skipped.
const DefaultMaxCatchUpTicks = 1_000

// RestoreOptions say how Restore binds a snapshot's jobs and what it does
// with the runs missed while the scheduler was down.
type RestoreOptions struct {
	// Handlers binds each label to its callback: a Func (or func() error)
	// for once and every jobs, a RecurrenceFunc (or func(Occurrence)
	// error) for recurrences, a TimerFunc (or func(*Tick) error) or a
	// TimerHandler for keyed timers.
	Handlers map[string]any
	// Groups binds each group name of the snapshot to a group of this
	// scheduler.
	Groups map[string]*Group
	// Owners binds each owner id of the snapshot to an owner with a lease
	// of this scheduler (NewOwner); Restore sets its lease, deadline and
	// authority.
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
	// MaxCatchUpTicks bounds fire-all; 0 means DefaultMaxCatchUpTicks.
	MaxCatchUpTicks int
	// Skip leaves out the jobs Restore cannot take and returns them,
	// instead of refusing the whole snapshot.
	Skip bool
	// Job, when set, is asked first for each once job's callback: it
	// returns the callback and the Data the restored job carries
	// (WithData), or a nil callback to leave the job to Handlers.
	Job func(SnapshotJob) (Func, any)
	// Restored, when set, gets the handle of each once and every job
	// Restore put back, with its creation number (SnapshotJob.Seq); not
	// of one with a catch-up pending (misfire), whose handle would end
	// with the catch-up. Reset refuses these handles.
	Restored func(seq uint64, h Handle)
}

// TimerHandler binds a keyed timer's label to its handler, its OnCancel
// cleanup (for a timer saved with one) and the Data its ticks carry
// (TimerOptions.Data).
type TimerHandler struct {
	Fn       TimerFunc
	OnCancel func() error
	Data     any
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
// *SnapshotError naming each and change nothing; with opts.Skip the jobs
// are left out and returned. A malformed snapshot, a newer version or bad
// options are a *temporal.OptionError and change nothing.
func (s *Scheduler) Restore(snap Snapshot, opts RestoreOptions) ([]Refused, error) {
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
		maxCatchUp = DefaultMaxCatchUpTicks
	}
	p, err := parseSnapshot(name, &snap)
	if err != nil {
		return nil, err
	}
	if busy := s.pendingJobs(); len(busy) > 0 {
		return nil, &SnapshotError{Method: name, Jobs: busy}
	}
	// Where the snapshot's now is on this scheduler's timeline.
	base, ok := subNs(p.now.UnixNano(), s.epoch.UnixNano())
	if !ok || base > s.maxAt {
		return nil, &temporal.OptionError{Method: name, Param: "snap.Now", Want: "an instant this scheduler's int64-nanosecond timeline holds", Got: snap.Now}
	}
	now := max(s.now, base)

	var refused []*planJob
	keep := make([]*planJob, 0, len(p.jobs))
	for _, j := range p.jobs {
		if why := s.bind(j, &opts); why != "" {
			refused = append(refused, j)
			j.why = why
			continue
		}
		keep = append(keep, j)
	}
	if len(refused) > 0 && !opts.Skip {
		return nil, &SnapshotError{Method: name, Jobs: refusedJobs(refused)}
	}
	// Deadlines on this timeline; nothing changes before all fit.
	for _, j := range keep {
		if j.at, ok = addNs(base, j.due); !ok || j.at > s.maxAt {
			return nil, &temporal.OptionError{Method: name, Param: j.param("due"), Want: "a deadline within int64 nanoseconds", Got: j.src.Due}
		}
		if j.kind == KindTimer {
			if _, ok := addNs(base, j.cad.AnchorAt); !ok {
				return nil, &temporal.OptionError{Method: name, Param: j.param("anchor-at"), Want: "a deadline within int64 nanoseconds", Got: j.src.AnchorAt}
			}
			if j.src.Owner != "" {
				p.owners[j.src.Owner].used = true
			}
		}
		if j.src.After != "" {
			if j.after, ok = addNs(base, j.afterNs); !ok || j.after > s.maxAt {
				return nil, &temporal.OptionError{Method: name, Param: j.param("after"), Want: "a deadline within int64 nanoseconds", Got: j.src.After}
			}
		}
	}
	if len(keep) > s.maxPending {
		return nil, &CallError{Method: name, Err: fmt.Errorf("%w: the cap is %d", ErrTooManyPending, s.maxPending)}
	}

	s.now = now
	s.seq = max(s.seq, p.seq)
	for _, so := range p.owners {
		if o := opts.Owners[so.id]; o != nil && so.used {
			o.lease, o.authority = so.lease, so.authority
			o.deadline = math.MaxInt64
			if d, ok := addNs(base, so.deadline); ok {
				o.deadline = min(d, s.maxAt)
			} else if so.deadline < 0 {
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

// pendingJobs names the work pending here, which a restore would mix with
// the snapshot's.
func (s *Scheduler) pendingJobs() []Refused {
	var out []Refused
	for _, info := range s.List() {
		out = append(out, Refused{Job: Job{ID: info.ID, Kind: info.Kind, Label: info.Label, Name: info.Name},
			Reason: "pending in the scheduler restored into: restore into one with nothing pending"})
	}
	if s.keyed != nil {
		for t := s.keyed.live; t != nil; t = t.next {
			if !t.queued {
				out = append(out, Refused{Job: t.ext.job(t.key), Reason: "registered in the scheduler restored into: restore into one with nothing pending"})
			}
		}
	}
	return out
}

func refusedJobs(js []*planJob) []Refused {
	var out []Refused
	for _, j := range js {
		out = append(out, Refused{Job: Job{ID: j.id, Kind: j.kind, Label: j.src.Where, Name: j.src.Label}, Reason: j.why})
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

// plan is a checked snapshot: every field parsed, nothing bound yet.
type plan struct {
	now    temporal.Instant
	seq    uint64
	owners map[string]*planOwner
	jobs   []*planJob
}

type planOwner struct {
	id        string
	lease     int64
	deadline  int64 // after now
	authority uint64
	used      bool // a restored timer is its
}

type planJob struct {
	src  *SnapshotJob
	i    int
	kind Kind
	id   uint64 // as List shows it
	due  int64  // after the snapshot's now
	at   int64  // on the restoring timeline
	iv   int64

	set  *temporal.RecurrenceSet
	zone *temporal.Zone
	dis  temporal.Disambiguation
	next temporal.Instant // the pending occurrence

	cad     cadence.State // AnchorAt after the snapshot's now
	afterNs int64
	after   int64

	why   string // refused: why
	fn    Func
	rfn   RecurrenceFunc
	tfn   TimerFunc
	onCxl func() error
	data  any // TimerHandler.Data; RestoreOptions.Job's
	group *Group
	owner *Owner
}

func (j *planJob) param(field string) string { return fmt.Sprintf("snap.Jobs[%d].%s", j.i, field) }

// parseSnapshot checks snap as method reads it.
func parseSnapshot(method string, snap *Snapshot) (*plan, error) {
	bad := func(param, want string, got any, err error) error {
		return &temporal.OptionError{Method: method, Param: param, Want: want, Got: got, Err: err}
	}
	if snap.Version < 1 || snap.Version > SnapshotVersion {
		return nil, bad("version", fmt.Sprintf("a snapshot version from 1 to %d (a newer one needs a newer build)", SnapshotVersion), snap.Version, nil)
	}
	now, err := temporal.ParseInstant(snap.Now)
	if err != nil {
		return nil, bad("now", "", nil, err)
	}
	if snap.Seq > maxCreations {
		return nil, bad("seq", fmt.Sprintf("a creation number <= %d", uint64(maxCreations)), snap.Seq, nil)
	}
	p := &plan{now: now, seq: snap.Seq, owners: map[string]*planOwner{}}
	// dur parses the duration text of field of list[i]; the parameter's
	// name is built only for an error.
	dur := func(list string, i int, field, text string) (int64, error) {
		d, err := temporal.ParseDuration(text)
		if err != nil {
			return 0, bad(fmt.Sprintf("%s[%d].%s", list, i, field), "", nil, err)
		}
		return int64(d), nil
	}
	for i := range snap.Owners {
		so := &snap.Owners[i]
		param := fmt.Sprintf("owners[%d]", i)
		if so.ID == "" || p.owners[so.ID] != nil {
			return nil, bad(param+".id", "a non-empty id no other owner has", strconv.Quote(so.ID), nil)
		}
		o := &planOwner{id: so.ID, authority: so.Authority}
		if o.lease, err = dur("owners", i, "lease", so.Lease); err != nil {
			return nil, err
		}
		if o.lease <= 0 {
			return nil, bad(param+".lease", "a duration > 0", so.Lease, nil)
		}
		if o.deadline, err = dur("owners", i, "deadline", so.Deadline); err != nil {
			return nil, err
		}
		p.owners[so.ID] = o
	}
	seqs := newSeqSet(snap.Seq, len(snap.Jobs))
	keys := map[[3]string]bool{}
	jobs := snap.Jobs
	for i := range jobs {
		if missingPart(&jobs[i]) {
			jobs = slices.Clone(jobs) // the kind's part filled in, not in the caller's snapshot
			break
		}
	}
	plans := make([]planJob, len(jobs))
	p.jobs = make([]*planJob, 0, len(jobs))
	for i := range jobs {
		sj := &jobs[i]
		switch {
		case sj.Kind == "recurrence" && sj.SnapshotRecurrence == nil:
			sj.SnapshotRecurrence = &SnapshotRecurrence{}
		case sj.Kind == "timer" && sj.SnapshotTimer == nil:
			sj.SnapshotTimer = &SnapshotTimer{}
		}
		j := &plans[i]
		*j = planJob{src: sj, i: i, id: sj.Seq}
		param := func(f string) string { return fmt.Sprintf("jobs[%d].%s", i, f) }
		if sj.Seq == 0 || sj.Seq > snap.Seq || !seqs.add(sj.Seq) {
			return nil, bad(param("seq"), "a creation number from 1 to the snapshot's seq that no other job has", sj.Seq, nil)
		}
		if sj.ID != 0 {
			j.id = sj.ID
		}
		if sj.Label == "" {
			return nil, bad(param("label"), "a non-empty label", `""`, nil)
		}
		if sj.CatchUp < 0 {
			return nil, bad(param("catch-up"), "an integer >= 0", sj.CatchUp, nil)
		}
		if sj.Due != "" || sj.Kind != "timer" {
			if j.due, err = dur("jobs", i, "due", sj.Due); err != nil {
				return nil, err
			}
			if j.due < 0 && sj.Kind != "timer" && (sj.Kind != "recurrence" || sj.CatchUp == 0) {
				return nil, bad(param("due"), "a duration >= 0 (a pending deadline is not before now)", sj.Due, nil)
			}
		}
		if sj.After != "" {
			if j.afterNs, err = dur("jobs", i, "after", sj.After); err != nil {
				return nil, err
			}
		}
		switch sj.Kind {
		case "once":
			j.kind = KindOnce
		case "every":
			j.kind = KindEvery
			if j.iv, err = dur("jobs", i, "interval", sj.Interval); err != nil {
				return nil, err
			}
			if j.iv <= 0 {
				return nil, bad(param("interval"), "a duration > 0", sj.Interval, nil)
			}
			if sj.Left < 0 {
				return nil, bad(param("left"), "an integer >= 0", sj.Left, nil)
			}
		case "recurrence":
			j.kind = KindRecurrence
			if err := j.parseRecurrence(now, param, bad); err != nil {
				return nil, err
			}
		case "timer":
			j.kind = KindTimer
			if err := j.parseTimer(param, bad, func(f, text string) (int64, error) { return dur("jobs", i, f, text) }); err != nil {
				return nil, err
			}
			if sj.Owner != "" {
				o := p.owners[sj.Owner]
				if o == nil {
					return nil, bad(param("owner"), "the id of an owner in owners", strconv.Quote(sj.Owner), nil)
				}
			}
			k := [3]string{sj.Owner, sj.Group, sj.Key}
			if keys[k] {
				return nil, bad(param("key"), "a key no other timer of its owner has", strconv.Quote(sj.Key), nil)
			}
			keys[k] = true
		default:
			return nil, bad(param("kind"), `"once", "every", "recurrence" or "timer"`, strconv.Quote(sj.Kind), nil)
		}
		p.jobs = append(p.jobs, j)
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
func missingPart(sj *SnapshotJob) bool {
	return sj.Kind == "recurrence" && sj.SnapshotRecurrence == nil || sj.Kind == "timer" && sj.SnapshotTimer == nil
}

func (j *planJob) parseRecurrence(now temporal.Instant, param func(string) string, bad func(string, string, any, error) error) error {
	sj := j.src
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
	if j.set, err = temporal.NewRecurrenceSet(spec); err != nil {
		return bad(param("rrule"), "", nil, err)
	}
	if j.zone, err = temporal.LoadZone(sj.Zone); err != nil {
		return bad(param("zone"), "", nil, err)
	}
	if j.dis, err = temporal.ParseDisambiguation(sj.Disambiguation); err != nil {
		return bad(param("disambiguation"), "", nil, err)
	}
	if sj.Index < 1 {
		return bad(param("index"), "an occurrence index >= 1", sj.Index, nil)
	}
	if sj.LimitLeft < 0 || sj.LimitLeft > math.MaxInt-sj.Index {
		return bad(param("limit-left"), "an integer >= 0", sj.LimitLeft, nil)
	}
	at, ok := now.Add(temporal.Duration(j.due))
	if ok != nil {
		return bad(param("due"), "a deadline an instant holds", sj.Due, nil)
	}
	// The pending occurrence must be one of the set's.
	it := j.set.Iterator(j.zone, j.dis)
	it.Seek(at)
	for tries := 0; tries < maxRejections; tries++ {
		got, ok, err := it.Next()
		if err != nil && ok {
			continue
		}
		if !ok || got != at {
			return bad(param("due"), "the instant of one of the set's occurrences", at, nil)
		}
		j.next = got
		return nil
	}
	return bad(param("due"), "the instant of one of the set's occurrences", at, nil)
}

func (j *planJob) parseTimer(param func(string) string, bad func(string, string, any, error) error, dur func(string, string) (int64, error)) error {
	sj := j.src
	var err error
	if sj.Key == "" {
		return bad(param("key"), "a non-empty key", `""`, nil)
	}
	if sj.Generation < 1 {
		return bad(param("generation"), "an integer >= 1", sj.Generation, nil)
	}
	if j.iv, err = dur("interval", sj.Interval); err != nil {
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
	j.cad = cadence.State{Interval: j.iv, AnchorIndex: sj.AnchorIndex, AnchorAt: anchor, Next: sj.NextIndex,
		LastScheduled: sj.ScheduledIndex, Delivered: sj.DeliveryIndex, Overrun: cadence.Overrun{Policy: pol, MaxCatchUpTicks: sj.MaxCatchUpTicks}}
	if _, err := cadence.FromState(j.cad); err != nil {
		return bad(param("interval"), "", nil, fmt.Errorf("not a timer's cadence: %w", err))
	}
	return nil
}

// bind finds j's callback, group and owner in opts, or says why not.
func (s *Scheduler) bind(j *planJob, opts *RestoreOptions) string {
	sj := j.src
	if sj.Group != "" {
		if j.group = opts.Groups[sj.Group]; j.group == nil || j.group.s != s {
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
	want := ""
	switch j.kind {
	case KindOnce, KindEvery:
		switch f := h.(type) {
		case Func:
			j.fn = f
		case func() error:
			j.fn = f
		default:
			want = "a Func"
		}
	case KindRecurrence:
		switch f := h.(type) {
		case RecurrenceFunc:
			j.rfn = f
		case func(Occurrence) error:
			j.rfn = f
		default:
			want = "a RecurrenceFunc"
		}
	case KindTimer:
		switch f := h.(type) {
		case TimerFunc:
			j.tfn = f
		case func(*Tick) error:
			j.tfn = f
		case TimerHandler:
			j.tfn, j.onCxl, j.data = f.Fn, f.OnCancel, f.Data
		default:
			want = "a TimerFunc or a TimerHandler"
		}
		if want == "" && j.tfn == nil {
			want = "a TimerHandler with Fn"
		}
		if want == "" && sj.OnCancel && j.onCxl == nil {
			return fmt.Sprintf("its on-cancel cleanup has no handler: bind %q to a TimerHandler with OnCancel", sj.Label)
		}
		if sj.Owner != "" {
			o := opts.Owners[sj.Owner]
			if o == nil || o.s != s || o.adm != nil || o.lease == 0 {
				return fmt.Sprintf("its owner %q is not in opts.Owners (an owner with a lease of this scheduler)", sj.Owner)
			}
			j.owner = o
		} else if j.group != nil {
			j.owner = j.group.Owner()
		} else {
			j.owner = s.Owner()
		}
		if j.owner.slots[sj.Key] != nil && j.owner.slots[sj.Key].last != nil {
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
	sj := j.src
	e := s.newExt(nil)
	e.group, e.label, e.name, e.kind, e.data = j.group, sj.Where, sj.Label, j.kind, j.data
	if j.id != sj.Seq {
		e.id = j.id
	}
	f := jobFn{fn: j.fn, interval: j.iv}
	tag := uint64(tagOnceExt)
	switch j.kind {
	case KindEvery:
		tag = tagEvery
		if sj.Left > 0 {
			tag, e.left = tagEveryCount, sj.Left
		}
	case KindRecurrence:
		tag = tagRecurrence
		it := j.set.Iterator(j.zone, j.dis)
		it.Seek(j.next)
		for {
			if _, ok, err := it.Next(); err == nil || !ok {
				break // the pending occurrence: parseRecurrence found it
			}
		}
		limit := 0
		if sj.LimitLeft > 0 {
			limit = sj.Index - 1 + sj.LimitLeft
		}
		e.rec = &recurrence{spec: Recurrence{Set: j.set, Zone: sj.Zone, Disambiguation: j.dis, Limit: limit},
			fn: j.rfn, it: it, limit: limit, fired: sj.Index - 1, nextAt: j.next}
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
				st.after, _ = gridFrom(st.after, j.iv, s.now, false, s.maxAt)
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
				if at, ok = gridFrom(at, j.iv, s.now, false, s.maxAt); !ok {
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
		missed := (now-j.at-1)/j.iv + 1 // runs before now
		switch misfire {
		case misfireSkip:
			return nil
		case misfireOnce:
			next, ok := gridFrom(j.at, j.iv, now, true, s.maxAt)
			if !ok {
				next = -1
			}
			return &late{n: 1, tag: tag, after: next}
		}
		n := int(min(missed, int64(maxCatchUp)))
		if e.left > 0 {
			n = min(n, e.left)
		}
		next, ok := gridFrom(j.at, j.iv, now, false, s.maxAt)
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
	sj := j.src
	o := j.owner
	c := j.cad
	c.AnchorAt += j.at - j.due // on this timeline
	cad, _ := cadence.FromState(c)
	sl := o.slots[sj.Key]
	var t *Timer
	if sl == nil {
		ts := &slotTimer{}
		sl, t = &ts.slot, &ts.Timer
		o.slots[sj.Key] = sl
	} else {
		t = &Timer{}
	}
	sl.gen = sj.Generation
	*t = Timer{s: s, owner: o, slot: sl, delayed: c.Overrun.Policy == cadence.DelayNextTick, key: sj.Seq<<tagBits | tagTimer,
		fn: j.tfn, onCancel: j.onCxl, data: j.data, cad: cad}
	t.ext = jobExt{group: o.group, label: sj.Where, name: sj.Label, data: j.data}
	if sj.Label == sj.Key {
		t.ext.name = ""
	}
	t.tick = Tick{Key: sj.Key, Generation: sj.Generation, timer: t}
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
	var occ Occurrence
	var nextErr error
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
		occ, idx = Occurrence{ScheduledAt: r.nextAt, Index: r.fired}, r.fired
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
		err = ext.rec.fn(occ)
	} else {
		err = f.fn()
	}
	if err == nil {
		err = nextErr
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

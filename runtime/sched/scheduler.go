package sched

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/runtime/wheel"
	"github.com/metronome-rt/metronome/temporal"
)

// defaultLoopLimit is how many jobs callbacks may schedule for the instant
// being drained, within one call, before the call fails with a *LoopError
// (see SetLimits).
const defaultLoopLimit = 10_000

// defaultMaxPending is how many jobs a scheduler holds pending before a
// scheduling method fails with ErrTooManyPending (see SetLimits).
const defaultMaxPending = 1_000_000

// Scheduler runs once, every and recurrence jobs on its own virtual time.
// The zero value is not usable; call New.
type Scheduler struct {
	epoch temporal.Instant
	now   int64 // ns after epoch
	maxAt int64 // the last deadline whose instant fits int64 ns: now <= maxAt
	q     queue
	seq   uint64 // last creation number handed out

	running bool   // inside a call that moves time
	dropped bool   // Drop was called
	inJob   bool   // a callback is running
	curKey  uint64 // its job's queue key and extension, for the loop guard
	curExt  *jobExt
	extDone bool // curExt left the queue: release it after the callback

	exts    []jobExt  // the unused rest of the current chunk (see newExt)
	extFree []*jobExt // released extensions, reused first
	fns     []jobFn   // by queue ID: the callback of each job with an extension

	loopLimit int
	call      uint64 // counts time-moving calls, to scope the loop guard
	rearmCall uint64
	rearmAt   int64
	rearms    int
	loopErr   error
	fireLimit int    // RunAll, RunToLast: fires allowed in this call; 0 means no limit
	limitBy   string // the method fireLimit is for
	fires     int
	report    func(*JobError) error // Advance's report: where job errors go

	maxPending int // see SetLimits

	observer func(Fire)

	keyed *keyedState // keyed timers (keyed.go); nil until the first

	late map[uint64]*late // restored jobs' catch-ups by queue key (restore.go)
}

// Fire describes one callback about to run, or, with Event set, pending
// work that stopped; see SetObserver.
type Fire struct {
	Event          Event // EventFire unless the job was cancelled or dropped
	At             temporal.Instant
	ID             uint64
	Kind           Kind
	Label          string // where the job was scheduled (WithLabel)
	Name           string // its user's name (WithName, a script's label option)
	ScheduledIndex int    // recurrence: the occurrence index; 0 otherwise

	// A keyed timer's tick: its key, generation and tick information.
	Key                         string
	Generation                  uint64
	DeliveryIndex, SkippedTicks int64
}

// New returns a scheduler whose epoch, and Now, is clock.Now().
// New panics if clock is nil.
func New(clock temporal.Clock) *Scheduler {
	if clock == nil {
		panic("sched.New: nil clock")
	}
	epoch := clock.Now()
	s := &Scheduler{epoch: epoch, maxAt: math.MaxInt64 - max(epoch.UnixNano(), 0), loopLimit: defaultLoopLimit, maxPending: defaultMaxPending}
	if newOnWheel {
		s.q.w, _ = newWheel(wheel.Default())
	}
	return s
}

// Now returns the scheduler's current instant: the epoch plus the time
// advanced so far, or, while a callback runs, that job's deadline.
func (s *Scheduler) Now() temporal.Instant {
	return temporal.FromUnixNano(s.epoch.UnixNano() + s.now)
}

// Elapsed returns Now() minus the epoch.
func (s *Scheduler) Elapsed() temporal.Duration { return temporal.Duration(s.now) }

// Count returns the number of active jobs, or of those in groups when
// given.
func (s *Scheduler) Count(groups ...*Group) int {
	if len(groups) == 0 {
		return s.q.Len()
	}
	n := 0
	s.q.Each(func(_ timerq.ID, _ int64, key uint64, p ref) bool {
		if inGroups(extOf(key, p), groups) {
			n++
		}
		return true
	})
	return n
}

// Dropped reports whether Drop was called.
func (s *Scheduler) Dropped() bool { return s.dropped }

// Running reports whether a call that moves time is in progress, i.e.
// whether the caller is inside one of this scheduler's callbacks.
func (s *Scheduler) Running() bool { return s.running }

// SetObserver installs fn to be called just before each callback runs and
// when pending work is cancelled or dropped (see Event), or removes it when
// fn is nil, and returns the observer it replaces, so that a second
// observer (a script's trace beside the command line's) can chain to it.
// Tracing costs nothing while it is nil.
func (s *Scheduler) SetObserver(fn func(Fire)) (prev func(Fire)) {
	prev, s.observer = s.observer, fn
	return prev
}

// SetLimits sets the scheduler's two limits; 0 leaves one as it is, and
// either must be >= 0. loopLimit is how many jobs callbacks may schedule
// for the instant being drained within one call (default 10,000): past
// it the call fails with a *LoopError. maxPending is how many jobs may be
// pending at once (default 1,000,000): a scheduling method that would
// exceed it fails with a *CallError wrapping ErrTooManyPending and
// changes nothing. The cap counts every job on the timeline, whatever its
// group; an interval or recurrence that re-arms, or a job that is pending
// at the call, is never refused, so setting a cap below Count() only
// refuses new jobs until enough have fired or been cancelled. A refused
// call changes neither limit.
func (s *Scheduler) SetLimits(loopLimit, maxPending int) error {
	const name = "SetLimits"
	if s.dropped {
		return droppedError(name)
	}
	const want = "an integer >= 1, or 0 to keep it"
	if loopLimit < 0 {
		return &temporal.OptionError{Method: name, Param: "loopLimit", Want: want, Got: loopLimit}
	}
	if maxPending < 0 {
		return &temporal.OptionError{Method: name, Param: "maxPending", Want: want, Got: maxPending}
	}
	if loopLimit > 0 {
		s.loopLimit = loopLimit
	}
	if maxPending > 0 {
		s.maxPending = maxPending
	}
	return nil
}

// NextDeadline returns the earliest pending deadline; ok is false when
// nothing is pending.
func (s *Scheduler) NextDeadline() (at temporal.Instant, ok bool) {
	_, when, _, _, ok := s.q.Peek()
	if !ok {
		return temporal.Instant{}, false
	}
	return temporal.FromUnixNano(s.epoch.UnixNano() + when), true
}

// ScheduleOnce runs fn once, delay after Now(). A zero delay is due at
// Now(): the next call that moves time runs it, even Advance(0).
func (s *Scheduler) ScheduleOnce(delay temporal.Duration, fn func() error, opts ...JobOption) (Handle, error) {
	// The usual call passes every check at once: no option, a callback, a
	// delay in range, no loop-guard count (a zero delay inside a drain
	// counts), creation numbers left, room under the cap, the heap (the
	// wheel takes the spelled-out path). It queues without further calls.
	if len(opts) == 0 && fn != nil && !s.dropped && uint64(delay) <= uint64(s.maxAt-s.now) &&
		(delay != 0 || !s.running) && s.seq < maxCreations && s.q.w == nil && s.q.h.Len() < s.maxPending {
		s.seq++
		key := s.seq << tagBits // tagOnce is 0
		return Handle{s: s, key: key, qid: s.q.h.Push(s.now+int64(delay), key, funcRef(fn)), re: funcRef(fn)}, nil
	}
	return s.scheduleOnce("ScheduleOnce", "delay", delay, fn, opts)
}

// scheduleOnce is ScheduleOnce with every check spelled out, each with its
// error.
//
//go:noinline
func (s *Scheduler) scheduleOnce(name, param string, delay temporal.Duration, fn func() error, opts []JobOption) (Handle, error) {
	if err := s.check(name); err != nil {
		return Handle{}, err
	}
	if delay < 0 {
		return Handle{}, &temporal.OptionError{Method: name, Param: param, Want: "a duration >= 0", Got: delay}
	}
	if fn == nil {
		return Handle{}, nilFunc(name)
	}
	at, err := s.deadline(name, param, delay)
	if err != nil {
		return Handle{}, err
	}
	if len(opts) == 0 {
		h, err := s.push(name, at, tagOnce, funcRef(fn))
		h.re = funcRef(fn)
		return h, err
	}
	e := s.newExt(opts)
	h, err := s.pushExt(name, at, tagOnceExt, e, jobFn{fn: fn})
	if err == nil && e.rearm {
		h.re = ref(newRearm(h.ID(), e, jobFn{fn: fn}, 0))
	}
	return h, err
}

// Every says when an interval job fires.
type Every struct {
	Interval temporal.Duration // > 0
	// Delay is the first due time after Now(), which anchors the grid: the
	// job fires at Now()+Delay, then every Interval. nil means Interval;
	// 0 is due now.
	Delay *temporal.Duration
	// Count is how many times the job fires in all, catch-up included (a
	// Jump's single fire counts once); then it is inactive. 0: no end.
	Count int
}

// ScheduleEvery runs fn as e says: first at Now()+e.Delay (by default
// Now()+e.Interval), then every e.Interval, at most e.Count times. Within
// one call that moves time it fires once for each period that call
// passes.
func (s *Scheduler) ScheduleEvery(e Every, fn func() error, opts ...JobOption) (Handle, error) {
	const name = "ScheduleEvery"
	if err := s.check(name); err != nil {
		return Handle{}, err
	}
	if e.Interval <= 0 {
		return Handle{}, &temporal.OptionError{Method: name, Param: "e.Interval", Want: "a duration > 0", Got: e.Interval}
	}
	delay, dParam := e.Interval, "e.Interval"
	if e.Delay != nil {
		delay, dParam = *e.Delay, "e.Delay"
	}
	if delay < 0 {
		return Handle{}, &temporal.OptionError{Method: name, Param: dParam, Want: "a duration >= 0", Got: delay}
	}
	if e.Count < 0 {
		return Handle{}, &temporal.OptionError{Method: name, Param: "e.Count", Want: "an integer >= 0", Got: e.Count}
	}
	if fn == nil {
		return Handle{}, nilFunc(name)
	}
	at, err := s.deadline(name, dParam, delay)
	if err != nil {
		return Handle{}, err
	}
	tag := uint64(tagEvery)
	ext := s.newExt(opts)
	if e.Count > 0 {
		tag, ext.left = tagEveryCount, e.Count
	}
	f := jobFn{fn, int64(e.Interval)}
	h, err := s.pushExt(name, at, tag, ext, f)
	if err == nil && ext.rearm {
		h.re = ref(newRearm(h.ID(), ext, f, e.Count))
	}
	return h, err
}

// Recurrence says which occurrences a recurrence job fires.
type Recurrence struct {
	Set            *temporal.RecurrenceSet
	Zone           string                  // IANA id; required
	Disambiguation temporal.Disambiguation // default Reject
	Limit          int                     // fires at most this many; 0: no cap
}

// ScheduleRecurrence fires fn at each occurrence of r not before Now(),
// expanded lazily: one occurrence is pending at a time. fn receives the
// occurrence's instant and its index, from 1 within the handle.
// Occurrences before Now() are neither fired nor counted.
//
// Under Reject, a local time in a gap or an overlap of the zone is an error
// here when an occurrence the job can fire has it: the first one not before
// Now(), or one within ten years of that first one and the
// first r.Limit, or any of a bounded set's. The horizon is measured from
// the first occurrence, not from Now(), so a set that starts years after
// Now() is checked as far as one that starts at once. They are found from the zone's transitions, not by
// expanding every occurrence. Past that horizon computing the next
// occurrence is part of firing one, so the error comes out of the call that
// fires the occurrence before it, and the job goes on with the next valid
// occurrence.
func (s *Scheduler) ScheduleRecurrence(r Recurrence, fn func(at temporal.Instant, index int) error, opts ...JobOption) (Handle, error) {
	const name = "ScheduleRecurrence"
	if err := s.check(name); err != nil {
		return Handle{}, err
	}
	if r.Set == nil {
		return Handle{}, &temporal.OptionError{Method: name, Param: "r.Set", Want: "a recurrence set", Got: "nil"}
	}
	if fn == nil {
		return Handle{}, nilFunc(name)
	}
	if r.Limit < 0 {
		return Handle{}, &temporal.OptionError{Method: name, Param: "r.Limit", Want: "an integer >= 0", Got: r.Limit}
	}
	zone, err := temporal.LoadZone(r.Zone)
	if err != nil {
		return Handle{}, &temporal.OptionError{Method: name, Param: "r.Zone", Want: "an IANA zone id", Got: r.Zone, Err: err}
	}
	it := r.Set.Iterator(zone, r.Disambiguation)
	it.Seek(s.Now())
	at, ok, err := it.Next()
	if err != nil {
		return Handle{}, &CallError{Method: name, Err: err}
	}
	if !ok {
		// Nothing left to fire: an inactive handle, like a fired one-shot.
		if err := s.nextSeq(name); err != nil {
			return Handle{}, err
		}
		return Handle{key: s.seq<<tagBits | tagRecurrence}, nil
	}
	d, err := at.Sub(s.epoch)
	if err != nil {
		return Handle{}, &CallError{Method: name, Err: err}
	}
	if err := lookAhead(r, zone, s.Now(), at); err != nil {
		return Handle{}, &CallError{Method: name, Err: err}
	}
	e := s.newExt(opts)
	e.rec = &recurrence{spec: r, fn: fn, it: it, limit: r.Limit, nextAt: at}
	return s.pushExt(name, int64(d), tagRecurrence, e, jobFn{})
}

// lookAheadSpan is how far ahead ScheduleRecurrence checks an unbounded
// set's local times against the zone's gaps and overlaps.
const lookAheadSpan = 10 * 365 * 24 * temporal.Hour

// lookAhead reports the first occurrence of r from now that Reject refuses
// within the horizon ScheduleRecurrence documents, lookAheadSpan past
// first, the first occurrence.
func lookAhead(r Recurrence, zone *temporal.Zone, now, first temporal.Instant) error {
	if r.Disambiguation != temporal.Reject {
		return nil
	}
	until := temporal.FromUnixNano(math.MaxInt64)
	if !r.Set.Bounded() {
		if u, err := first.Add(lookAheadSpan); err == nil {
			until = u
		}
	}
	if err := r.Set.FirstRejected(zone, now, until, r.Limit); err != nil {
		return fmt.Errorf("a coming occurrence: %w", err)
	}
	return nil
}

// extChunk is how many extensions newExt allocates at once.
const extChunk = 64

// newExt returns the extension of a job with options or state beyond its
// callback. Extensions come from chunks and are reused once their job
// leaves the queue, so the ones an interval's fire reads sit together in
// memory, not scattered between the allocations of the code that scheduled
// them: with 10,000 intervals pending a fire takes about 10% less. A chunk
// stays alive while one of its extensions is queued.
func (s *Scheduler) newExt(opts []JobOption) *jobExt {
	var e *jobExt
	if n := len(s.extFree); n > 0 {
		e = s.extFree[n-1]
		s.extFree = s.extFree[:n-1]
	} else {
		if len(s.exts) == 0 {
			s.exts = make([]jobExt, extChunk)
		}
		e = &s.exts[0]
		s.exts = s.exts[1:]
	}
	for _, o := range opts {
		o(e)
	}
	return e
}

// releaseExt takes back the extension and callback of the job with queue
// ID id, which left the queue. The firing job's are released by fire after
// its callback, which may still read its extension (its label names the job
// in errors).
func (s *Scheduler) releaseExt(id timerq.ID, e *jobExt) {
	if s.inJob && e == s.curExt {
		s.extDone = true
		return
	}
	s.fns[id] = jobFn{}
	s.freeExt(e)
}

// freeExt clears e, so that it holds nothing alive, and makes it reusable.
func (s *Scheduler) freeExt(e *jobExt) {
	*e = jobExt{}
	s.extFree = append(s.extFree, e)
}

// released releases what the job with key, ref p and queue ID id holds
// beyond its slot.
func (s *Scheduler) released(id timerq.ID, key uint64, p ref) {
	if tag := key & tagMask; tag == tagTimer || tag == tagSpawn {
		return // a Timer or Task tracks its own entry
	}
	if key&tagMask != tagOnce {
		s.releaseExt(id, refExt(p))
	}
	if key&tagMask == tagLate {
		delete(s.late, key)
	}
}

// pushExt is push for a job with an extension; it records the job's
// callback by queue ID, and takes the extension back if the job is refused.
func (s *Scheduler) pushExt(name string, at int64, tag uint64, e *jobExt, f jobFn) (Handle, error) {
	h, err := s.push(name, at, tag, ref(e))
	if err != nil {
		s.freeExt(e)
		return h, err
	}
	if n := int(h.qid) + 1; n > len(s.fns) {
		s.fns = append(s.fns, make([]jobFn, n-len(s.fns))...)
	}
	s.fns[h.qid] = f
	return h, nil
}

func (s *Scheduler) check(name string) error {
	if s.dropped {
		return droppedError(name)
	}
	return nil
}

func droppedError(name string) error { return &CallError{Method: name, Err: ErrDropped} }

func nilFunc(name string) error {
	return &temporal.OptionError{Method: name, Param: "fn", Want: "a function", Got: "nil"}
}

// deadline returns Now()+d in ns after the epoch, refusing a deadline whose
// instant would leave the int64-nanosecond range.
func (s *Scheduler) deadline(name, key string, d temporal.Duration) (int64, error) {
	if int64(d) > s.maxAt-s.now {
		return 0, &temporal.OptionError{Method: name, Param: key, Want: "a duration that keeps the deadline within int64 nanoseconds", Got: d}
	}
	return s.now + int64(d), nil
}

// push queues a job with tag and ref at deadline at.
func (s *Scheduler) push(name string, at int64, tag uint64, p ref) (Handle, error) {
	if s.q.Len() >= s.maxPending {
		return Handle{}, &CallError{Method: name, Err: fmt.Errorf("%w: the cap is %d", ErrTooManyPending, s.maxPending)}
	}
	if s.seq == maxCreations {
		return Handle{}, exhausted(name)
	}
	if s.running && at == s.now {
		if err := s.countRearm(); err != nil {
			return Handle{}, err
		}
	}
	s.seq++
	key := s.seq<<tagBits | tag
	return Handle{s: s, key: key, qid: s.q.Push(at, key, p)}, nil
}

// nextSeq hands out a creation number for a job that is not queued.
func (s *Scheduler) nextSeq(name string) error {
	if s.seq == maxCreations {
		return exhausted(name)
	}
	s.seq++
	return nil
}

func exhausted(name string) error {
	return &CallError{Method: name, Err: fmt.Errorf("the scheduler has handed out all %d creation numbers", uint64(maxCreations))}
}

// countRearm implements the loop guard for work scheduled at the instant
// being drained.
func (s *Scheduler) countRearm() error {
	if s.rearmCall != s.call || s.rearmAt != s.now {
		s.rearmCall, s.rearmAt, s.rearms = s.call, s.now, 0
	}
	s.rearms++
	if s.rearms > s.loopLimit {
		var by *JobInfo
		if s.inJob {
			j := s.curExt.job(s.curKey)
			by = &j
		}
		s.loopErr = &LoopError{Limit: s.loopLimit, By: by, AtNs: s.now}
		return s.loopErr
	}
	return nil
}

// Clear deactivates all pending work, or that of groups when given; the
// scheduler stays usable. Called from a callback, it stops the jobs it
// clears that are due at the same deadline from running later in that
// drain.
func (s *Scheduler) Clear(groups ...*Group) error {
	if err := s.check("Clear"); err != nil {
		return err
	}
	if len(groups) > 0 {
		s.clearGroups(groups)
		return nil
	}
	s.clear(EventCancel)
	return nil
}

func (s *Scheduler) clear(ev Event) {
	if s.observer != nil {
		s.observeClear(ev, nil)
	}
	running := s.cancelTimers(nil, ev)
	s.q.Clear()
	defer s.requeueRunning(running)
	// The extensions are left to the GC with the chunks, rather than
	// released one by one.
	s.exts, s.extFree, s.fns, s.late = nil, nil, nil, nil
}

// Drop deactivates all pending work and makes every later call but Drop
// return ErrDropped. It is idempotent. Called from a callback, it ends the
// drain after that callback.
func (s *Scheduler) Drop() {
	s.dropped = true
	s.clear(EventDrop)
}

// JobInfo describes a job: as List reports a pending one, and, with its
// ID, Kind, Label and Name, as errors name it.
type JobInfo struct {
	ID              uint64
	Kind            Kind
	Label           string // where it was scheduled (WithLabel)
	Name            string // its user's name (WithName)
	Group           string // the group's name; "" for a job in no group
	DueAt           temporal.Instant
	DueIn           temporal.Duration
	Interval        temporal.Duration // every only
	OccurrenceIndex int               // recurrence only: the index the pending occurrence will get
	Key             string            // timer only: its key
	Generation      uint64            // timer only: its generation
	Data            any               // what WithData attached; nil otherwise
}

// String returns "every #3 'regen' scheduled at game.lua:14": the name and
// the position each only when known ("once #3" has neither).
func (j JobInfo) String() string {
	s := fmt.Sprintf("%s #%d", j.Kind, j.ID)
	if j.Name != "" {
		s += " '" + j.Name + "'"
	}
	if j.Label != "" {
		s += " scheduled at " + j.Label
	}
	return s
}

// List returns the active jobs, or those of groups when given, in due
// order (deadline, then creation).
func (s *Scheduler) List(groups ...*Group) []JobInfo {
	out := make([]JobInfo, 0, s.q.Len())
	s.q.Each(func(id timerq.ID, when int64, key uint64, p ref) bool {
		ext := extOf(key, p)
		if !inGroups(ext, groups) {
			return true
		}
		j := ext.job(key)
		info := JobInfo{
			ID: j.ID, Kind: j.Kind, Label: j.Label, Name: j.Name,
			DueAt: temporal.FromUnixNano(s.epoch.UnixNano() + when),
			DueIn: temporal.Duration(when - s.now),
		}
		switch key & tagMask {
		case tagTimer:
			timerInfo(&info, (*timer)(p))
		case tagSpawn:
			if ext.group != nil {
				info.Group = ext.group.Name
			}
			info.Data = ext.data
		case tagOnce:
		default:
			if ext.group != nil {
				info.Group = ext.group.Name
			}
			info.Interval = temporal.Duration(s.fns[id].interval)
			info.Data = ext.data
			if r := ext.rec; r != nil {
				info.OccurrenceIndex = r.fired + 1
			}
		}
		out = append(out, info)
		return true
	})
	slices.SortFunc(out, func(a, b JobInfo) int {
		if c := a.DueAt.Compare(b.DueAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// extOf returns the extension of the job with queue key and ref p, or nil
// for a plain one-shot.
func extOf(key uint64, p ref) *jobExt {
	if key&tagMask == tagOnce {
		return nil
	}
	return refExt(p)
}

package sched

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// Step is what a spawned task's step and a keyed timer's handler receive:
// where they run, the way to keep running across virtual time (Wait), and
// for a keyed timer its tick. The scheduler reuses it for the next step or
// tick: keep the fields, not the pointer.
type Step struct {
	cadence.Tick        // a keyed timer's tick information; zero in a task
	Fence        uint64 // the owner's fence when the tick started
	timer        *timer // the keyed timer's generation, or nil in a task

	Key        string // a keyed timer's key
	Generation uint64 // a keyed timer's generation
	// Waited is how long the last Wait took: its d, or more after a Jump.
	Waited    temporal.Duration
	Data      any        // what WithData attached to the task or timer
	Scheduler *Scheduler // the scheduler that runs the step

	task   *task // the spawned task, or nil for a keyed timer
	waitNs int64 // Wait's d
}

var errNotRunning = errorString("the step is not running: Wait is allowed only inside its own step or handler")

// Wait ends the current step and makes then the next one, run d of virtual
// time from Now() (at the jump's instant when a Jump passes it). A keyed
// timer's key stays busy meanwhile: ticks coming due are late, and the
// overrun policy decides what is delivered when the handler ends. A task's
// wait at zero inside a drain counts toward the loop limit, as a
// zero-delay job does. It returns a *temporal.OptionError for d < 0 and a
// *CallError outside the step's own call.
func (st *Step) Wait(d temporal.Duration, then func(*Step) error) error {
	const name = "Step.Wait"
	var s *Scheduler
	switch {
	case st.task != nil && st.task.live:
		s = st.task.s
	case st.timer != nil && st.timer.live && st.timer.s.inJob && st.timer.s.curExt == &st.timer.ext:
		s = st.timer.s
	default:
		return &CallError{Method: name, Err: errNotRunning}
	}
	if d < 0 {
		return &temporal.OptionError{Method: name, Param: "d", Want: "a duration >= 0", Got: d}
	}
	if then == nil {
		return nilFunc(name)
	}
	if int64(d) > s.maxAt-s.now {
		return &temporal.OptionError{Method: name, Param: "d", Want: "a duration that keeps the deadline within int64 nanoseconds", Got: d}
	}
	st.waitNs = int64(d)
	if st.task != nil {
		st.task.then = then
	} else {
		st.timer.then, st.timer.hasThen = then, true
	}
	return nil
}

// TimerOptions are a keyed timer's settings; its label, name, data and
// group are RegisterTimer's JobOptions.
type TimerOptions struct {
	Interval temporal.Duration // > 0
	// Delay is the first tick's due time after Now(); nil means Interval.
	Delay   *temporal.Duration
	Overrun cadence.Overrun
	// OnCancel, if set, runs once the generation has ended: cancelled,
	// superseded or dropped, and its running handler returned.
	OnCancel func()
	// Owner scopes the key and may hold a lease (NewOwner). nil: the
	// standing owner of the timer's group (InGroup; the scheduler's own
	// without one), which never expires.
	Owner *Owner
}

// Owner holds keyed timers: keys are scoped to it, and under a lease no
// tick of its timers is queued or started past its deadline.
type Owner struct {
	s         *Scheduler
	id        string // OwnerOptions.ID
	lease     int64  // 0: no lease
	deadline  int64  // ns after the epoch; math.MaxInt64 without a lease
	authority uint64
	auth      cadence.Authority // nil: the lease above decides
	slots     map[string]*slot
}

// OwnerOptions say how an owner's timers are admitted: by a lease in
// virtual time, or by an authority outside it.
type OwnerOptions struct {
	// ID names the owner in a Snapshot, which Restore binds again by it
	// (RestoreOptions.Owners).
	ID string
	// Lease: the owner's timers tick until Now()+Lease, moved by Renew.
	Lease temporal.Duration
	// Authority admits the owner's ticks instead of a lease (a lease held
	// in etcd: cluster/etcdlease). It is asked, at that instant, before
	// each tick is queued and before it starts, and admits a tick by
	// cadence.Lease.Admits, its Deadline read as a Unix-nanosecond instant
	// of the scheduler's time; Step.Fence carries the fence it answered. A
	// lease whose deadline runs on another clock reports math.MaxInt64
	// while it admits, and held false once its own deadline passed.
	Authority cadence.Authority
}

// slot is one key of an owner: its generations.
type slot struct {
	gen  uint64
	cur  *timer // the current generation; nil once cancelled
	last *timer // the latest generation, cancelled or not
}

// slotTimer is a key's first generation and its slot, allocated together
// (RegisterTimer). A later generation is allocated alone; the first one's
// memory stays with the slot.
type slotTimer struct {
	timer
	slot
	_ [448 - timerSize - unsafe.Sizeof(slot{})]byte // see timerSize
}

// timerSize is timer's size, a multiple of 64 as slotTimer's is (448): a
// size class whose objects start on a cache line, so that what a tick
// reads (ext's 88 bytes, then the hot fields) takes three lines, not four.
const timerSize = 384

// timer is one generation of a keyed timer.
type timer struct {
	ext jobExt // first: the queue's ref points here (group, label); a tick reads none of it

	// What a tick reads and writes, in the 152 bytes after ext: a fire
	// loads as few lines as it can (a flag stands for a cold pointer).
	queued   bool // an entry is in the queue: the next tick, or the handler's resume
	running  bool // the handler is running
	live     bool // the handler's function is running (not in a Wait)
	waiting  bool // due, waiting for an older generation's handler to end
	parked   bool // past the owner's lease deadline
	ended    bool // cancelled or superseded, and its handler ended
	canceled bool
	resumed  bool // the running handler waited at least once
	hasThen  bool // then is set
	blocked  bool // blockedBy is set
	delayed  bool // the policy is DelayNextTick: a handler's end may move the grid
	qid      timerq.ID
	key      uint64 // queue key: creation number and tagTimer
	owner    *Owner
	s        *Scheduler
	fn       func(*Step) error
	cad      cadence.Cadence
	tick     Step // up to its timer: the rest is cold

	then      func(*Step) error // Wait's continuation; nil when the handler ends
	slot      *slot
	blockedBy *timer // an older generation of the key, running at registration
	onCancel  func()
	waitFrom  int64  // when the handler's Wait began
	resumeAt  int64  // when it resumes
	next      *timer // live list
	prev      *timer
	_         [timerSize - 368]byte
}

type keyedState struct {
	owners map[*Group]*Owner // the standing owner of the scheduler (nil key) and of each group
	live   *timer            // generations not ended, as a list
}

var errAuthority = errorString("the owner's Authority moves its fence: resign through it")

type errorString string

func (e errorString) Error() string { return string(e) }

func (s *Scheduler) keyedState() *keyedState {
	if s.keyed == nil {
		s.keyed = &keyedState{owners: map[*Group]*Owner{}}
	}
	return s.keyed
}

// standingOwner returns the owner without a lease of g (of the scheduler
// when g is nil).
func (s *Scheduler) standingOwner(g *Group) *Owner {
	k := s.keyedState()
	o := k.owners[g]
	if o == nil {
		o = &Owner{s: s, deadline: math.MaxInt64, slots: map[string]*slot{}}
		k.owners[g] = o
	}
	return o
}

// NewOwner returns an owner whose timers tick while its lease holds (the
// deadline is Now()+o.Lease, moved by Renew), or while o.Authority admits
// them. Give one of the two.
//
// A timer of an Authority's owner whose tick comes due while it does not
// admit it parks; Renew, which the authority's holder calls (on the
// scheduler's goroutine) when its answer changed, resumes the parked
// timers from their next nominal tick, or, under a new fence, drops every
// tick due under the old one as Transfer does. Transfer is an error there:
// the authority moves by itself.
func (s *Scheduler) NewOwner(o OwnerOptions) (*Owner, error) {
	const name = "NewOwner"
	if err := s.check(name); err != nil {
		return nil, err
	}
	if o.Authority != nil {
		if o.Lease != 0 {
			return nil, &temporal.OptionError{Method: name, Param: "lease", Want: "0 with an Authority, which decides alone", Got: o.Lease}
		}
		l, _ := o.Authority.Lease()
		return &Owner{s: s, id: o.ID, deadline: math.MaxInt64, authority: l.Fence, auth: o.Authority, slots: map[string]*slot{}}, nil
	}
	if o.Lease <= 0 {
		return nil, &temporal.OptionError{Method: name, Param: "lease", Want: "a duration > 0 (or an Authority)", Got: o.Lease}
	}
	at, err := s.deadline(name, "lease", o.Lease)
	if err != nil {
		return nil, err
	}
	return &Owner{s: s, id: o.ID, lease: int64(o.Lease), deadline: at, slots: map[string]*slot{}}, nil
}

// admits reports whether a tick may be queued or started at at.
func (o *Owner) admits(at int64) bool {
	if o.auth != nil {
		l, held := o.auth.Lease()
		return held && l.Admits(o.s.epoch.UnixNano()+at, o.authority)
	}
	return at <= o.deadline
}

// Renew moves the lease deadline to Now()+lease: timers that stopped at
// the old deadline go on from their next nominal tick not before Now();
// the ticks between count as skipped. On an Authority's owner it asks the
// authority again: while it admits, parked timers resume from their next
// nominal tick, and under a new fence every tick due under the old one is
// dropped, as Transfer does. The owner's standing owners have nothing to
// renew.
func (o *Owner) Renew() error {
	if err := o.s.check("Renew"); err != nil {
		return err
	}
	if o.auth != nil {
		o.refresh()
		return nil
	}
	if o.lease == 0 {
		return nil
	}
	if at, err := o.s.deadline("Renew", "lease", temporal.Duration(o.lease)); err == nil {
		o.deadline = at
	} else {
		o.deadline = o.s.maxAt
	}
	for t := o.s.keyed.live; t != nil; t = t.next {
		if t.owner == o && t.parked {
			t.parked = false
			t.cad.Resume(o.s.now)
			t.requeue()
		}
	}
	return nil
}

// refresh asks an Authority's owner's authority again (see Renew); while
// it does not admit, it does nothing.
func (o *Owner) refresh() {
	s := o.s
	l, ok := o.auth.Lease()
	if !ok {
		return
	}
	moved := l.Fence != o.authority
	o.authority = l.Fence
	for t := s.keyedState().live; t != nil; t = t.next {
		if t.owner != o {
			continue
		}
		switch {
		case moved:
			// Even a tick due at this instant was the old authority's.
			if s.now < math.MaxInt64 {
				t.cad.Resume(s.now + 1)
			}
			t.parked = false
			if !t.running && !t.waiting {
				t.requeue()
			}
		case t.parked:
			t.parked = false
			t.cad.Resume(s.now)
			t.requeue()
		}
	}
}

// Transfer starts a new fence: ticks due under the old one (queued, late
// or retained) never run, and each timer goes on from its next nominal
// tick after Now(). Registrations stay; a running handler is not
// interrupted. It renews the lease. An Authority's owner refuses it.
func (o *Owner) Transfer() error {
	if err := o.s.check("Transfer"); err != nil {
		return err
	}
	if o.auth != nil {
		return &CallError{Method: "Transfer", Err: errAuthority}
	}
	o.authority++
	for t := o.s.keyedState().live; t != nil; t = t.next {
		if t.owner != o {
			continue
		}
		if o.s.now < math.MaxInt64 {
			t.cad.Resume(o.s.now + 1)
		}
		if !t.running && !t.waiting && !t.parked {
			t.requeue()
		}
	}
	return o.Renew()
}

// RegisterTimer registers the timer key of opts.Owner: fn runs at
// Now()+Delay and then every Interval, with the overrun policy deciding
// what a late tick delivers. A key already registered starts a new
// generation: the old one ends as Cancel ends it, its ticks never run, and
// the new one's first tick waits for the old handler to end. The handle is
// the new generation's; jopts label it and put it in a group. Bad options
// return a *temporal.OptionError and register nothing.
func (s *Scheduler) RegisterTimer(key string, opts TimerOptions, fn func(*Step) error, jopts ...JobOption) (Handle, error) {
	const name = "RegisterTimer"
	if err := s.check(name); err != nil {
		return Handle{}, err
	}
	if key == "" {
		return Handle{}, &temporal.OptionError{Method: name, Param: "key", Want: "a non-empty string", Got: `""`}
	}
	if opts.Interval <= 0 {
		return Handle{}, &temporal.OptionError{Method: name, Param: "opts.Interval", Want: "a duration > 0", Got: opts.Interval}
	}
	if err := opts.Overrun.Check(); err != nil {
		return Handle{}, &temporal.OptionError{Method: name, Param: "opts.Overrun", Err: err}
	}
	if o := opts.Owner; o != nil && o.s != s {
		return Handle{}, &temporal.OptionError{Method: name, Param: "opts.Owner", Want: "an owner of this scheduler", Got: "another scheduler's"}
	}
	if fn == nil {
		return Handle{}, nilFunc(name)
	}
	delay := opts.Interval
	if opts.Delay != nil {
		delay = *opts.Delay
	}
	if delay < 0 {
		return Handle{}, &temporal.OptionError{Method: name, Param: "opts.Delay", Want: "a duration >= 0", Got: delay}
	}
	first, err := s.deadline(name, "opts.Delay", delay)
	if err != nil {
		return Handle{}, err
	}
	if s.q.Len() >= s.maxPending {
		return Handle{}, &CallError{Method: name, Err: fmt.Errorf("%w: the cap is %d", ErrTooManyPending, s.maxPending)}
	}
	if err := s.nextSeq(name); err != nil {
		return Handle{}, err
	}
	var ext jobExt
	for _, j := range jopts {
		j(&ext)
	}
	o := opts.Owner
	if o == nil {
		o = s.standingOwner(ext.group)
	}
	sl := o.slots[key]
	var t *timer
	if sl == nil {
		// A key's slot shares its first generation's allocation.
		ts := &slotTimer{}
		sl, t = &ts.slot, &ts.timer
		o.slots[key] = sl
	} else {
		t = &timer{}
	}
	if old := sl.cur; old != nil {
		old.stop(EventCancel)
	}
	// Never concurrent: an older generation's running handler holds the
	// key until it ends. Generations older than the last are cancelled,
	// so none of them starts again: the last one, or what it waits for.
	var blocked *timer
	if prev := sl.last; prev != nil {
		if prev.running {
			blocked = prev
		} else if b := prev.blockedBy; b != nil && b.running {
			blocked = b
		}
	}
	sl.gen++
	*t = timer{s: s, owner: o, slot: sl, blockedBy: blocked, blocked: blocked != nil, delayed: opts.Overrun.Policy == cadence.DelayNextTick, key: s.seq<<tagBits | tagTimer, fn: fn, onCancel: opts.OnCancel,
		cad: cadence.New(first, int64(opts.Interval), opts.Overrun)}
	ext.rearm = false
	t.ext = ext
	t.tick = Step{Key: key, Generation: sl.gen, timer: t, Data: ext.data, Scheduler: s}
	sl.cur, sl.last = t, t
	k := s.keyedState()
	t.next = k.live
	if k.live != nil {
		k.live.prev = t
	}
	k.live = t
	t.requeue()
	return Handle{s: s, key: t.key, re: ref(t)}, nil
}

func (t *timer) due() (int64, bool) {
	if t.canceled || t.s.dropped || t.parked {
		return 0, false
	}
	at := t.cad.Due()
	if at == cadence.Never || at > t.s.maxAt {
		return 0, false
	}
	return max(at, t.s.now), true
}

// stop ends the generation, reporting it to the observer as ev, and
// reports whether it was not ended before: no tick of it starts any more.
// With no handler running it is complete at once (OnCancel runs inside
// stop), else when the running handler ends.
func (t *timer) stop(ev Event) bool {
	if t.canceled {
		return false
	}
	if t.s.observer != nil {
		t.s.observeStop(ev, t.key, ref(t))
	}
	t.canceled = true
	if t.slot.cur == t {
		t.slot.cur = nil
	}
	if !t.running {
		t.unqueue()
		t.finish()
	}
	return true
}

// finish runs OnCancel and completes the generation.
func (t *timer) finish() {
	t.ended = true
	t.waiting, t.parked = false, false
	if t.blocked && !t.blockedBy.running {
		t.blockedBy, t.blocked = nil, false
	}
	if t.slot.last == t && !t.blocked {
		// Nothing of the key runs: a new generation waits for nobody, and
		// the slot keeps nothing of t alive.
		t.slot.last = nil
	}
	k := t.s.keyed
	if t.prev != nil {
		t.prev.next = t.next
	} else if k.live == t {
		k.live = t.next
	}
	if t.next != nil {
		t.next.prev = t.prev
	}
	t.next, t.prev = nil, nil
	onCancel := t.onCancel
	t.fn, t.onCancel = nil, nil
	if onCancel != nil {
		onCancel()
	}
}

// requeue queues the generation's next tick: at its nominal deadline, at
// Now() when that passed (a late tick, ordered by the registration), or
// nowhere when the lease ends first (parked) or the key is busy.
func (t *timer) requeue() { t.requeueCounting(true) }

// requeueCounting is requeue; count says whether a late tick counts toward
// the loop guard (not when the same tick was counted already).
func (t *timer) requeueCounting(count bool) {
	if t.canceled || t.s.dropped {
		t.unqueue()
		return
	}
	if t.blocked && t.waitsForOlder() {
		t.unqueue()
		t.waiting = true
		return
	}
	at := t.cad.Due()
	if at == cadence.Never || at > t.s.maxAt {
		t.unqueue()
		return
	}
	late := at <= t.s.now
	if late {
		at = t.s.now
	}
	if !t.owner.admits(at) {
		t.unqueue()
		t.parked = true
		return
	}
	if late && count && t.s.running {
		// A catch-up at one instant counts toward the loop guard; past it
		// the drain stops and the tick stays queued for the next call.
		_ = t.s.countRearm()
	}
	t.queueAt(at)
}

// waitsForOlder reports whether the older generation t was registered
// behind is still running; once it ended, t forgets it.
func (t *timer) waitsForOlder() bool {
	if t.blockedBy.running {
		return true
	}
	t.blockedBy, t.blocked = nil, false
	return false
}

func (t *timer) queueAt(at int64) {
	if t.queued {
		t.s.q.Update(t.qid, at, t.key)
		return
	}
	t.qid = t.s.q.Push(at, t.key, ref(t))
	t.queued = true
}

func (t *timer) unqueue() {
	if t.queued {
		t.s.q.Remove(t.qid)
		t.queued = false
	}
}

// fireTimer runs the timer entry due at when: the generation's next tick,
// or the resumption of its running handler.
func (s *Scheduler) fireTimer(id timerq.ID, when int64, key uint64, t *timer) error {
	s.curExt = &t.ext
	var err error
	if t.running {
		t.tick.Waited = temporal.Duration(s.now - t.waitFrom)
		then := t.then
		t.then, t.hasThen = nil, false
		err = s.runHandler(t, then)
	} else {
		err = s.startTick(t)
	}
	if err != nil {
		err = &JobError{Job: t.ext.job(key), Err: err}
	}
	return err
}

// startTick delivers the tick due now, if the owner and the key allow it.
func (s *Scheduler) startTick(t *timer) error {
	if t.blocked && t.waitsForOlder() {
		t.unqueue()
		t.waiting = true
		return nil
	}
	if !t.owner.admits(s.now) {
		t.unqueue()
		t.parked = true
		return nil
	}
	tk, ok := t.cad.Take(s.now)
	if !ok {
		t.requeue()
		return nil
	}
	t.tick.Tick = tk
	t.tick.Fence = t.owner.authority
	// The next tick goes in now, as an interval's does, so that a handler
	// that ends at once costs one re-key.
	t.requeue()
	if s.observer != nil {
		s.observer(Fire{At: s.Now(), ID: t.key >> tagBits, Kind: KindTimer, Label: t.ext.label, Name: t.ext.name, ScheduledIndex: int(tk.ScheduledIndex),
			Key: t.tick.Key, Generation: t.tick.Generation, DeliveryIndex: tk.DeliveryIndex, SkippedTicks: tk.SkippedTicks})
	}
	t.running = true
	return s.runHandler(t, t.fn)
}

// runHandler runs fn, the handler's start or a Wait's continuation, and
// then either queues its resumption or ends it.
func (s *Scheduler) runHandler(t *timer, fn func(*Step) error) error {
	t.live = true
	err := fn(&t.tick)
	t.live = false
	if t.hasThen && !s.dropped {
		t.waitFrom, t.resumeAt = s.now, s.now+t.tick.waitNs
		t.resumed = true
		t.queueAt(t.resumeAt)
		return err
	}
	if t.hasThen { // a Wait on a dropped scheduler
		t.then, t.hasThen = nil, false
	}
	s.handlerEnded(t)
	return err
}

// handlerEnded ends t's running handler at Now().
func (s *Scheduler) handlerEnded(t *timer) {
	t.running = false
	if !t.canceled {
		// startTick queued the next tick already. It moves only if the
		// handler waited or the policy re-anchored the grid, or is
		// dropped if an Authority withdrew meanwhile; a lease only
		// lengthens while its timer runs, and the handler's other
		// changes (cancel, drop, transfer) requeue for themselves or
		// move the grid.
		moved := false
		if t.delayed { // the other policies keep their grid
			before := t.cad.Due()
			t.cad.Ended(s.now)
			moved = t.cad.Due() != before
		}
		if moved || t.resumed || s.dropped || t.owner.auth != nil {
			t.requeueCounting(t.resumed || moved)
		}
		t.resumed = false
		return
	}
	t.unqueue()
	if !t.ended {
		t.finish()
	}
	t.resumed = false
	// The generation that replaced t may wait for it (the current one is
	// never t: registering it cancelled t).
	if c := t.slot.cur; c != nil && c.waiting {
		c.waiting = false
		c.requeue()
	}
}

// cancelTimers cancels the live timers of groups (all of them when there
// are none) before the queue is cleared, and returns those whose handler is running:
// their resumption goes back in after the clear, since a running handler is
// never interrupted. On a dropped scheduler nothing can resume: their
// generations end now.
func (s *Scheduler) cancelTimers(groups []*Group, ev Event) []*timer {
	if s.keyed == nil {
		return nil
	}
	var running []*timer
	for t := s.keyed.live; t != nil; {
		next := t.next
		if inGroups(&t.ext, groups) {
			t.stop(ev)
			switch {
			case !t.running:
			case s.dropped:
				t.queued, t.running = false, false
				t.finish()
			case len(groups) == 0:
				// The clear takes the entry out: a next tick queued while
				// the handler's first call runs goes; a Wait's resumption
				// comes back.
				t.queued = false
				if !t.live {
					running = append(running, t)
				}
			}
		}
		t = next
	}
	return running
}

// requeueRunning puts back the resumptions of running handlers after the
// queue was cleared.
func (s *Scheduler) requeueRunning(running []*timer) {
	for _, t := range running {
		t.queueAt(t.resumeAt)
	}
}

func timerInfo(info *JobInfo, t *timer) {
	if t.ext.group != nil {
		info.Group = t.ext.group.Name
	}
	info.Data = t.tick.Data
	info.Interval = temporal.Duration(t.cad.Interval())
	info.Key, info.Generation = t.tick.Key, t.tick.Generation
}

package sched

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// TimerFunc handles one tick of a keyed timer. A non-nil error stops the
// drain as a job's does; the handler has ended all the same.
type TimerFunc func(t *Tick) error

// Tick is what a keyed timer's handler receives: the tick information and
// the way to keep running across virtual time (Wait). The scheduler reuses
// it for the timer's next tick: keep the fields, not the pointer.
type Tick struct {
	cadence.Tick
	Fence uint64 // the owner's Authority when the tick started
	timer *Timer

	Key        string
	Generation uint64

	waitNs int64 // Wait's d
	waited int64 // virtual time the last Wait took
}

// Wait keeps the handler running for d of virtual time: when the current
// TimerFunc returns, the key stays busy and then runs at Now()+d (at the
// jump's instant when a Jump passes it). Ticks coming due meanwhile are
// late; the overrun policy decides what is delivered when the handler ends.
// It returns an *OptionError for d < 0 and a *CallError when the handler
// is not running any more (Wait called outside its TimerFunc).
func (t *Tick) Wait(d temporal.Duration, then TimerFunc) error {
	if t.timer == nil || !t.timer.live || !t.timer.s.inJob || t.timer.s.curExt != &t.timer.ext {
		return &CallError{Method: "Tick.Wait", Err: errNotRunning}
	}
	if d < 0 {
		return &OptionError{Method: "Tick.Wait", Param: "d", Want: "a duration >= 0", Got: d}
	}
	if then == nil {
		return nilFunc("Tick.Wait")
	}
	if int64(d) > t.timer.s.maxAt-t.timer.s.now {
		return &OptionError{Method: "Tick.Wait", Param: "d", Want: "a duration that keeps the deadline within int64 nanoseconds", Got: d}
	}
	t.waitNs, t.timer.then, t.timer.hasThen = int64(d), then, true
	return nil
}

// Data returns the timer's TimerOptions.Data.
func (t *Tick) Data() any { return t.timer.data }

// Scheduler returns the scheduler the timer runs on.
func (t *Tick) Scheduler() *Scheduler { return t.timer.s }

// Waited returns how much virtual time the last Wait took: its d, or more
// after a Jump.
func (t *Tick) Waited() temporal.Duration { return temporal.Duration(t.waited) }

// TimerOptions are a keyed timer's settings.
type TimerOptions struct {
	Interval temporal.Duration // > 0
	// Delay is the first tick's due time after Now(); nil means Interval.
	Delay    *temporal.Duration
	Overrun  cadence.Overrun
	OnCancel func() error // optional timer-owned cleanup; its error is the generation's result
	Label    string       // where it was registered, for traces and errors
	Name     string       // its user's name (a script's label option), as WithName
	// Data is the caller's, returned by Tick.Data and reported by List in
	// JobInfo.Data: a layer that runs many timers through one TimerFunc
	// finds each one's state there, next to the tick.
	Data any
}

// Completion is a generation's single cancel result: every Cancel of the
// generation returns the same one.
type Completion struct {
	done bool
	err  error
}

// Done reports whether the generation has ended: its running handler, if
// any, returned and its OnCancel ran.
func (c *Completion) Done() bool { return c.done }

// Err returns OnCancel's error once Done; nil before.
func (c *Completion) Err() error { return c.err }

// Owner holds keyed timers: keys are scoped to it, and under a lease no
// tick of its timers is queued or started past its deadline.
type Owner struct {
	s         *Scheduler
	group     *Group
	id        string
	lease     int64 // 0: no lease
	deadline  int64 // ns after the epoch; math.MaxInt64 without a lease
	authority uint64
	adm       Admitter // nil: the lease above decides
	slots     map[string]*slot
}

// Admitter is an owner authority outside virtual time, such as a lease
// held in etcd (cluster/etcdlease): it is asked before a tick of its
// owner is queued and again before it starts, at that instant, and
// returns the fence the owner holds and whether a tick may start now.
// Admit must be fast and must not call into the Scheduler; it is the only
// thing such an owner reads, so its virtual deadline plays no part.
type Admitter interface {
	Admit() (fence uint64, ok bool)
}

// slot is one key of an owner: its generations.
type slot struct {
	gen  uint64
	cur  *Timer // the current generation; nil once cancelled
	last *Timer // the latest generation, cancelled or not
}

// slotTimer is a key's first generation and its slot, allocated together
// (RegisterTimer). A later generation is allocated alone; the first one's
// memory stays with the slot.
type slotTimer struct {
	Timer
	slot
	_ [448 - timerSize - unsafe.Sizeof(slot{})]byte // see timerSize
}

// timerSize is Timer's size, a multiple of 64 as slotTimer's is (448): a
// size class whose objects start on a cache line, so that what a tick
// reads (ext's 88 bytes, then the hot fields) takes three lines, not four.
const timerSize = 384

// Timer is one generation of a keyed timer.
type Timer struct {
	ext jobExt // first: the queue's ref points here (group, label); a tick reads none of it

	// What a tick reads and writes, in the 168 bytes after ext: a fire
	// loads as few lines as it can (a flag stands for a cold pointer).
	queued   bool // an entry is in the queue: the next tick, or the handler's resume
	running  bool // the handler is running
	live     bool // the handler's TimerFunc is running (not in a Wait)
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
	fn       TimerFunc
	data     any // TimerOptions.Data
	cad      cadence.Cadence
	tick     Tick // up to its timer: the rest is cold

	then      TimerFunc // Wait's continuation; nil when the handler ends
	slot      *slot
	blockedBy *Timer // an older generation of the key, running at registration
	onCancel  func() error
	done      *Completion
	waitFrom  int64  // when the handler's Wait began
	resumeAt  int64  // when it resumes
	next      *Timer // live list
	prev      *Timer
	_         [timerSize - 360]byte
}

type keyedState struct {
	owners map[*Group]*Owner // the default owner of the scheduler (nil key) and of each group
	live   *Timer            // generations not ended, as a list
}

var errAdmitted = errorString("the owner's Admitter moves its authority: resign through it")

var errNotRunning = errorString("the handler is not running: Wait is allowed only inside its tick's handler")

type errorString string

func (e errorString) Error() string { return string(e) }

func (s *Scheduler) keyedState() *keyedState {
	if s.keyed == nil {
		s.keyed = &keyedState{owners: map[*Group]*Owner{}}
	}
	return s.keyed
}

// Owner returns the scheduler's own owner, which has no lease:
// Scheduler.RegisterTimer registers under it.
func (s *Scheduler) Owner() *Owner { return s.defaultOwner(nil) }

// Owner returns the group's own owner, which has no lease.
func (g *Group) Owner() *Owner { return g.s.defaultOwner(g) }

func (s *Scheduler) defaultOwner(g *Group) *Owner {
	k := s.keyedState()
	o := k.owners[g]
	if o == nil {
		o = &Owner{s: s, group: g, deadline: math.MaxInt64, slots: map[string]*slot{}}
		k.owners[g] = o
	}
	return o
}

// NewOwner returns an owner whose timers tick while its lease holds: the
// deadline is Now()+lease, moved by Renew. id is a label (it may be "").
func (s *Scheduler) NewOwner(id string, lease temporal.Duration) (*Owner, error) {
	return s.newOwner(nil, id, lease)
}

// NewOwner is Scheduler.NewOwner for an owner whose timers are g's jobs.
func (g *Group) NewOwner(id string, lease temporal.Duration) (*Owner, error) {
	return g.s.newOwner(g, id, lease)
}

func (s *Scheduler) newOwner(g *Group, id string, lease temporal.Duration) (*Owner, error) {
	const name = "NewOwner"
	if err := s.check(name); err != nil {
		return nil, err
	}
	if lease <= 0 {
		return nil, &OptionError{Method: name, Param: "lease", Want: "a duration > 0", Got: lease}
	}
	at, err := s.deadline(name, "lease", lease)
	if err != nil {
		return nil, err
	}
	return &Owner{s: s, group: g, id: id, lease: int64(lease), deadline: at, slots: map[string]*slot{}}, nil
}

// Scheduler returns the scheduler the owner's timers run on.
func (o *Owner) Scheduler() *Scheduler { return o.s }

// NewOwnerAdmitter returns an owner whose timers tick while a admits
// them, under a's fence. A timer whose tick comes due while a does not
// admit it parks; Refresh, which a's holder calls (on the scheduler's
// goroutine) when its answer changed, resumes the parked timers from their
// next nominal tick, or, under a new fence, drops every tick due under the
// old one as Transfer does. Renew does nothing and Transfer is an error: the
// authority renews and moves by itself.
func (s *Scheduler) NewOwnerAdmitter(id string, a Admitter) (*Owner, error) {
	return s.newOwnerAdmitter(nil, id, a)
}

// NewOwnerAdmitter is Scheduler.NewOwnerAdmitter for an owner whose timers
// are g's jobs.
func (g *Group) NewOwnerAdmitter(id string, a Admitter) (*Owner, error) {
	return g.s.newOwnerAdmitter(g, id, a)
}

func (s *Scheduler) newOwnerAdmitter(g *Group, id string, a Admitter) (*Owner, error) {
	if err := s.check("NewOwnerAdmitter"); err != nil {
		return nil, err
	}
	if a == nil {
		return nil, &OptionError{Method: "NewOwnerAdmitter", Param: "a", Want: "an Admitter", Got: nil}
	}
	f, _ := a.Admit()
	return &Owner{s: s, group: g, id: id, deadline: math.MaxInt64, authority: f, adm: a, slots: map[string]*slot{}}, nil
}

// Refresh asks an Admitter owner's authority again (see NewOwnerAdmitter);
// on other owners, and while it does not admit, it does nothing.
func (o *Owner) Refresh() {
	s := o.s
	if o.adm == nil || s.check("Refresh") != nil {
		return
	}
	f, ok := o.adm.Admit()
	if !ok {
		return
	}
	moved := f != o.authority
	o.authority = f
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

// ID returns the owner's label.
func (o *Owner) ID() string { return o.id }

// Deadline returns the lease deadline and whether the owner has a lease.
func (o *Owner) Deadline() (temporal.Instant, bool) {
	return temporal.FromUnixNano(o.s.epoch.UnixNano() + o.deadline), o.lease > 0
}

// Authority is the owner's fencing value: it changes with each Transfer.
func (o *Owner) Authority() uint64 { return o.authority }

// admits reports whether a tick may be queued or started at at.
func (o *Owner) admits(at int64) bool {
	if o.adm != nil {
		f, ok := o.adm.Admit()
		return ok && f == o.authority
	}
	return at <= o.deadline
}

// Renew moves the lease deadline to Now()+lease. Timers that stopped at the
// old deadline go on from their next nominal tick not before Now(); the
// ticks between count as skipped. Without a lease it does nothing.
func (o *Owner) Renew() error {
	if err := o.s.check("Renew"); err != nil {
		return err
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

// Transfer starts a new authority: ticks due under the old one (queued,
// late or retained) never run, and each timer goes on from its next nominal
// tick after Now(). Registrations stay; a running handler is not
// interrupted. It renews the lease.
func (o *Owner) Transfer() error {
	if err := o.s.check("Transfer"); err != nil {
		return err
	}
	if o.adm != nil {
		return &CallError{Method: "Transfer", Err: errAdmitted}
	}
	o.authority++
	for t := o.s.keyed.live; t != nil; t = t.next {
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

// RegisterTimer is Owner.RegisterTimer on the scheduler's own owner.
func (s *Scheduler) RegisterTimer(key string, opts TimerOptions, fn TimerFunc) (*Timer, error) {
	return s.Owner().RegisterTimer(key, opts, fn)
}

// RegisterTimer registers the timer key of o: fn runs at Now()+Delay and
// then every Interval, with the overrun policy deciding what a late tick
// delivers. A key already registered starts a new generation: the old one
// ends as Cancel ends it, its ticks never run, and the new one's first tick
// waits for the old handler to end. Bad options return an *OptionError and
// register nothing.
func (o *Owner) RegisterTimer(key string, opts TimerOptions, fn TimerFunc) (*Timer, error) {
	const name = "RegisterTimer"
	s := o.s
	if err := s.check(name); err != nil {
		return nil, err
	}
	if key == "" {
		return nil, &OptionError{Method: name, Param: "key", Want: "a non-empty string", Got: `""`}
	}
	if opts.Interval <= 0 {
		return nil, &OptionError{Method: name, Param: "opts.Interval", Want: "a duration > 0", Got: opts.Interval}
	}
	if err := opts.Overrun.Check(); err != nil {
		return nil, &OptionError{Method: name, Param: "opts.Overrun", Err: err}
	}
	if fn == nil {
		return nil, nilFunc(name)
	}
	delay := opts.Interval
	if opts.Delay != nil {
		delay = *opts.Delay
	}
	if delay < 0 {
		return nil, &OptionError{Method: name, Param: "opts.Delay", Want: "a duration >= 0", Got: delay}
	}
	first, err := s.deadline(name, "opts.Delay", delay)
	if err != nil {
		return nil, err
	}
	if s.q.Len() >= s.maxPending {
		return nil, &CallError{Method: name, Err: fmt.Errorf("%w: the cap is %d", ErrTooManyPending, s.maxPending)}
	}
	if err := s.nextSeq(name); err != nil {
		return nil, err
	}
	sl := o.slots[key]
	var t *Timer
	if sl == nil {
		// A key's slot shares its first generation's allocation.
		ts := &slotTimer{}
		sl, t = &ts.slot, &ts.Timer
		o.slots[key] = sl
	} else {
		t = &Timer{}
	}
	if old := sl.cur; old != nil {
		old.Cancel()
	}
	// Never concurrent: an older generation's running handler holds the
	// key until it ends. Generations older than the last are cancelled,
	// so none of them starts again: the last one, or what it waits for.
	var blocked *Timer
	if prev := sl.last; prev != nil {
		if prev.running {
			blocked = prev
		} else if b := prev.blockedBy; b != nil && b.running {
			blocked = b
		}
	}
	sl.gen++
	*t = Timer{s: s, owner: o, slot: sl, blockedBy: blocked, blocked: blocked != nil, delayed: opts.Overrun.Policy == cadence.DelayNextTick, key: s.seq<<tagBits | tagTimer, fn: fn, onCancel: opts.OnCancel,
		data: opts.Data, cad: cadence.New(first, int64(opts.Interval), opts.Overrun)}
	t.ext = jobExt{group: o.group, label: opts.Label, name: opts.Name, data: opts.Data}
	t.tick = Tick{Key: key, Generation: sl.gen, timer: t}
	sl.cur, sl.last = t, t
	k := s.keyedState()
	t.next = k.live
	if k.live != nil {
		k.live.prev = t
	}
	k.live = t
	t.requeue()
	return t, nil
}

// ID returns the timer's id, as List and traces show it.
func (t *Timer) ID() uint64 { return t.key >> tagBits }

// Key returns the timer's key.
func (t *Timer) Key() string { return t.tick.Key }

// Generation returns the timer's generation: 1 for a key's first
// registration, one more for each re-registration.
func (t *Timer) Generation() uint64 { return t.tick.Generation }

// Active reports whether the generation will tick again: not cancelled,
// superseded or dropped.
func (t *Timer) Active() bool { return !t.canceled && !t.s.dropped }

// Due returns when the generation's next tick is due: its nominal
// deadline, or Now() for a late one (inside the handler, the tick after the
// one running). ok is false once the generation is cancelled, superseded or
// dropped, and while its owner's lease has lapsed.
func (t *Timer) Due() (at temporal.Instant, ok bool) {
	when, ok := t.due()
	if !ok {
		return temporal.Instant{}, false
	}
	return temporal.FromUnixNano(t.s.epoch.UnixNano() + when), true
}

// Remaining returns the time from Now() to Due, never negative.
func (t *Timer) Remaining() (temporal.Duration, bool) {
	when, ok := t.due()
	if !ok {
		return 0, false
	}
	return temporal.Duration(when - t.s.now), true
}

func (t *Timer) due() (int64, bool) {
	if t.canceled || t.s.dropped || t.parked {
		return 0, false
	}
	at := t.cad.Due()
	if at == cadence.Never || at > t.s.maxAt {
		return 0, false
	}
	return max(at, t.s.now), true
}

// Running reports whether the timer's handler is running.
func (t *Timer) Running() bool { return t.running }

// Cancel ends the generation: no tick of it starts any more. It returns
// the generation's one Completion, the same for every call: done at once
// when no handler is running (OnCancel runs inside Cancel), else when the
// running handler ends, which Cancel does not interrupt.
func (t *Timer) Cancel() *Completion { return t.stop(EventCancel) }

// Drop is Cancel; an observer sees a drop rather than a cancel.
func (t *Timer) Drop() *Completion { return t.stop(EventDrop) }

func (t *Timer) stop(ev Event) *Completion {
	if t.done != nil {
		return t.done
	}
	if t.s.observer != nil {
		t.s.observeStop(ev, t.key, ref(t))
	}
	t.done = &Completion{}
	t.canceled = true
	if t.slot.cur == t {
		t.slot.cur = nil
	}
	if !t.running {
		t.unqueue()
		t.finish()
	}
	return t.done
}

// finish runs OnCancel and completes the generation.
func (t *Timer) finish() {
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
	var err error
	if t.onCancel != nil {
		err = t.onCancel()
	}
	t.done.done, t.done.err = true, err
	t.fn, t.onCancel = nil, nil
}

// requeue queues the generation's next tick: at its nominal deadline, at
// Now() when that passed (a late tick, ordered by the registration), or
// nowhere when the lease ends first (parked) or the key is busy.
func (t *Timer) requeue() { t.requeueCounting(true) }

// requeueCounting is requeue; count says whether a late tick counts toward
// the loop guard (not when the same tick was counted already).
func (t *Timer) requeueCounting(count bool) {
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
func (t *Timer) waitsForOlder() bool {
	if t.blockedBy.running {
		return true
	}
	t.blockedBy, t.blocked = nil, false
	return false
}

func (t *Timer) queueAt(at int64) {
	if t.queued {
		t.s.q.Update(t.qid, at, t.key)
		return
	}
	t.qid = t.s.q.Push(at, t.key, ref(t))
	t.queued = true
}

func (t *Timer) unqueue() {
	if t.queued {
		t.s.q.Remove(t.qid)
		t.queued = false
	}
}

// fireTimer runs the timer entry due at when: the generation's next tick,
// or the resumption of its running handler.
func (s *Scheduler) fireTimer(id timerq.ID, when int64, key uint64, t *Timer) error {
	s.curExt = &t.ext
	var err error
	if t.running {
		t.tick.waited = s.now - t.waitFrom
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
func (s *Scheduler) startTick(t *Timer) error {
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
		s.observer(Fire{At: s.Now(), ID: t.ID(), Kind: KindTimer, Label: t.ext.label, Name: t.ext.name, ScheduledIndex: int(tk.ScheduledIndex),
			Key: t.tick.Key, Generation: t.tick.Generation, DeliveryIndex: tk.DeliveryIndex, SkippedTicks: tk.SkippedTicks})
	}
	t.running = true
	return s.runHandler(t, t.fn)
}

// runHandler runs fn, the handler's start or a Wait's continuation, and
// then either queues its resumption or ends it.
func (s *Scheduler) runHandler(t *Timer, fn TimerFunc) error {
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
func (s *Scheduler) handlerEnded(t *Timer) {
	t.running = false
	if !t.canceled {
		// startTick queued the next tick already. It moves only if the
		// handler waited or the policy re-anchored the grid, or is
		// dropped if an Admitter withdrew meanwhile; a lease only
		// lengthens while its timer runs, and the handler's other
		// changes (cancel, drop, transfer) requeue for themselves or
		// move the grid.
		moved := false
		if t.delayed { // the other policies keep their grid
			before := t.cad.Due()
			t.cad.Ended(s.now)
			moved = t.cad.Due() != before
		}
		if moved || t.resumed || s.dropped || t.owner.adm != nil {
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

// cancelTimers cancels the live timers of g (all of them when g is nil)
// before the queue is cleared, and returns those whose handler is running:
// their resumption goes back in after the clear, since a running handler is
// never interrupted. On a dropped scheduler nothing can resume: their
// generations end now.
func (s *Scheduler) cancelTimers(g *Group, ev Event) []*Timer {
	if s.keyed == nil {
		return nil
	}
	var running []*Timer
	for t := s.keyed.live; t != nil; {
		next := t.next
		if g == nil || t.ext.group == g {
			t.stop(ev)
			switch {
			case !t.running:
			case s.dropped:
				t.queued, t.running = false, false
				t.finish()
			case g == nil:
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
func (s *Scheduler) requeueRunning(running []*Timer) {
	for _, t := range running {
		t.queueAt(t.resumeAt)
	}
}

func timerInfo(info *JobInfo, t *Timer) {
	if t.ext.group != nil {
		info.Group = t.ext.group.name
	}
	info.Interval = temporal.Duration(t.cad.Interval())
	info.Key, info.Generation = t.tick.Key, t.tick.Generation
}

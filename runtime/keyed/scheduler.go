package keyed

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/metronome-rt/metronome/runtime/internal/timerq"
)

// Options configures New. The zero value is ready to use.
type Options struct {
	// Clock is the time the scheduler sleeps on and leases are read in;
	// nil means SystemClock().
	Clock Clock
	// Workers is the size of the callback pool: >= 0, and 0 means
	// GOMAXPROCS.
	Workers int
	// Gate is the host's execution authority; nil grants every tick.
	Gate Gate
	// Capacity is the number of timers the deadline queue keeps room for
	// however few are queued at a moment: 0..2^30-1. A scheduler whose
	// timers all come due together otherwise gives the room back after
	// each wave and takes it again for the next.
	Capacity int
}

// MaxWorkers bounds Options.Workers.
const MaxWorkers = 1 << 16

// Scheduler runs every keyed timer registered with it on one goroutine,
// one deadline queue and a pool of Workers goroutines, however many timers
// there are.
type Scheduler struct {
	clock   Clock
	gate    Gate
	workers int

	mu       sync.Mutex
	q        *timerq.Heap[*Timer]
	def      *Owner
	owners   []*Owner
	retained []*Timer // refused by the gate; entries whose where moved on are stale
	out      []*Timer // the next batch
	inflight int      // timers handed to the pool and not given back
	armed    int64    // the alarm's instant, Never when unarmed
	seq      uint64
	fences   uint64
	closed   bool

	wake     chan struct{} // capacity 1: something changed, look again
	work     chan *batch
	given    []givenStack // by worker: the timers it gave back
	stop     chan struct{}
	loopDone chan struct{}
	wg       sync.WaitGroup

	closeOnce sync.Once
	closeErr  error

	hooks
}

// hooks are test seams (export_test.go); the zero value is off.
type hooks struct {
	idle        func()       // on the scheduler goroutine, before it blocks with nothing in flight
	beforeStart func(*Timer) // on the worker, before the start checks
	onBatch     func(n int)  // on the scheduler goroutine, for each batch built
}

// batch is the records that came due at one wake-up, handed to the pool
// as one: each worker that receives it claims records until none is left.
type batch struct {
	ts   []*Timer
	next atomic.Int64
}

// New starts a scheduler: one goroutine plus opts.Workers. Close stops
// them.
func New(opts Options) (*Scheduler, error) {
	return newScheduler(opts, hooks{})
}

func newScheduler(opts Options, h hooks) (*Scheduler, error) {
	if opts.Workers < 0 || opts.Workers > MaxWorkers {
		return nil, &OptionError{"New", "Workers", "0..65536 (0: GOMAXPROCS)", opts.Workers}
	}
	if opts.Capacity < 0 || opts.Capacity > 1<<30-1 {
		return nil, &OptionError{"New", "Capacity", "0..2^30-1", opts.Capacity}
	}
	s := &Scheduler{clock: opts.Clock, gate: opts.Gate, workers: opts.Workers, armed: Never, hooks: h,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), loopDone: make(chan struct{})}
	if s.clock == nil {
		s.clock = SystemClock()
	}
	if s.workers == 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	s.q = timerq.NewHeap[*Timer](opts.Capacity)
	s.work = make(chan *batch, 4*s.workers)
	s.def = s.newOwner(forever{})
	s.wg.Add(s.workers)
	s.given = make([]givenStack, s.workers)
	for w := range s.given {
		go s.worker(&s.given[w])
	}
	go s.loop()
	return s, nil
}

// Close cancels every generation, waits for their completions (running
// callbacks and cleanups), stops the goroutines and returns the cleanups'
// errors joined. Register after Close is an error. Close from inside a
// callback never returns.
func (s *Scheduler) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		var cs []*Completion
		for _, o := range s.owners {
			for _, sl := range o.slots {
				if sl.cur != nil {
					cs = append(cs, s.cancelLocked(sl.cur))
				}
			}
		}
		s.wakeLocked()
		s.mu.Unlock()
		var errs []error
		for _, c := range cs {
			errs = append(errs, c.Wait())
		}
		close(s.stop)
		<-s.loopDone
		close(s.work)
		s.wg.Wait()
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// Retry wakes the scheduler to offer the ticks the gate refused again.
func (s *Scheduler) Retry() {
	s.mu.Lock()
	s.wakeLocked()
	s.mu.Unlock()
}

func (s *Scheduler) wakeLocked() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// loop is the scheduler goroutine. It does what runtime/driver.Run does,
// one alarm reset to the next deadline and a channel for everything else,
// on the injected Clock instead of the time package (see the package doc).
func (s *Scheduler) loop() {
	defer close(s.loopDone)
	alarm := s.clock.NewAlarm()
	defer alarm.Stop()
	alarmAt := int64(Never)
	var outbox []*batch
	for {
		select { // a wake-up the last select did not take: the alarm is unarmed now
		case <-alarm.C():
			alarmAt = Never
		default:
		}
		s.mu.Lock()
		now := s.clock.Now()
		s.collect(now)
		s.drain(now)
		s.retry(now)
		if len(s.out) > 0 {
			b := &batch{ts: s.out}
			s.out = make([]*Timer, 0, len(b.ts))
			if s.onBatch != nil {
				s.onBatch(len(b.ts))
			}
			for range min(s.workers, len(b.ts)) {
				outbox = append(outbox, b)
			}
		}
		next := int64(Never)
		if _, w, _, _, ok := s.q.Peek(); ok {
			next = w
		}
		s.armed = next
		idle := s.inflight == 0
		s.mu.Unlock()

		if next != alarmAt {
			if next == Never {
				alarm.Stop()
			} else {
				alarm.Set(next)
			}
			alarmAt = next
		}
		for len(outbox) > 0 {
			select {
			case s.work <- outbox[0]:
				outbox = outbox[1:]
				continue
			default:
			}
			break
		}
		if idle && len(outbox) == 0 && s.idle != nil && s.nothingGiven() {
			s.idle()
		}
		var work chan<- *batch
		var first *batch
		if len(outbox) > 0 {
			work, first = s.work, outbox[0]
		}
		select {
		case <-alarm.C():
			alarmAt = Never
		case <-s.wake:
		case work <- first:
			outbox = outbox[1:]
		case <-s.stop:
			return
		}
	}
}

// collect takes back what the workers gave back. s.mu held.
func (s *Scheduler) collect(now int64) {
	for w := range s.given {
		for t := s.given[w].top.Swap(nil); t != nil; {
			next := t.next
			t.next = nil
			s.returned(t, now)
			t = next
		}
	}
}

func (s *Scheduler) returned(t *Timer, now int64) {
	s.inflight--
	t.where = nowhere
	if t.job == jobCleanup {
		t.where = gone
		return
	}
	sl := t.slot
	if sl.running == t {
		sl.running = nil
	}
	if t.state.Load()&stCancelled != 0 {
		s.finishCancel(t)
	} else {
		if t.hasResume {
			t.cad.Resume(t.resumeAt)
			t.hasResume = false
		}
		t.state.Store(0)
		s.admit(t, now)
	}
	if c := sl.cur; c != nil && c.where == inBlocked {
		c.where = nowhere
		s.admit(c, now)
	}
}

// drain admits every timer due by now. Each is re-keyed past now: to its
// next tick, to its likely next tick while in flight, or to Never while it
// waits elsewhere. s.mu held.
func (s *Scheduler) drain(now int64) {
	d := s.q.Drain(now)
	for {
		_, _, _, t, ok := d.Peek()
		if !ok {
			return
		}
		if t.where == inFlight { // a handler overran its likely next tick
			s.hold(t, inFlight)
			continue
		}
		t.where = nowhere
		s.admit(t, now)
	}
}

// retry offers the retained ticks to the gate again, oldest first.
func (s *Scheduler) retry(now int64) {
	if len(s.retained) == 0 {
		return
	}
	r := s.retained
	s.retained = nil
	for _, t := range r {
		if t.where == inRetained {
			t.where = nowhere
			s.admit(t, now)
		}
	}
}

// admit decides what happens to t (not cancelled, not in flight) at now:
// queued for its next tick, blocked behind its key's running callback,
// parked while its owner's authority lapsed, retained by the gate, or put
// in the next batch. s.mu held.
func (s *Scheduler) admit(t *Timer, now int64) {
	if t.cad.Due() > now {
		s.queue(t)
		return
	}
	sl := t.slot
	if sl.running != nil {
		s.hold(t, inBlocked)
		return
	}
	o := t.owner
	l, ok := o.check(now)
	if !ok {
		s.hold(t, inParked)
		t.idx = len(o.parked)
		o.parked = append(o.parked, t)
		return
	}
	if t.cad.Due() > now { // check resumed the owner's timers
		s.queue(t)
		return
	}
	if s.gate != nil && !s.gate.Acquire(t) {
		s.hold(t, inRetained)
		s.retained = append(s.retained, t)
		return
	}
	t.fence, t.job, t.where = l.Fence, jobTick, inFlight
	// The entry waits at the tick that most likely comes next, so that a
	// handler that ends in time costs no re-key.
	c := t.cad
	c.Take(now)
	s.rekey(t, max(c.Due(), now+1))
	sl.running = t
	s.inflight++
	s.out = append(s.out, t)
}

// queue keys t's entry at its next tick. Every generation keeps one entry
// in the queue from Register to its cancel. s.mu held.
func (s *Scheduler) queue(t *Timer) {
	s.rekey(t, t.cad.Due())
	t.where = inQueue
}

// rekey keys t's entry at at. A handler that ended in time finds its entry
// keyed at its next tick already (admit put it there): no queue call.
// s.mu held.
func (s *Scheduler) rekey(t *Timer, at int64) {
	if t.at != at {
		s.q.Update(t.hid, at, t.seq)
		t.at = at
	}
}

// hold keys t's entry at Never while it waits at where. s.mu held.
func (s *Scheduler) hold(t *Timer, where place) {
	s.rekey(t, Never)
	t.where = where
}

// cancelLocked ends t's generation once (see Timer.Cancel). s.mu held.
func (s *Scheduler) cancelLocked(t *Timer) *Completion {
	if t.done != nil {
		return t.done
	}
	t.done = &Completion{ch: make(chan struct{})}
	t.state.Or(stCancelled)
	if t.slot.cur == t {
		t.slot.cur = nil
	}
	s.q.Remove(t.hid)
	switch t.where {
	case inParked:
		p := t.owner.parked
		last := p[len(p)-1]
		p[t.idx], last.idx = last, t.idx
		p[len(p)-1] = nil
		t.owner.parked = p[:len(p)-1]
	case inFlight:
		return t.done // returned finishes it
	}
	s.finishCancel(t)
	return t.done
}

// finishCancel completes a cancelled t that no worker holds: at once, or
// after its cleanup ran on the pool. s.mu held.
func (s *Scheduler) finishCancel(t *Timer) {
	if t.onCancel == nil {
		t.where = gone
		t.done.finish(nil)
		return
	}
	t.job, t.where = jobCleanup, inFlight
	s.inflight++
	s.out = append(s.out, t)
	s.wakeLocked()
}

// givenStack is one worker's stack of the timers it gave back, on a cache
// line of its own: the workers do not contend for one stack at every
// record.
type givenStack struct {
	top atomic.Pointer[Timer]
	_   [56]byte
}

// nothingGiven reports whether no worker gave back a timer not collected.
func (s *Scheduler) nothingGiven() bool {
	for w := range s.given {
		if s.given[w].top.Load() != nil {
			return false
		}
	}
	return true
}

func (s *Scheduler) worker(g *givenStack) {
	defer s.wg.Done()
	for b := range s.work {
		for {
			i := b.next.Add(1) - 1
			if i >= int64(len(b.ts)) {
				break
			}
			s.run(b.ts[i], g)
		}
	}
}

// run is one record on a worker: a cleanup, or a tick, which starts only
// if the generation was not cancelled and the authority still admits it
// under the fence it was queued with.
func (s *Scheduler) run(t *Timer, g *givenStack) {
	if t.job == jobCleanup {
		t.done.finish(t.onCancel())
		s.give(t, g)
		return
	}
	if s.beforeStart != nil {
		s.beforeStart(t)
	}
	t.out = outSkipped
	if t.state.CompareAndSwap(0, stStarted) {
		now := s.clock.Now()
		if l, held := t.owner.auth.Lease(); held && l.Fence == t.fence && now < l.Deadline {
			if tk, ok := t.cad.Take(now); ok {
				t.fn(Fire{tk, t.key, t.gen, t.fence})
				t.cad.Ended(s.clock.Now())
				t.out = outRan
			}
		} else {
			t.out = outLease
		}
	}
	if s.gate != nil {
		s.gate.Release(t)
	}
	s.give(t, g)
}

// give hands t back to the scheduler and wakes it if the stack was empty.
func (s *Scheduler) give(t *Timer, g *givenStack) {
	for {
		old := g.top.Load()
		t.next = old
		if g.top.CompareAndSwap(old, t) {
			if old == nil {
				select {
				case s.wake <- struct{}{}:
				default:
				}
			}
			return
		}
	}
}

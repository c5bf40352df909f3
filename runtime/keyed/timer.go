package keyed

import (
	"sync/atomic"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// Config is one registration.
type Config struct {
	// Key names the timer within its owner: non-empty.
	Key string
	// Interval is the period: > 0.
	Interval temporal.Duration
	// Delay is the time to the first nominal tick: >= 0, and 0 means
	// Interval.
	Delay temporal.Duration
	// Overrun is the overrun policy; the zero value is SkipLateTicks.
	Overrun cadence.Overrun
	// Callback runs once per delivered tick, on a worker: required.
	Callback func(Fire)
	// OnCancel, when set, is the generation's timer-owned cleanup: it runs
	// once, on a worker, after the last callback of the generation ended,
	// and its error is the generation's cancel result.
	OnCancel func() error
}

// Fire is what a callback receives: the Tick and whose it is.
type Fire struct {
	cadence.Tick
	Key        string
	Generation uint64 // 1 for a key's first registration within its owner
	Fence      uint64 // the owner authority's fence the tick was queued and started under
}

// Timer is one generation of a keyed timer, as Register returned it.
//
// The fields a tick touches come first and fill two cache lines (a Timer
// is 192 bytes, an allocation class whose objects start on a line): the
// line the worker writes, then the one it only reads. A tick moves two
// lines between the scheduler and a worker rather than five or six.
type Timer struct {
	// The line the worker writes.
	state atomic.Uint32   // stCancelled | stStarted | stDone | stWanted: the start/cancel/return races
	hid   timerq.ID       // under s.mu: the generation's entry in s.q, until its cancel
	cad   cadence.Cadence // the scheduler's under s.mu, or the worker's while in flight

	// The line the worker reads.
	where     place  // under s.mu
	job       job    // set before the hand-off, read by the worker
	waitOld   bool   // under s.mu: an older generation's tick of the key is in flight
	hasResume bool   // under s.mu: while in flight, resume from resumeAt on return
	seq       uint64 // registration order: ties between equal deadlines
	owner     *Owner
	fence     uint64 // under s.mu: the authority's fence the tick was queued under
	fn        func(Fire)
	key       string
	gen       uint64

	// Cold: registration, cancel and the rare paths.
	s        *Scheduler
	slot     *slot
	onCancel func() error
	resumeAt int64       // under s.mu
	idx      int         // under s.mu, while inParked: index in owner.parked
	done     *Completion // under s.mu: set by the first Cancel
	next     *Timer      // link in a worker's given stack
}

// slot is a key within an owner: its current generation, and the older
// one whose tick is in flight, if any, so that no two callbacks of the key
// run at once.
type slot struct {
	cur        *Timer
	oldRunning *Timer
	gen        uint64
}

type place uint8

const (
	nowhere    place = iota // being admitted
	inQueue                 // keyed at its next tick (cadence.Never past the end of time)
	inFlight                // handed to the pool, or back from it and not yet looked at (stDone)
	inParked                // due while the owner's authority lapsed
	inRetained              // refused by the gate, retried at each wake-up
	inBlocked               // due while its key's callback (an older generation's) runs
	gone                    // cancelled and finished
)

type job uint8

const (
	jobTick job = iota
	jobCleanup
)

// A worker marks a tick stStarted before its callback and stDone after;
// Cancel marks stCancelled, and the scheduler stWanted when it needs the
// tick back before its next deadline. Whoever sets the second bit of a
// pair sees the first: a done tick marked cancelled or wanted is the
// scheduler's to finish at once, a cancelled or wanted tick marked done is
// given back by its worker.
const (
	stCancelled = 1 << iota
	stStarted
	stDone
	stWanted
)

// Key returns the timer's key.
func (t *Timer) Key() string { return t.key }

// Generation returns the timer's generation.
func (t *Timer) Generation() uint64 { return t.gen }

// Owner returns the timer's owner.
func (t *Timer) Owner() *Owner { return t.owner }

// Cancel ends the generation and returns its completion; every call, and
// a re-registration of the key, returns the same one. No callback of the
// generation starts after Cancel; a callback already running is not
// interrupted. The completion is done once that callback and OnCancel
// returned; its Err is OnCancel's error. Cancel does not wait: waiting on
// the completion inside the timer's own callback never ends.
func (t *Timer) Cancel() *Completion {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelLocked(t)
}

// Completion is a generation's one cancel result, like a context: Done is
// closed when it is complete, then Err holds the result.
type Completion struct {
	ch  chan struct{}
	err error
}

// Done returns a channel closed when the generation completed.
func (c *Completion) Done() <-chan struct{} { return c.ch }

// Err returns nil until Done is closed, then the cleanup's error, or nil.
func (c *Completion) Err() error {
	select {
	case <-c.ch:
		return c.err
	default:
		return nil
	}
}

// Wait blocks until Done is closed and returns Err.
func (c *Completion) Wait() error {
	<-c.ch
	return c.err
}

func (c *Completion) finish(err error) {
	c.err = err
	close(c.ch)
}

// Register registers c under the scheduler's own owner, which never
// expires; see Owner.Register.
func (s *Scheduler) Register(c Config) (*Timer, error) { return s.def.register("Register", c) }

// Register registers c.Key within o and returns the new generation. A key
// already registered is re-registered: its generation ends as Cancel ends
// it, the new one's generation is one higher, and a tick of the old one
// that is queued never runs. The new generation's first callback waits
// for a callback of the old one that is still running. A bad c is an
// *temporal.OptionError naming the field, and registers nothing.
func (o *Owner) Register(c Config) (*Timer, error) { return o.register("Register", c) }

func (o *Owner) register(method string, c Config) (*Timer, error) {
	if err := c.check(method); err != nil {
		return nil, err
	}
	s := o.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, &CallError{method, ErrClosed}
	}
	delay := c.Delay
	if delay == 0 {
		delay = c.Interval
	}
	sl := o.slots[c.Key]
	if sl == nil {
		sl = &slot{}
		o.slots[c.Key] = sl
	} else if sl.cur != nil {
		s.cancelLocked(sl.cur)
	}
	sl.gen++
	s.seq++
	t := &Timer{s: s, owner: o, slot: sl, key: c.Key, gen: sl.gen, seq: s.seq, fn: c.Callback, onCancel: c.OnCancel,
		cad: cadence.New(satAdd(s.now(), int64(delay)), int64(c.Interval), c.Overrun), waitOld: sl.oldRunning != nil}
	sl.cur = t
	t.hid = s.q.Push(t.cad.Due(), t.seq, t)
	t.where = inQueue
	if t.cad.Due() < s.armed {
		s.wakeLocked()
	}
	return t, nil
}

func (c *Config) check(method string) error {
	switch {
	case c.Key == "":
		return &temporal.OptionError{Method: method, Param: "Key", Want: "a non-empty string", Got: `""`}
	case c.Interval <= 0:
		return &temporal.OptionError{Method: method, Param: "Interval", Want: "a duration > 0", Got: c.Interval}
	case c.Delay < 0:
		return &temporal.OptionError{Method: method, Param: "Delay", Want: "a duration >= 0", Got: c.Delay}
	case c.Callback == nil:
		return &temporal.OptionError{Method: method, Param: "Callback", Want: "a function", Got: nil}
	}
	if err := c.Overrun.Check(); err != nil {
		return &temporal.OptionError{Method: method, Param: "Overrun", Err: err}
	}
	return nil
}

// cancelLocked ends t's generation once (see Timer.Cancel). s.mu held.
func (s *Scheduler) cancelLocked(t *Timer) *Completion {
	if t.done != nil {
		return t.done
	}
	t.done = &Completion{ch: make(chan struct{})}
	s.unfinished.Add(1)
	st := t.state.Or(stCancelled)
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
		if st&stDone == 0 || st&stWanted != 0 {
			// Not started, running, or being given back: the next
			// generation waits, and returned finishes this one.
			t.slot.oldRunning = t
			return t.done
		}
		t.where = nowhere // back from the pool, and not given back
	}
	s.finishCancel(t)
	return t.done
}

// finishCancel completes a cancelled t that no worker holds: at once, or
// after its cleanup ran on the pool. s.mu held.
func (s *Scheduler) finishCancel(t *Timer) {
	if t.onCancel == nil {
		t.where = gone
		s.finish(t.done, nil)
		return
	}
	t.job, t.where = jobCleanup, inFlight
	s.emit(t)
	s.wakeLocked()
}

// finish completes c with err.
func (s *Scheduler) finish(c *Completion, err error) {
	c.finish(err)
	s.unfinished.Done()
}

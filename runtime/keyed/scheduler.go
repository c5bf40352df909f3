package keyed

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// Options configures New. The zero value is ready to use.
type Options struct {
	// Clock is the time the scheduler reads, and leases are read in: its
	// Now must never decrease. A Clock with a NewAlarm() Alarm method
	// (SystemClock's) is also what the scheduler sleeps on; another is
	// slept on with the time package's timers. Nil means SystemClock().
	Clock temporal.Clock
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
	clock   temporal.Clock
	gate    Gate
	workers int

	mu       sync.Mutex
	q        *timerq.Heap[*Timer]
	def      *Owner
	owners   []*Owner
	retained []*Timer  // refused by the gate; entries whose where moved on are stale
	ahead    []uintptr // by queue ID: the timer drained prefetchAhead places after it last time (see drain)
	out      []*Timer  // records for the next batch: cleanups of cancels between wake-ups
	cur      *batch    // the batch of the wake-up being drained
	outbox   []*batch  // the scheduler goroutine's: sends the pool's channel had no room for
	pending  []*batch  // handed to the pool and not finished, or still held by a worker
	spare    []*batch  // finished and let go by every worker
	inflight int       // records in the pending batches not finished
	armed    int64     // the alarm's instant, cadence.Never when unarmed
	seq      uint64
	fences   uint64
	closed   bool

	wake     chan struct{} // capacity 1: something changed, look again
	work     chan *batch
	more     chan struct{} // a parked worker's wake-up: more of a batch was published
	given    []givenStack  // by worker: the timers it gave back
	stop     chan struct{}
	loopDone chan struct{}
	wg       sync.WaitGroup

	unfinished sync.WaitGroup // completions not done yet: Close waits for every one

	closeOnce sync.Once
	closeErr  error

	stats // the loop's, read after Close
	hooks
}

// stats count the hand-offs, for the benchmarks.
type stats struct {
	wakeups  int64        // times the loop woke up
	batches  int64        // batches built
	handoffs int64        // batch sends to the workers
	early    atomic.Int64 // the workers': records run from a batch not sealed yet
}

// hooks are test seams (export_test.go); the zero value is off.
type hooks struct {
	idle        func()       // on the scheduler goroutine, before it blocks with nothing in flight
	beforeStart func(*Timer) // on the worker, before the start checks
	onBatch     func(n int)  // on the scheduler goroutine, for each batch built
	earlyMin    int          // publish batches from this bound on while drained; 0: earlyMin
}

// New starts a scheduler: one goroutine plus opts.Workers. Close stops
// them.
func New(opts Options) (*Scheduler, error) {
	return newScheduler(opts, hooks{})
}

func newScheduler(opts Options, h hooks) (*Scheduler, error) {
	if opts.Workers < 0 || opts.Workers > MaxWorkers {
		return nil, &temporal.OptionError{Method: "New", Param: "Workers", Want: "0..65536 (0: GOMAXPROCS)", Got: opts.Workers}
	}
	if opts.Capacity < 0 || opts.Capacity > 1<<30-1 {
		return nil, &temporal.OptionError{Method: "New", Param: "Capacity", Want: "0..2^30-1", Got: opts.Capacity}
	}
	s := &Scheduler{clock: opts.Clock, gate: opts.Gate, workers: opts.Workers, armed: cadence.Never, hooks: h,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), loopDone: make(chan struct{})}
	if s.clock == nil {
		s.clock = SystemClock()
	}
	if s.earlyMin == 0 {
		s.earlyMin = earlyMin
	}
	if s.workers == 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	s.q = timerq.NewHeap[*Timer](opts.Capacity)
	s.work = make(chan *batch, 4*s.workers)
	s.more = make(chan struct{}, s.workers)
	s.def = s.newOwner(forever{})
	s.wg.Add(s.workers)
	s.given = make([]givenStack, s.workers)
	for w := range s.given {
		go s.worker(&s.given[w])
	}
	go s.loop()
	return s, nil
}

// Close cancels every generation, waits for the completions of all, those
// cancelled earlier included (running callbacks and cleanups), stops the
// goroutines and returns the errors of the cleanups of the generations it
// cancelled, joined. Register after Close is an error. Close from inside a
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
		// Generations cancelled earlier may still have a callback or a
		// cleanup to finish, and need the loop for it.
		s.unfinished.Wait()
		close(s.stop)
		<-s.loopDone
		close(s.work)
		s.wg.Wait()
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// now reads the clock, in nanoseconds since the Unix epoch.
func (s *Scheduler) now() int64 { return s.clock.Now().UnixNano() }

// Retry wakes the scheduler to offer the ticks the gate refused again.
func (s *Scheduler) Retry() {
	s.mu.Lock()
	s.wakeLocked()
	s.mu.Unlock()
}

func (s *Scheduler) wakeLocked() { s.signal() }

// loop is the scheduler goroutine. It does what runtime/driver.Run does,
// one alarm reset to the next deadline and a channel for everything else,
// on the injected Clock instead of the time package (see the package doc).
func (s *Scheduler) loop() {
	defer close(s.loopDone)
	alarm := newAlarm(s.clock)
	defer alarm.Stop()
	alarmAt := int64(cadence.Never)
	for {
		select { // a wake-up the last select did not take: the alarm is unarmed now
		case <-alarm.C():
			alarmAt = cadence.Never
		default:
		}
		s.mu.Lock()
		now := s.now()
		s.collect(now)
		if len(s.out) > 0 || len(s.retained) > 0 || s.due(now) {
			s.open()
			s.drain(now)
			s.retry(now)
			s.seal()
		}
		next := int64(cadence.Never)
		if _, w, _, _, ok := s.q.Peek(); ok {
			next = w
		}
		s.armed = next
		idle := s.inflight == 0
		s.mu.Unlock()

		if next != alarmAt {
			if next == cadence.Never {
				alarm.Stop()
			} else {
				alarm.Set(temporal.FromUnixNano(next))
			}
			alarmAt = next
		}
		for len(s.outbox) > 0 {
			select {
			case s.work <- s.outbox[0]:
				s.outbox = s.outbox[1:]
				s.handoffs++
				continue
			default:
			}
			break
		}
		if idle && len(s.outbox) == 0 && s.idle != nil && s.nothingGiven() {
			s.idle()
		}
		var work chan<- *batch
		var first *batch
		if len(s.outbox) > 0 {
			work, first = s.work, s.outbox[0]
		}
		select {
		case <-alarm.C():
			alarmAt = cadence.Never
		case <-s.wake:
		case work <- first:
			s.outbox = s.outbox[1:]
			s.handoffs++
		case <-s.stop:
			return
		}
		s.wakeups++
	}
}

// signal wakes the scheduler goroutine.
func (s *Scheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

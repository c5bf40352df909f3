package driver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/runtime/wheel"
	"github.com/metronome-rt/metronome/temporal"
)

// Strategy says where a [Service] runs its due callbacks: [Inline] or
// [Pool].
type Strategy struct {
	pool    bool
	workers int
}

// Inline runs each due callback on the service's goroutine, one after
// another: the right choice for short callbacks that never block.
func Inline() Strategy { return Strategy{} }

// Pool runs due callbacks on n worker goroutines, in due order as workers
// free up, so a slow callback delays only its worker, never the wheel.
func Pool(n int) Strategy { return Strategy{pool: true, workers: n} }

func (s Strategy) String() string {
	if !s.pool {
		return "Inline"
	}
	return fmt.Sprintf("Pool(%d)", s.workers)
}

// ServiceOptions adjusts NewService. The zero value is an Inline service
// on the default wheel.
type ServiceOptions struct {
	Strategy Strategy
	// Geometry of the wheel; the zero value is wheel.Default(), 24 h at
	// 1 ms. Deadlines beyond it wait in the wheel's overflow level.
	Geometry wheel.Geometry
	// Shards of the wheel, each with its own lock (1 to 256, rounded up to
	// a power of two); 0 is twice GOMAXPROCS.
	Shards int
	// Logger, when non-nil, receives the service's and the wheel's
	// decisions at debug level. Nil, the default, costs one branch.
	Logger *slog.Logger
}

// ErrServiceStopped is returned by Schedule on a stopped service.
var ErrServiceStopped = errors.New("driver: Service.Schedule: the service is stopped")

// Service runs Go callbacks at real-time deadlines: an AfterFunc that any
// goroutine may call, on a timer wheel, with one goroutine that sleeps
// until the earliest deadline. See the package doc.
type Service struct {
	q      *timerq.Sharded[func()]
	origin time.Time
	log    *slog.Logger

	// target is the deadline the loop sleeps until, math.MaxInt64 while it
	// is awake or idle. Schedule wakes the loop when it adds an earlier one.
	target atomic.Int64
	// stopping is set first thing by Stop; the loop and the workers load
	// it just before each callback and drop the callback once it is set.
	stopping atomic.Bool
	wake     chan struct{} // capacity 1: a pending wake-up
	quit     chan struct{} // closed by Stop
	done     chan struct{} // closed when the loop and the pool are gone
	once     sync.Once

	pool    *pool // nil for Inline
	wakes   atomic.Int64
	dropped int // pending at Stop, set before quit closes
}

// NewService starts a service (its goroutine, and its workers for Pool).
// Stop it to release them.
func NewService(opts ServiceOptions) (*Service, error) {
	if opts.Strategy.pool && opts.Strategy.workers < 1 {
		return nil, &temporal.OptionError{Method: "NewService", Param: "Strategy", Want: "Inline() or Pool(n) with n >= 1", Got: opts.Strategy}
	}
	geo := opts.Geometry
	if geo.IsZero() {
		geo = wheel.Default()
	}
	var fe *wheel.FieldError
	if err := geo.Check(); errors.As(err, &fe) {
		return nil, &temporal.OptionError{Method: "NewService", Param: "Geometry." + fe.Field, Want: fe.Want, Got: fe.Got}
	}
	g := timerq.Geometry{Tick: int64(geo.Tick), Slots: geo.Slots}
	shards := opts.Shards
	if shards == 0 {
		shards = min(2*runtime.GOMAXPROCS(0), 256)
	}
	if shards < 1 || shards > 256 {
		return nil, &temporal.OptionError{Method: "NewService", Param: "Shards", Want: "0 (the default) or 1 to 256", Got: shards}
	}
	q, err := timerq.NewSharded[func()](g, 0, shards)
	if err != nil {
		return nil, err // unreachable: both were checked above
	}
	if opts.Logger != nil {
		q.SetLogger(opts.Logger)
	}
	s := &Service{
		q: q, origin: time.Now(), log: opts.Logger,
		wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
	}
	s.target.Store(math.MaxInt64)
	if opts.Strategy.pool {
		s.pool = newPool(opts.Strategy.workers, &s.stopping)
	}
	go s.loop()
	return s, nil
}

// Timer is a scheduled callback, a small value. The zero Timer names none.
type Timer struct {
	s *Service
	h timerq.Handle
}

// Stop cancels the callback: true means it was pending and now never runs;
// false means it was already taken out to run (it was due: it runs, or
// has run, unless the service stops before it starts), was stopped
// before, or the service stopped. It does not wait for a callback that
// has started.
func (t Timer) Stop() bool {
	return t.s != nil && t.s.q.Remove(t.h)
}

func (s *Service) now() int64 { return int64(time.Since(s.origin)) }

// Schedule runs f once, d from now (d = 0: at the next turn of the loop),
// unless the returned Timer is stopped first. Safe from any goroutine,
// callbacks included. It fails, changing nothing, for a nil f, a negative
// d, a d whose deadline overflows, or a stopped service.
func (s *Service) Schedule(d temporal.Duration, f func()) (Timer, error) {
	if f == nil {
		return Timer{}, &temporal.OptionError{Method: "Service.Schedule", Param: "f", Want: "a function", Got: "nil"}
	}
	if d < 0 {
		return Timer{}, &temporal.OptionError{Method: "Service.Schedule", Param: "d", Want: "a duration >= 0", Got: d}
	}
	now := s.now()
	if int64(d) > math.MaxInt64-now {
		return Timer{}, &temporal.OptionError{Method: "Service.Schedule", Param: "d",
			Want: fmt.Sprintf("a duration <= %v (the service's clock ends at 2^63-1 ns)", temporal.Duration(math.MaxInt64-now)), Got: d}
	}
	when := now + int64(d)
	h, err := s.q.Add(when, f)
	if err != nil {
		return Timer{}, ErrServiceStopped
	}
	// No lost wake-up: the loop publishes target only after reading every
	// shard, and before that it holds math.MaxInt64. Our Add is ordered
	// with the loop's read of our shard by the shard's lock. If the read
	// came after the Add, the loop saw our deadline. If it came before,
	// target was stored (MaxInt64 or the new deadline) before that read,
	// so the load below sees that store or a later one: either way a
	// deadline earlier than the loop's sleep sends a token, which the
	// capacity-1 channel keeps until the loop selects on it.
	if when < s.target.Load() {
		select {
		case s.wake <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
	return Timer{s: s, h: h}, nil
}

// Pending returns the number of callbacks waiting for their deadline.
func (s *Service) Pending() int { return s.q.Len() }

// Stop stops the service. From the moment Stop is called no callback
// starts: Schedule fails with ErrServiceStopped, pending callbacks are
// dropped (Stop on their Timers reports false), and so are callbacks
// already due that have not started (the rest of those due at one
// instant, those queued for the pool's workers). The service checks just
// before it calls each callback; a check that comes after Stop was called
// drops the callback.
//
// Stop waits for the callbacks already running (at most one with Inline,
// one per worker with Pool): it returns nil once they have returned and the
// loop and every worker are gone, so after a nil return no callback runs.
// If ctx ends first it returns ctx.Err(), and they still exit as soon as
// the running callbacks return. A callback may call Stop, and no other
// callback starts after that call, but Stop cannot wait for the callback
// it is called from: it returns only when ctx ends, so pass a context that
// is already done (Stop then returns ctx.Err() at once). Stop may be
// called more than once and from any goroutine.
func (s *Service) Stop(ctx context.Context) error {
	s.stopping.Store(true)
	s.once.Do(func() {
		s.dropped = s.q.Stop()
		close(s.quit)
	})
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Service) loop() {
	defer close(s.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	run := func(_ int64, f func()) {
		if !s.stopping.Load() {
			f()
		}
	}
	var batch []func() // Pool: the due callbacks, handed over under one lock
	if s.pool != nil {
		run = func(_ int64, f func()) { batch = append(batch, f) }
	}
	for {
		// Awake: every Schedule from here on sends a wake-up token.
		s.target.Store(math.MaxInt64)
		now := s.now()
		if n := s.q.Due(now, run); n > 0 {
			if s.pool != nil {
				s.pool.put(batch)
				clear(batch)
				batch = batch[:0]
			}
			if s.log != nil {
				s.trace("service: fire", slog.Int("due", n), slog.Duration("at", time.Duration(now)))
			}
		}
		// A token sent so far is for an Add that Next reads below: drop it,
		// or a callback's own Schedule would wake the loop for nothing.
		select {
		case <-s.wake:
		default:
		}
		next, ok := s.q.Next()
		var expiry <-chan time.Time
		if ok {
			s.target.Store(next)
			wait := time.Duration(next - s.now())
			if wait <= 0 {
				continue
			}
			timer.Reset(wait)
			expiry = timer.C
			if s.log != nil {
				s.trace("service: sleep", slog.Duration("until", time.Duration(next)))
			}
		} else if s.log != nil {
			s.trace("service: idle, sleeping until a Schedule")
		}
		select {
		case <-expiry:
			s.wakes.Add(1)
		case <-s.wake:
			timer.Stop()
			s.wakes.Add(1)
			if s.log != nil {
				s.trace("service: woken by an earlier deadline")
			}
		case <-s.quit:
			if s.log != nil {
				s.trace("service: stop", slog.Int("dropped", s.dropped))
			}
			if s.pool != nil {
				s.pool.close()
			}
			return
		}
	}
}

func (s *Service) trace(msg string, attrs ...slog.Attr) {
	s.log.LogAttrs(context.Background(), slog.LevelDebug, msg, attrs...)
}

// pool is n workers reading a FIFO of due callbacks. The FIFO is a ring
// that grows and never blocks the loop. A worker drops the callbacks it
// takes once stopping is set.
type pool struct {
	stopping *atomic.Bool
	mu       sync.Mutex
	cond     sync.Cond
	ring     []func()
	head, n  int
	closing  bool
	workers  int
	wg       sync.WaitGroup
}

func newPool(n int, stopping *atomic.Bool) *pool {
	p := &pool{ring: make([]func(), 64), workers: n, stopping: stopping}
	p.cond.L = &p.mu
	p.wg.Add(n)
	for range n {
		go p.work()
	}
	return p
}

// put queues fs in order and wakes as many workers, at most all.
func (p *pool) put(fs []func()) {
	p.mu.Lock()
	if p.n+len(fs) > len(p.ring) {
		r := make([]func(), max(2*len(p.ring), p.n+len(fs)))
		for i := range p.n {
			r[i] = p.ring[(p.head+i)%len(p.ring)]
		}
		p.ring, p.head = r, 0
	}
	for _, f := range fs {
		p.ring[(p.head+p.n)%len(p.ring)] = f
		p.n++
	}
	p.mu.Unlock()
	for range min(len(fs), p.workers) { // no more wake-ups than work
		p.cond.Signal()
	}
}

func (p *pool) work() {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		for p.n == 0 && !p.closing {
			p.cond.Wait()
		}
		if p.n == 0 {
			p.mu.Unlock()
			return
		}
		f := p.ring[p.head]
		p.ring[p.head] = nil
		p.head = (p.head + 1) % len(p.ring)
		p.n--
		p.mu.Unlock()
		if !p.stopping.Load() {
			f()
		}
	}
}

// close drops what is queued (the service is stopping, so none of it
// would start) and waits for the workers to exit.
func (p *pool) close() {
	p.mu.Lock()
	p.closing = true
	clear(p.ring)
	p.head, p.n = 0, 0
	p.mu.Unlock()
	p.cond.Broadcast()
	p.wg.Wait()
}

package keyed

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/metronome-rt/metronome/runtime/cadence"
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

// batch is the records that came due at one wake-up, handed to the pool
// as one. It is cut into chunks: a worker that receives it claims a whole
// chunk at a time, runs its records one by one, and then helps with the
// chunks other workers still run, so that a slow callback holds up only
// itself and the rest of a chunk goes on elsewhere.
//
// A large batch is published while the scheduler still drains it: ts has
// room for every record the wake-up can give, and the scheduler publishes
// each chunk once it is full. A worker gets the batch once wakeMin records
// are published, runs the chunks as they come, and parks when it catches
// up, until wakeMin more wait; the batch is sealed when the drain ends,
// and only then sent to the other workers.
type batch struct {
	ts      []*Timer     // room for every record of the wake-up; the workers read ts[:published]
	size    int          // records per chunk
	pub     atomic.Int64 // records published << 1, | 1 once sealed
	claim   atomic.Int64 // the next chunk to claim
	left    atomic.Int64 // records published and not finished, + 1 until sealed: the worker that ends the last wakes the scheduler
	holders atomic.Int64 // workers it was sent to that did not let it go
	waiters atomic.Int64 // workers parked until more is published
	chunks  []chunk

	// The scheduler's.
	n       int  // records written to ts
	pubN    int  // records published
	ready   int  // chunks whose cursor was reset for this batch
	woke    int  // records published when the workers were last sent or woken
	sent    int  // workers it was sent to
	early   bool // publish chunks during the drain
	counted bool // its records left s.inflight
}

// chunk is the cursor of a chunk's records, on a cache line of its own:
// its claimer takes records without contending with the others.
type chunk struct {
	next atomic.Int64
	_    [56]byte
}

// Chunks of 256 records keep a worker on its own cursor; at least 8 per
// worker keep the workers equally busy in a small batch. A batch that may
// reach earlyMin records is published chunk by chunk while it is drained,
// and its workers are woken once wakeMin more records wait: a worker runs
// records faster than the drain gives them, and waiting for each chunk
// would cost a wake-up, or a spinning core, per chunk.
const (
	chunkMax       = 256
	chunksByWorker = 8
	wakeMin        = 8 * chunkMax
	earlyMin       = 2 * wakeMin
)

// open starts the batch of this wake-up, with room for every record it
// can give: those waiting in s.out, and one per queued entry, since every
// generation has one entry and gives at most one record a wake-up (a
// cleanup's entry is gone, and it waits in s.out). s.mu held.
func (s *Scheduler) open() {
	bound := len(s.out) + s.q.Len()
	var b *batch
	if n := len(s.spare); n > 0 {
		b, s.spare = s.spare[n-1], s.spare[:n-1]
	} else {
		b = &batch{}
	}
	if cap(b.ts) < bound {
		b.ts = make([]*Timer, bound)
	}
	b.ts = b.ts[:bound]
	b.cut(bound, s.workers)
	b.pub.Store(0)
	b.claim.Store(0)
	b.left.Store(1)
	b.holders.Store(0)
	b.waiters.Store(0)
	b.n, b.pubN, b.ready, b.woke, b.sent, b.counted = 0, 0, 0, 0, 0, false
	b.early = bound >= s.earlyMin
	s.cur = b
	b.n = copy(b.ts, s.out)
	clear(s.out)
	s.out = s.out[:0]
}

// cut sizes b's chunks for n records and workers. The cursors are
// reset as their chunks are published.
func (b *batch) cut(n, workers int) {
	b.size = min(max(n/(chunksByWorker*workers), 1), chunkMax)
	nc := (n + b.size - 1) / b.size
	if cap(b.chunks) < nc {
		b.chunks = make([]chunk, nc)
	}
	b.chunks = b.chunks[:nc]
}

// emit puts t in the open batch, publishing a chunk once it is full, or
// in s.out for the next one. s.mu held.
func (s *Scheduler) emit(t *Timer) {
	b := s.cur
	if b == nil || b.n == len(b.ts) {
		s.out = append(s.out, t)
		return
	}
	b.ts[b.n] = t
	b.n++
	if b.early && b.n-b.pubN >= b.size {
		s.publish(b, false)
	}
}

// publish makes ts[:n] visible to the workers, sealed when the batch is
// complete, and sends the batch to its first worker. s.mu held.
func (s *Scheduler) publish(b *batch, seal bool) {
	for ; b.ready*b.size < b.n; b.ready++ {
		b.chunks[b.ready].next.Store(0)
	}
	b.left.Add(int64(b.n - b.pubN))
	b.pubN = b.n
	p := int64(b.n) << 1
	if seal {
		p |= 1
	}
	b.pub.Store(p)
	if !seal && b.pubN-b.woke < wakeMin {
		return
	}
	b.woke = b.pubN
	if b.sent == 0 {
		s.send(b, 1)
	}
	if w := b.waiters.Load(); w > 0 {
		for range w {
			select {
			case s.more <- struct{}{}:
			default:
			}
		}
	}
}

// send hands b to k more workers, through the outbox if the pool's channel
// is full. s.mu held.
func (s *Scheduler) send(b *batch, k int) {
	b.holders.Add(int64(k))
	b.sent += k
	for range k {
		select {
		case s.work <- b:
			s.handoffs++
		default:
			s.outbox = append(s.outbox, b)
		}
	}
}

// seal ends the open batch: the rest is published, it counts as in
// flight, and it goes to as many workers as it has chunks, up to Workers.
// s.mu held.
func (s *Scheduler) seal() {
	b := s.cur
	s.cur = nil
	if b.n == 0 {
		s.spare = append(s.spare, b)
		return
	}
	if b.pubN == 0 { // no worker has it yet: cut it for its size, not its bound
		b.cut(b.n, s.workers)
	}
	if s.onBatch != nil {
		s.onBatch(b.n)
	}
	s.publish(b, true)
	s.inflight += b.n
	s.pending = append(s.pending, b)
	s.batches++
	if k := min(s.workers, (b.n+b.size-1)/b.size) - b.sent; k > 0 {
		s.send(b, k)
	}
	if b.left.Add(-1) == 0 {
		s.signal() // the workers ran it all during the drain
	}
	if len(s.out) > 0 {
		s.signal()
	}
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
	alarm := s.clock.NewAlarm()
	defer alarm.Stop()
	alarmAt := int64(cadence.Never)
	for {
		select { // a wake-up the last select did not take: the alarm is unarmed now
		case <-alarm.C():
			alarmAt = cadence.Never
		default:
		}
		s.mu.Lock()
		now := s.clock.Now()
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
				alarm.Set(next)
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

// collect takes back the records the workers gave back and the batches
// they finished. s.mu held.
func (s *Scheduler) collect(now int64) {
	for w := range s.given {
		for t := s.given[w].top.Swap(nil); t != nil; {
			next := t.next
			t.next = nil
			s.returned(t, now)
			t = next
		}
	}
	kept := s.pending[:0]
	for _, b := range s.pending {
		if !b.counted {
			if b.left.Load() != 0 {
				kept = append(kept, b)
				continue
			}
			s.inflight -= b.n
			b.counted = true
		}
		if b.holders.Load() != 0 {
			kept = append(kept, b)
			continue
		}
		clear(b.ts[:b.n])
		s.spare = append(s.spare, b)
	}
	clear(s.pending[len(kept):])
	s.pending = kept
}

// returned takes t back from the pool: a cleanup that ran, a cancelled
// tick, or a tick whose worker is done with it, which is admitted again.
// s.mu held.
func (s *Scheduler) returned(t *Timer, now int64) {
	if t.job == jobCleanup {
		t.where = gone
		return
	}
	t.where = nowhere
	if t.state.Load()&stCancelled != 0 {
		s.finishCancel(t)
		s.unblock(t, now)
		return
	}
	if t.hasResume {
		t.cad.Resume(t.resumeAt)
		t.hasResume = false
	}
	t.state.Store(0)
	s.admit(t, now)
}

// unblock lets the key's current generation tick once the older one, t,
// is back from the pool. s.mu held.
func (s *Scheduler) unblock(t *Timer, now int64) {
	sl := t.slot
	if sl.oldRunning != t {
		return
	}
	sl.oldRunning = nil
	if c := sl.cur; c != nil && c.waitOld {
		c.waitOld = false
		if c.where == inBlocked {
			c.where = nowhere
			s.admit(c, now)
		}
	}
}

// landed reports whether the in-flight tick t is back and not given back:
// its worker is done with it and left it to the scheduler. If not, its
// worker gives it back. s.mu held.
func landed(t *Timer) bool {
	st := t.state.Load()
	if st&stDone == 0 {
		st = t.state.Or(stWanted) // the worker gives it back when done
	}
	// Wanted before it was done, here or by a catch-up in admit: given
	// back, and taken back from the worker's stack, not here.
	return st&(stDone|stWanted) == stDone
}

// drain admits every timer due by now. Each is re-keyed past now: to its
// next tick, to its likely next tick while in flight, or to Never while it
// waits elsewhere. A tick back from the pool stays keyed at its likely
// next tick and is taken back here when that comes due, so the scheduler
// touches a timer once per tick. s.mu held.
func (s *Scheduler) drain(now int64) {
	d := s.q.Drain(now)
	var back [prefetchAhead]timerq.ID // the entries drained last, by i mod prefetchAhead
	for i := 0; ; i++ {
		id, _, _, t, ok := d.Peek()
		if !ok {
			return
		}
		s.prefetchAfter(id, t, &back[i%prefetchAhead], i >= prefetchAhead)
		if t.where == inFlight {
			if landed(t) {
				s.returned(t, now)
			} else { // a handler overran its likely next tick
				s.hold(t, inFlight)
			}
			continue
		}
		t.where = nowhere
		s.admit(t, now)
	}
}

// due reports whether a queued entry is due by now. s.mu held.
func (s *Scheduler) due(now int64) bool {
	_, w, _, _, ok := s.q.Peek()
	return ok && w <= now
}

// Timers that come due together usually come due together again, in the
// same order, so each drain notes which timer came prefetchAhead places
// after each entry, and fetches that one's first two cache lines while it
// works on the entry: the timers are otherwise read one cache miss after
// another, which was the drain's largest cost.
const prefetchAhead = 8

// prefetchAfter prefetches the timer that came prefetchAhead places after
// id in an earlier drain, and notes t as the one after the entry drained
// prefetchAhead places before it, in *slot. The note is an address only:
// a stale one, after a cancel or a change of order, costs a useless
// prefetch. s.mu held.
func (s *Scheduler) prefetchAfter(id timerq.ID, t *Timer, slot *timerq.ID, full bool) {
	if int(id) < len(s.ahead) {
		if a := s.ahead[id]; a != 0 {
			prefetch(a)
		}
	}
	if full {
		b := int(*slot)
		if b >= len(s.ahead) {
			s.ahead = append(s.ahead, make([]uintptr, b+1-len(s.ahead))...)
		}
		s.ahead[b] = uintptr(unsafe.Pointer(t))
	}
	*slot = id
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
	if t.waitOld {
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
	if next := c.Due(); next > now {
		s.rekey(t, next)
	} else {
		// More is due already (a catch-up): the worker gives it back
		// rather than leave it to the queue.
		s.rekey(t, now+1)
		t.state.Store(stWanted)
	}
	s.emit(t)
}

// queue keys t's entry at its next tick. Every generation keeps one entry
// in the queue from Register to its cancel. s.mu held.
func (s *Scheduler) queue(t *Timer) {
	s.rekey(t, t.cad.Due())
	t.where = inQueue
}

// rekey keys t's entry at at; the queue does nothing for the same key.
// s.mu held.
func (s *Scheduler) rekey(t *Timer, at int64) { s.q.Update(t.hid, at, t.seq) }

// hold keys t's entry at Never while it waits at where. s.mu held.
func (s *Scheduler) hold(t *Timer, where place) {
	s.rekey(t, cadence.Never)
	t.where = where
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
		n := 0
		for {
			c := int(b.claim.Add(1) - 1)
			lo := c * b.size
			end, sealed := s.await(b, lo+b.size)
			if lo >= end && sealed {
				n = end
				break
			}
			if ran := s.runChunk(b, c, min(b.size, end-lo), g); !sealed {
				s.early.Add(ran)
			}
		}
		for c := 0; c*b.size < n; c++ { // help with the chunks still running
			s.runChunk(b, c, min(b.size, n-c*b.size), g)
		}
		b.holders.Add(-1) // b may be reused from here
	}
}

// await waits until b has published want records or is sealed, and
// returns how many it published: it parks until the scheduler wakes it
// with wakeMin more records, or seals the batch.
func (s *Scheduler) await(b *batch, want int) (published int, sealed bool) {
	for {
		p := b.pub.Load()
		if p&1 != 0 || int(p>>1) >= want {
			return int(p >> 1), p&1 != 0
		}
		b.waiters.Add(1)
		if p = b.pub.Load(); p&1 == 0 && int(p>>1) < want {
			<-s.more // the scheduler publishes after it reads waiters, or we saw it
		}
		b.waiters.Add(-1)
	}
}

// runChunk runs the records of chunk c (n of them) not claimed yet, one
// by one, wakes the scheduler if they were the batch's last, and returns
// how many it ran.
func (s *Scheduler) runChunk(b *batch, c, n int, g *givenStack) int64 {
	lo := c * b.size
	cur := &b.chunks[c].next
	if cur.Load() >= int64(n) {
		return 0
	}
	ran := int64(0)
	for {
		i := cur.Add(1) - 1
		if i >= int64(n) {
			break
		}
		s.run(b.ts[lo+int(i)], g)
		ran++
	}
	if ran > 0 && b.left.Add(-ran) == 0 {
		s.signal()
	}
	return ran
}

// run is one record on a worker: a cleanup, or a tick, which starts only
// if the generation was not cancelled and the authority still admits it
// under the fence it was queued with.
func (s *Scheduler) run(t *Timer, g *givenStack) {
	if t.job == jobCleanup {
		s.finish(t.done, t.onCancel())
		s.give(t, g)
		return
	}
	if s.beforeStart != nil {
		s.beforeStart(t)
	}
	if t.state.Or(stStarted)&stCancelled == 0 {
		now := s.clock.Now()
		if l, held := t.owner.auth.Lease(); held && l.Fence == t.fence && now < l.Deadline {
			if tk, ok := t.cad.Take(now); ok {
				t.fn(Fire{tk, t.key, t.gen, t.fence})
				t.cad.Ended(s.clock.Now())
			}
		}
	}
	if s.gate != nil {
		s.gate.Release(t)
	}
	if t.state.Or(stDone)&(stCancelled|stWanted) != 0 {
		s.give(t, g)
	}
}

// give hands t back to the scheduler and wakes it if the stack was empty.
func (s *Scheduler) give(t *Timer, g *givenStack) {
	for {
		old := g.top.Load()
		t.next = old
		if g.top.CompareAndSwap(old, t) {
			if old == nil {
				s.signal()
			}
			return
		}
	}
}

// signal wakes the scheduler goroutine.
func (s *Scheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

package keyed

import "sync/atomic"

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

package keyed

import "sync/atomic"

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
		now := s.now()
		if l, held := t.owner.auth.Lease(); held && l.Admits(now, t.fence) {
			if tk, ok := t.cad.Take(now); ok {
				t.fn(Fire{tk, t.key, t.gen, t.fence})
				t.cad.Ended(s.now())
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

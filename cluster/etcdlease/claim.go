package etcdlease

import (
	"context"
	"math"

	"github.com/metronome-rt/metronome/runtime/cadence"
	clientv3 "go.etcd.io/etcd/client/v3"
)

type note struct {
	c  *Claim
	ch Change
}

// Claim is this process's claim on one owner id: owned, or a standby.
type Claim struct {
	s       *Store
	id, key string
	refresh func()

	// Guarded by s.mu.
	fence  uint64 // the key's create revision while this process owns it; 0 otherwise
	hold   int64  // after Resign: no campaign before this instant, unless another took the key
	seen   int64  // the revision of the newest event or sync that told of the key
	closed bool
}

// ID returns the owner id.
func (c *Claim) ID() string { return c.id }

// Key returns the ownership key.
func (c *Claim) Key() string { return c.key }

// Lease is cadence.Authority: the fence and deadline while this process owns
// the id; held is false for a standby.
func (c *Claim) Lease() (cadence.Lease, bool) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.fence == 0 {
		return cadence.Lease{}, false
	}
	return cadence.Lease{Fence: c.fence, Deadline: s.deadline}, true
}

// Owned reports whether this process owns the id now: the claim is held
// and its lease's deadline has not passed.
func (c *Claim) Owned() bool {
	l, held := c.Lease()
	return held && c.s.now() < l.Deadline
}

// Resign gives the id up: no tick is admitted under the claim from the
// call on, and the key is deleted if it is still this ownership's. The
// claim stays a standby, and does not campaign again until another process
// took the key or one TTL passed. Resigning a standby does nothing.
func (c *Claim) Resign(ctx context.Context) error {
	s := c.s
	s.mu.Lock()
	if c.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	f := c.fence
	if f != 0 {
		s.lose(c, "resigned")
		c.hold = satAdd(s.now(), int64(s.o.TTL))
		s.pending[c] = struct{}{}
	}
	s.mu.Unlock()
	s.poke(s.wake)
	if f == 0 {
		return nil
	}
	return s.deleteKey(ctx, c.key, f)
}

// Close gives the id up for good (as Resign, without campaigning again)
// and forgets the claim: the id may be claimed again.
func (c *Claim) Close(ctx context.Context) error {
	s := c.s
	s.mu.Lock()
	if c.closed {
		s.mu.Unlock()
		return nil
	}
	c.closed = true
	f := c.fence
	if f != 0 {
		s.lose(c, "closed")
	}
	delete(s.pending, c)
	if s.claims[c.id] == c {
		delete(s.claims, c.id)
	}
	s.mu.Unlock()
	if f == 0 {
		return nil
	}
	return s.deleteKey(ctx, c.key, f)
}

// FenceCmp is the comparison "key was created at fence": true while the
// ownership that fence names lasts.
func FenceCmp(key string, fence uint64) clientv3.Cmp {
	return clientv3.Compare(clientv3.CreateRevision(key), "=", int64(min(fence, math.MaxInt64)))
}

// FencedTxn starts a transaction that succeeds only while the ownership
// named by fence (a tick's Fence) lasts, and cmps hold:
//
//	resp, err := claim.FencedTxn(ctx, fire.Fence).Then(clientv3.OpPut("score", v)).Commit()
//	// resp.Succeeded false: another process owns the id now; nothing was written
func (c *Claim) FencedTxn(ctx context.Context, fence uint64, cmps ...clientv3.Cmp) clientv3.Txn {
	return c.s.cli.Txn(ctx).If(append([]clientv3.Cmp{FenceCmp(c.key, fence)}, cmps...)...)
}

// lose ends c's ownership. s.mu held.
func (s *Store) lose(c *Claim, why string) {
	if c.fence == 0 {
		return
	}
	s.notify(c, Change{ID: c.id, Owned: false, Fence: c.fence, Why: why})
	c.fence = 0
}

// gain makes c the owner under fence. s.mu held.
func (s *Store) gain(c *Claim, fence uint64, why string) {
	if c.fence == fence {
		return
	}
	if c.fence != 0 {
		s.lose(c, "superseded")
	}
	c.fence = fence
	s.notify(c, Change{ID: c.id, Owned: true, Fence: fence, Why: why})
}

// notify queues a change for the notification loop. s.mu held.
func (s *Store) notify(c *Claim, ch Change) {
	s.notes = append(s.notes, note{c, ch})
	s.poke(s.note)
}

// noteLoop delivers changes in order, outside the Store's locks; once
// the Store is closed, it delivers what is left and ends.
func (s *Store) noteLoop() {
	defer close(s.noteDone)
	for {
		select {
		case <-s.ctx.Done():
			s.wg.Wait() // the other loops queue no more
			for s.flush() {
			}
			return
		case <-s.note:
			s.flush()
		}
	}
}

// flush delivers the queued changes; it reports whether there were any.
func (s *Store) flush() bool {
	s.mu.Lock()
	notes := s.notes
	s.notes = nil
	s.calling = len(notes) > 0
	s.mu.Unlock()
	for _, n := range notes {
		if s.o.OnChange != nil {
			s.o.OnChange(n.ch)
		}
		if n.c.refresh != nil {
			n.c.refresh()
		}
	}
	s.mu.Lock()
	s.calling = false
	s.mu.Unlock()
	return len(notes) > 0
}

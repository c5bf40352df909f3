package etcdlease

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// queue asks the campaign loop to campaign for c.
func (s *Store) queue(c *Claim) {
	s.mu.Lock()
	if !c.closed {
		s.pending[c] = struct{}{}
	}
	s.mu.Unlock()
	s.poke(s.wake)
}

// campaignLoop campaigns for the pending claims whose hold passed.
func (s *Store) campaignLoop() {
	defer s.wg.Done()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		now := s.now()
		next := int64(math.MaxInt64)
		var due []*Claim
		s.mu.Lock()
		lease := s.lease
		for c := range s.pending {
			if c.hold > now {
				next = min(next, c.hold)
				continue
			}
			due = append(due, c)
		}
		if lease != 0 {
			for _, c := range due {
				delete(s.pending, c)
			}
		} else {
			due = nil // the grant queues them again
		}
		s.mu.Unlock()
		for _, c := range due {
			ctx, cancel := s.request()
			s.campaign(ctx, c, lease)
			cancel()
		}
		var alarm <-chan time.Time
		if next != math.MaxInt64 {
			t.Reset(time.Duration(next - s.now()))
			alarm = t.C
		}
		select {
		case <-s.ctx.Done():
			return
		case <-s.wake:
		case <-alarm:
		}
		t.Stop()
	}
}

// campaign creates c's key under lease if nobody holds it.
func (s *Store) campaign(ctx context.Context, c *Claim, lease clientv3.LeaseID) {
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(c.key), "=", 0)).
		Then(clientv3.OpPut(c.key, s.o.Value, clientv3.WithLease(lease))).
		Else(clientv3.OpGet(c.key)).
		Commit()
	s.mu.Lock()
	s.stats.Campaigns++
	if err != nil {
		if !c.closed && s.lease == lease {
			c.hold = satAdd(s.now(), int64(s.o.Retry))
			s.pending[c] = struct{}{}
		}
		s.mu.Unlock()
		s.poke(s.wake)
		return
	}
	// An answer older than what the watch or a sync told since is stale:
	// the key it saw may be gone, or another's, and that news was handled.
	stale := resp.Header.Revision < c.seen
	c.seen = max(c.seen, resp.Header.Revision)
	var fence uint64
	if resp.Succeeded {
		fence = uint64(resp.Header.Revision)
		if c.fence != 0 && c.fence != fence && !stale {
			// Created anew: the key held under c.fence is gone, whether or
			// not the watch has said so yet (a sync campaigned first).
			s.lose(c, "key deleted")
		}
	} else if kvs := resp.Responses[0].GetResponseRange().GetKvs(); len(kvs) == 1 && kvs[0].Lease == int64(lease) {
		fence = uint64(kvs[0].CreateRevision) // ours already (a resync, a retried campaign)
	} else if len(kvs) == 1 && !stale && c.fence != 0 && uint64(kvs[0].CreateRevision) != c.fence {
		s.lose(c, "key held by another lease")
	}
	if fence == 0 {
		s.mu.Unlock()
		return // a standby: the watch says when the key goes
	}
	if c.closed || s.lease != lease || stale {
		s.mu.Unlock()
		// Closed meanwhile, or the lease went: the key is nobody's to keep.
		// Stale: the key deleted meanwhile (then the delete queued a
		// campaign) or reconciled by a sync.
		if c.closed {
			_ = s.deleteKey(ctx, c.key, fence)
		}
		return
	}
	c.hold = 0
	s.gain(c, fence, "acquired")
	s.mu.Unlock()
}

// deleteKey deletes key if it is still the ownership fence names.
func (s *Store) deleteKey(ctx context.Context, key string, fence uint64) error {
	s.mu.Lock()
	s.stats.Resigns++
	s.mu.Unlock()
	_, err := s.cli.Txn(ctx).If(FenceCmp(key, fence)).Then(clientv3.OpDelete(key)).Commit()
	if err != nil {
		return fmt.Errorf("etcdlease: deleting %s: %w", key, err)
	}
	return nil
}

// watchLoop follows every ownership key under the prefix: a key that goes
// is lost by its owner here and campaigned for by the standbys. After a
// watch error it reads the keys again (sync) and watches from there.
func (s *Store) watchLoop() {
	defer s.wg.Done()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for s.ctx.Err() == nil {
		rev, err := s.sync()
		if err == nil {
			s.follow(rev)
		}
		if s.ctx.Err() != nil {
			return
		}
		t.Reset(s.o.Retry.Std())
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Store) follow(rev int64) {
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(s.ctx))
	defer cancel()
	wch := s.cli.Watch(ctx, s.o.Prefix, clientv3.WithPrefix(), clientv3.WithPrevKV(), clientv3.WithRev(rev+1))
	for wr := range wch {
		if wr.Err() != nil || wr.Canceled {
			return
		}
		for _, ev := range wr.Events {
			s.event(ev)
		}
	}
}

func (s *Store) event(ev *clientv3.Event) {
	id, ok := strings.CutPrefix(string(ev.Kv.Key), s.o.Prefix)
	if !ok {
		return
	}
	s.mu.Lock()
	c := s.claims[id]
	if c == nil {
		s.mu.Unlock()
		return
	}
	c.seen = max(c.seen, ev.Kv.ModRevision)
	switch ev.Type {
	case clientv3.EventTypeDelete:
		if c.fence != 0 && (ev.PrevKv == nil || uint64(ev.PrevKv.CreateRevision) == c.fence) {
			s.lose(c, "key deleted")
		}
		if c.fence == 0 && !c.closed {
			s.pending[c] = struct{}{}
			s.poke(s.wake)
		}
	case clientv3.EventTypePut:
		if ev.Kv.Lease != int64(s.lease) && c.fence != 0 && uint64(ev.Kv.ModRevision) > c.fence {
			// Written under another lease after this ownership began:
			// whatever was missed in between, the key is not ours.
			s.lose(c, "key held by another lease")
		}
		if ev.IsCreate() && ev.Kv.Lease != int64(s.lease) {
			// Another process owns it now: a resigned claim campaigns
			// again as soon as the key goes.
			c.hold = 0
			delete(s.pending, c)
		}
	}
	s.mu.Unlock()
}

// sync reads every ownership key and reconciles the claims with them; it
// returns the revision read at.
func (s *Store) sync() (int64, error) {
	ctx, cancel := s.request()
	resp, err := s.cli.Get(ctx, s.o.Prefix, clientv3.WithPrefix())
	cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Syncs++
	if err != nil {
		return 0, err
	}
	held := make(map[string]uint64, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		if kv.Lease == int64(s.lease) && s.lease != 0 {
			held[string(kv.Key)] = uint64(kv.CreateRevision)
		} else {
			held[string(kv.Key)] = 0 // another's
		}
	}
	for _, c := range s.claims {
		if resp.Header.Revision < c.seen {
			continue // older than what a campaign or the watch told since
		}
		c.seen = resp.Header.Revision
		f, exists := held[c.key]
		switch {
		case f != 0:
			s.gain(c, f, "acquired")
		case exists:
			s.lose(c, "key held by another lease")
		default:
			s.lose(c, "key deleted")
			s.pending[c] = struct{}{}
			s.poke(s.wake)
		}
	}
	return resp.Header.Revision, nil
}

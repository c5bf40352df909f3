package etcdlease

import (
	"errors"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// keepLoop holds the lease: a grant when there is none, then a keep-alive
// every TTL/3.
func (s *Store) keepLoop() {
	defer s.wg.Done()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		s.mu.Lock()
		id := s.lease
		s.mu.Unlock()
		var wait time.Duration
		if id == 0 {
			wait = s.grant()
		} else {
			wait = s.keepAlive(id)
		}
		t.Reset(wait)
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// renewEvery is the keep-alive period.
func (s *Store) renewEvery() time.Duration { return (s.o.TTL / 3).Std() }

func (s *Store) grant() time.Duration {
	sent := s.now()
	ctx, cancel := s.request()
	resp, err := s.cli.Grant(ctx, s.ttl)
	cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Grants++
	if err != nil || s.closed {
		return s.o.Retry.Std()
	}
	select {
	case <-s.granted:
	default:
		close(s.granted)
	}
	s.lease, s.lapsed = resp.ID, false
	s.deadline = satAdd(sent, resp.TTL*int64(time.Second)-int64(s.o.Margin))
	s.armLapse()
	for _, c := range s.claims {
		s.pending[c] = struct{}{}
	}
	s.poke(s.wake)
	return s.renewEvery()
}

func (s *Store) keepAlive(id clientv3.LeaseID) time.Duration {
	sent := s.now()
	ctx, cancel := s.request()
	resp, err := s.cli.KeepAliveOnce(ctx, id)
	cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.KeepAlives++
	if s.lease != id {
		return 0
	}
	switch {
	case errors.Is(err, rpctypes.ErrLeaseNotFound) || (err == nil && resp.TTL <= 0):
		// Expired or revoked: the keys went with it.
		s.lease, s.deadline, s.lapsed = 0, 0, false
		for _, c := range s.claims {
			s.lose(c, "lease expired")
		}
		return 0
	case err != nil:
		return s.o.Retry.Std()
	}
	if !s.lapsed && s.now() >= s.deadline {
		s.lapse() // before the lapse timer could: told first all the same
	}
	lapsed := s.lapsed
	s.lapsed = false
	s.deadline = max(s.deadline, satAdd(sent, resp.TTL*int64(time.Second)-int64(s.o.Margin)))
	s.armLapse()
	if lapsed {
		// Admission stopped at the deadline; owners parked their timers
		// and wait for a refresh to resume.
		for _, c := range s.claims {
			if c.fence != 0 {
				s.notify(c, Change{ID: c.id, Owned: true, Fence: c.fence, Why: "renewed after a lapse"})
			}
		}
	}
	return s.renewEvery()
}

// armLapse sets the lapse timer to the deadline. s.mu held.
func (s *Store) armLapse() {
	s.lapseT.Reset(time.Duration(max(s.deadline-s.now(), 0)))
}

// checkLapse runs at the deadline: with no later keep-alive answered,
// admission stopped, and the owned claims are told.
func (s *Store) checkLapse() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.lease == 0 || s.lapsed {
		return
	}
	if now := s.now(); now < s.deadline {
		s.lapseT.Reset(time.Duration(s.deadline - now))
		return
	}
	s.lapse()
}

// lapse marks the deadline passed. s.mu held.
func (s *Store) lapse() {
	s.lapsed = true
	for _, c := range s.claims {
		if c.fence != 0 {
			s.notify(c, Change{ID: c.id, Owned: false, Fence: c.fence, Why: "lease lapsed"})
		}
	}
}

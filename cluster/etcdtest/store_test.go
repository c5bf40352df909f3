package etcdtest_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/metronome-rt/metronome/cluster/etcdlease"
	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/runtime/keyed/authoritytest"
	"github.com/metronome-rt/metronome/temporal"
)

// The etcd store keeps the owner-authority contract the local lease
// keeps (the same test function): lost by resigning, regained when the
// resignation's hold (one TTL) passed.
func TestEtcdLeaseContract(t *testing.T) {
	c := newCluster(t)
	clock := keyed.SystemClock()
	n := 0
	authoritytest.Run(t, authoritytest.Harness{
		Clock:    clock,
		Interval: 5 * temporal.Millisecond,
		Within:   temporal.Duration(ttl + 5*time.Second),
		New: func(t *testing.T, s *keyed.Scheduler) authoritytest.Subject {
			st := c.store(etcdlease.Options{Clock: clock})
			var o atomic.Pointer[keyed.Owner]
			n++
			claim, err := st.Claim(ctx(t), "contract-"+string(rune('a'+n)), func() {
				if p := o.Load(); p != nil {
					p.Refresh()
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, 5*time.Second, "first ownership", claim.Owned)
			owner, err := s.NewOwnerAuthority(claim)
			if err != nil {
				t.Fatal(err)
			}
			o.Store(owner)
			return authoritytest.Subject{
				Owner:     owner,
				Authority: claim,
				Lose: func(t *testing.T) {
					if err := claim.Resign(ctx(t)); err != nil {
						t.Fatal(err)
					}
				},
				Regain: func(*testing.T) {}, // the claim campaigns again after its hold
			}
		},
	})
}

// proc is one process's view of an owner id: a store, a claim, and a
// keyed scheduler ticking under it.
type proc struct {
	store *etcdlease.Store
	claim *etcdlease.Claim
	s     *keyed.Scheduler
	mu    sync.Mutex
	ticks []tickRec
	owned chan struct{} // a gain
}

type tickRec struct {
	fence uint64
	at    int64 // on the store's clock, when the callback started
	slot  int64
	lease cadence.Lease // Lease's answer then
	held  bool
}

func (c *cluster) proc(t *testing.T, id string, clock temporal.Clock, interval temporal.Duration) *proc {
	t.Helper()
	p := &proc{owned: make(chan struct{}, 16)}
	p.store = c.store(etcdlease.Options{Clock: clock, OnChange: func(ch etcdlease.Change) { t.Logf("%s: %v", id, ch) }})
	var err error
	p.s, err = keyed.New(keyed.Options{Clock: clock, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.s.Close() })
	var o atomic.Pointer[keyed.Owner]
	var cl atomic.Pointer[etcdlease.Claim]
	p.claim, err = p.store.Claim(ctx(t), id, func() {
		if ow := o.Load(); ow != nil {
			ow.Refresh()
		}
		if c := cl.Load(); c != nil && c.Owned() {
			select {
			case p.owned <- struct{}{}:
			default:
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	cl.Store(p.claim)
	owner, err := p.s.NewOwnerAuthority(p.claim)
	if err != nil {
		t.Fatal(err)
	}
	o.Store(owner)
	// The delay aligns the grid on the clock, so two processes' slots
	// (ticks of the same nominal instant) compare.
	now := clock.Now().UnixNano()
	delay := temporal.Duration(int64(interval) - now%int64(interval))
	base := now/int64(interval) + 1
	if _, err := owner.Register(keyed.Config{Key: "k", Interval: interval, Delay: delay, Callback: func(f keyed.Fire) {
		l, held := p.claim.Lease()
		p.mu.Lock()
		p.ticks = append(p.ticks, tickRec{f.Fence, clock.Now().UnixNano(), base + f.ScheduledIndex - 1, l, held})
		p.mu.Unlock()
	}}); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *proc) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ticks)
}

func (p *proc) take() []tickRec {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.ticks
	p.ticks = nil
	return out
}

// Two processes claim one id: exactly one owns it and admits ticks.
func TestTwoOwnersOfOneIDExactlyOneAdmits(t *testing.T) {
	c := newCluster(t)
	clock := keyed.SystemClock()
	a := c.proc(t, "spot-42", clock, 5*temporal.Millisecond)
	b := c.proc(t, "spot-42", clock, 5*temporal.Millisecond)
	waitFor(t, 5*time.Second, "an owner", func() bool { return a.claim.Owned() || b.claim.Owned() })
	owner, standby := a, b
	if b.claim.Owned() {
		owner, standby = b, a
	}
	if !owner.claim.Owned() || standby.claim.Owned() {
		t.Fatalf("owned: a %v, b %v; want exactly one", a.claim.Owned(), b.claim.Owned())
	}
	waitFor(t, 5*time.Second, "20 ticks", func() bool { return owner.count() >= 20 })
	if n := standby.count(); n != 0 {
		t.Fatalf("the standby admitted %d ticks", n)
	}
	if _, held := standby.claim.Lease(); held {
		t.Fatal("the standby's Lease is held")
	}
}

// Resign hands the id to the waiting standby within 100ms; no slot is
// delivered by both, and the new owner ticks under a higher fence.
func TestTransferStandbyOwnsWithin100ms(t *testing.T) {
	c := newCluster(t)
	clock := keyed.SystemClock()
	a := c.proc(t, "spot-7", clock, 5*temporal.Millisecond)
	waitFor(t, 5*time.Second, "ownership", a.claim.Owned)
	b := c.proc(t, "spot-7", clock, 5*temporal.Millisecond)
	waitFor(t, 5*time.Second, "ticks", func() bool { return a.count() >= 3 })
	f0, _ := a.claim.Lease()
	start := time.Now()
	if err := a.claim.Resign(ctx(t)); err != nil {
		t.Fatal(err)
	}
	<-b.owned
	took := time.Since(start)
	t.Logf("transfer: the standby owned %v after Resign", took)
	if took > 100*time.Millisecond {
		t.Errorf("the standby owned %v after Resign, want within 100ms", took)
	}
	waitFor(t, 5*time.Second, "the standby's ticks", func() bool { return b.count() >= 3 })
	ta, tb := a.take(), b.take()
	noSharedSlot(t, ta, tb)
	if f1, _ := b.claim.Lease(); f1.Fence <= f0.Fence || tb[0].fence != f1.Fence {
		t.Fatalf("fences: old %d, new %d, the standby's first tick %d", f0.Fence, f1.Fence, tb[0].fence)
	}
}

func noSharedSlot(t *testing.T, a, b []tickRec) {
	t.Helper()
	seen := map[int64]bool{}
	for _, r := range a {
		seen[r.slot] = true
	}
	for _, r := range b {
		if seen[r.slot] {
			t.Fatalf("slot %d delivered by both", r.slot)
		}
	}
}

// A key deleted by someone else: the owner loses at once (no tick under
// the old fence after the delete is seen) and, with nobody else waiting,
// owns it again under a higher fence.
func TestRevokedKeyIsLostAndReclaimed(t *testing.T) {
	c := newCluster(t)
	clock := keyed.SystemClock()
	var changes chan etcdlease.Change = make(chan etcdlease.Change, 16)
	st := c.store(etcdlease.Options{Clock: clock, OnChange: func(ch etcdlease.Change) { changes <- ch }})
	claim, err := st.Claim(ctx(t), "spot-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := <-changes
	if !got.Owned {
		t.Fatalf("first change %v", got)
	}
	if _, err := c.client().Delete(ctx(t), claim.Key()); err != nil {
		t.Fatal(err)
	}
	lost, again := <-changes, <-changes
	if lost.Owned || lost.Fence != got.Fence || lost.Why != "key deleted" || !again.Owned || again.Fence <= got.Fence {
		t.Fatalf("changes after the delete: %v, %v (first %v)", lost, again, got)
	}
}

// The lease revoked behind the store's back (or expired): every claim
// loses, the store takes a new lease and reclaims them.
func TestLostLeaseIsReclaimedUnderANewLease(t *testing.T) {
	c := newCluster(t)
	clock := keyed.SystemClock()
	st := c.store(etcdlease.Options{Clock: clock})
	a, _ := st.Claim(ctx(t), "a", nil)
	b, _ := st.Claim(ctx(t), "b", nil)
	waitFor(t, 5*time.Second, "ownership", func() bool { return a.Owned() && b.Owned() })
	la, _ := a.Lease()
	old := st.Lease()
	if _, err := c.client().Revoke(ctx(t), old); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ttl+5*time.Second, "reclaimed under a new lease", func() bool {
		l, held := a.Lease()
		return held && l.Fence > la.Fence && b.Owned() && st.Lease() != old
	})
}

// etcd stopped: the owner stops admitting ticks within TTL of the stop,
// and no tick starts at or after the deadline in force when it started
// (the last keep-alive's send time + TTL - margin); etcd back: ownership
// is reclaimed and ticks resume under the fence Lease reports.
func TestEtcdStoppedStopsAdmissionAndRestartReclaims(t *testing.T) {
	c := newCluster(t)
	c.needServer()
	clock := keyed.SystemClock()
	p := c.proc(t, "spot-9", clock, 5*temporal.Millisecond)
	waitFor(t, 5*time.Second, "ticks", func() bool { return p.count() >= 3 })
	before, _ := p.claim.Lease()
	c.srv.Stop() // graceful: it may take longer than the TTL
	waitFor(t, ttl+time.Second, "admission ends", func() bool { return !p.claim.Owned() })
	checkAdmitted(t, p.take())
	if err := c.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "reclaimed", p.claim.Owned)
	waitFor(t, 5*time.Second, "ticks again", func() bool { return p.count() >= 3 })
	after, _ := p.claim.Lease()
	t.Logf("fence before the stop %d, after the restart %d", before.Fence, after.Fence)
	checkAdmitted(t, p.take())
}

// checkAdmitted fails if a tick started while its claim did not admit.
func checkAdmitted(t *testing.T, ticks []tickRec) {
	t.Helper()
	for _, r := range ticks {
		if !r.held || r.fence != r.lease.Fence || r.at >= r.lease.Deadline {
			t.Fatalf("tick of slot %d under fence %d started at %d; Lease said held %v, %+v", r.slot, r.fence, r.at, r.held, r.lease)
		}
	}
}

// FencedTxn writes while the fence is the owner's and is refused after
// another process took over.
func TestFencedTxnRefusedAfterTakeover(t *testing.T) {
	c := newCluster(t)
	a := c.store(etcdlease.Options{})
	ca, _ := a.Claim(ctx(t), "spot-3", nil)
	waitFor(t, 5*time.Second, "ownership", ca.Owned)
	la, _ := ca.Lease()
	put := func(v string) bool {
		resp, err := ca.FencedTxn(ctx(t), la.Fence).Then(clientv3.OpPut(c.prefix+"data", v)).Commit()
		if err != nil {
			t.Fatal(err)
		}
		return resp.Succeeded
	}
	if !put("first") {
		t.Fatal("a fenced write under the current fence was refused")
	}
	b := c.store(etcdlease.Options{})
	cb, _ := b.Claim(ctx(t), "spot-3", nil)
	if err := ca.Resign(ctx(t)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "takeover", cb.Owned)
	if put("stale") {
		t.Fatal("a write under the old fence succeeded after the takeover")
	}
}

// Bad options and calls: errors that name the method and option, and
// change nothing.
func TestBadOptions(t *testing.T) {
	c := newCluster(t)
	cli := c.client()
	for _, o := range []etcdlease.Options{{TTL: 1500 * temporal.Millisecond}, {TTL: -temporal.Second}, {Margin: temporal.Second}, {Retry: temporal.Second}} {
		if s, err := etcdlease.Open(cli, o); err == nil {
			_ = s.Close()
			t.Errorf("Open(%+v) accepted", o)
		}
	}
	if _, err := etcdlease.Open(nil, etcdlease.Options{}); err == nil {
		t.Error("Open(nil) accepted")
	}
	st := c.store(etcdlease.Options{})
	if _, err := st.Claim(ctx(t), "", nil); err == nil {
		t.Error(`Claim("") accepted`)
	}
	if _, err := st.Claim(ctx(t), "x", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Claim(ctx(t), "x", nil); err == nil {
		t.Error("a second claim on one id accepted")
	}
}

// In steady state a Store sends only its lease's keep-alives, whatever the
// number of owners: 200 owned ids cost no request of their own.
func TestSteadyStateTrafficIsPerProcess(t *testing.T) {
	c := newCluster(t)
	st := c.store(etcdlease.Options{})
	claims := make([]*etcdlease.Claim, 200)
	for i := range claims {
		var err error
		if claims[i], err = st.Claim(ctx(t), "spot-"+strconv.Itoa(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 10*time.Second, "200 owned", func() bool {
		for _, cl := range claims {
			if !cl.Owned() {
				return false
			}
		}
		return true
	})
	s0 := st.Stats()
	waitFor(t, 2*ttl+time.Second, "three keep-alives", func() bool { return st.Stats().KeepAlives >= s0.KeepAlives+3 })
	s1 := st.Stats()
	if d := (etcdlease.Stats{Grants: s1.Grants - s0.Grants, Campaigns: s1.Campaigns - s0.Campaigns, Resigns: s1.Resigns - s0.Resigns, Syncs: s1.Syncs - s0.Syncs}); d != (etcdlease.Stats{}) {
		t.Fatalf("requests besides keep-alives in steady state: %+v", d)
	}
}

// etcd unreachable when the process starts: Claim returns a standby once
// its context ends, and the id is claimed as soon as etcd answers.
func TestUnreachableAtStartClaimsWhenEtcdAnswers(t *testing.T) {
	c := newCluster(t)
	c.needServer()
	c.srv.Stop()
	st := c.store(etcdlease.Options{})
	short, cancel := context.WithTimeout(ctx(t), 200*time.Millisecond)
	defer cancel()
	claim, err := st.Claim(short, "spot-5", nil)
	if err != nil {
		t.Fatal(err)
	}
	if claim.Owned() {
		t.Fatal("owned with etcd down")
	}
	if err := c.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "claimed once etcd answers", claim.Owned)
}

package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// DefaultPrefix is where ownership keys go when Options.Prefix is empty.
const DefaultPrefix = "/metronome/owners/"

// DefaultTTL is the lease's TTL when Options.TTL is 0.
const DefaultTTL = 2 * temporal.Second

// Options configures Open. The zero value is ready to use.
type Options struct {
	// Prefix is put before each owner id to make its ownership key; ""
	// means DefaultPrefix. Processes that share owners share a prefix.
	Prefix string
	// TTL is the etcd lease's time to live: whole seconds, >= 1s; 0 means
	// DefaultTTL. A dead or suspended owner's ids move to a standby about
	// TTL (up to TTL + 500ms, etcd's expiry check) after its last
	// keep-alive.
	TTL temporal.Duration
	// Margin is taken off each deadline for clock drift: >= 0 and < TTL/2;
	// 0 means TTL/10.
	Margin temporal.Duration
	// Retry is the wait between attempts while etcd is unreachable: > 0 and
	// <= TTL/3; 0 means TTL/10.
	Retry temporal.Duration
	// Clock is the clock Lease reports deadlines on: give the keyed.Scheduler
	// the same one (keyed.Options.Clock = Store.Clock()). Its Now must never
	// decrease. Nil means a keyed.SystemClock made by Open.
	Clock temporal.Clock
	// Value is stored in the ownership keys, to tell operators who owns an
	// id; "" means "HOSTNAME/PID".
	Value string
	// OnChange, when set, is told each gain and loss of ownership, in
	// order, on one goroutine of the Store. It may call any method of the
	// Store, Close included.
	OnChange func(Change)
}

// Change is one gain or loss of ownership.
type Change struct {
	ID    string
	Owned bool   // gained (true) or lost
	Fence uint64 // the fence gained or lost
	// Why: "acquired", "renewed after a lapse" (gains); "lease lapsed"
	// (admission stopped at the deadline, the key is still this process's
	// until etcd says otherwise), "lease expired", "key deleted", "key held
	// by another lease", "superseded", "resigned", "closed" (losses).
	Why string
}

// String is "spot-42 owned fence 17 (acquired)".
func (c Change) String() string {
	state := "owned"
	if !c.Owned {
		state = "lost"
	}
	return fmt.Sprintf("%s %s fence %d (%s)", c.ID, state, c.Fence, c.Why)
}

// ErrClosed is returned by calls on a closed Store or Claim.
var ErrClosed = errors.New("etcdlease: closed")

// Store holds this process's etcd lease and its claims.
type Store struct {
	cli      *clientv3.Client
	o        Options
	clock    temporal.Clock
	ttl      int64 // seconds, as asked
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup // the loops that talk to etcd
	wake     chan struct{}  // the campaign loop has work
	granted  chan struct{}  // closed at the first grant
	note     chan struct{}  // the notification loop has work
	noteDone chan struct{}  // closed when the notification loop ends
	lapseT   *time.Timer    // fires at the deadline

	mu       sync.Mutex
	lease    clientv3.LeaseID // 0: none
	deadline int64            // admission ends, on clock
	claims   map[string]*Claim
	pending  map[*Claim]struct{} // to campaign for, once their hold passed
	notes    []note
	closed   bool
	lapsed   bool // the deadline passed with the lease held; told to the claims
	calling  bool // the notification loop is in a callback
	stats    Stats
}

// Stats counts the requests a Store sent to etcd.
type Stats struct {
	KeepAlives, Grants, Campaigns, Resigns, Syncs uint64
}

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

// Open starts a Store on cli: it grants the lease and keeps it alive in
// the background (Open does not wait for etcd; until the grant succeeds no
// claim is owned). The Store does not close cli.
func Open(cli *clientv3.Client, o Options) (*Store, error) {
	const name = "Open"
	if cli == nil {
		return nil, &temporal.OptionError{Method: name, Param: "cli", Want: "an etcd client", Got: nil}
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.TTL < temporal.Second || o.TTL%temporal.Second != 0 {
		return nil, &temporal.OptionError{Method: name, Param: "opts.TTL", Want: "whole seconds >= 1s", Got: o.TTL}
	}
	if o.Margin == 0 {
		o.Margin = o.TTL / 10
	}
	if o.Margin < 0 || o.Margin >= o.TTL/2 {
		return nil, &temporal.OptionError{Method: name, Param: "opts.Margin", Want: "a duration >= 0 and < TTL/2", Got: o.Margin}
	}
	if o.Retry == 0 {
		o.Retry = o.TTL / 10
	}
	if o.Retry < 0 || o.Retry > o.TTL/3 {
		return nil, &temporal.OptionError{Method: name, Param: "opts.Retry", Want: "a duration > 0 and <= TTL/3", Got: o.Retry}
	}
	if o.Value == "" {
		host, _ := os.Hostname()
		o.Value = fmt.Sprintf("%s/%d", host, os.Getpid())
	}
	s := &Store{cli: cli, o: o, clock: o.Clock, ttl: int64(o.TTL / temporal.Second),
		wake: make(chan struct{}, 1), granted: make(chan struct{}), note: make(chan struct{}, 1),
		noteDone: make(chan struct{}), claims: map[string]*Claim{}, pending: map[*Claim]struct{}{}}
	if s.clock == nil {
		s.clock = keyed.SystemClock()
	}
	s.lapseT = time.AfterFunc(time.Hour, s.checkLapse)
	s.lapseT.Stop()
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(3)
	go s.keepLoop()
	go s.watchLoop()
	go s.campaignLoop()
	go s.noteLoop()
	return s, nil
}

// Granted is closed when the Store holds its first lease: etcd answered.
func (s *Store) Granted() <-chan struct{} { return s.granted }

// Admitting reports whether the Store holds a lease whose deadline has
// not passed: etcd answered a keep-alive recently enough for owned claims
// to admit ticks.
func (s *Store) Admitting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lease != 0 && s.now() < s.deadline
}

// Clock returns the clock the Store's deadlines are on.
func (s *Store) Clock() temporal.Clock { return s.clock }

// now reads the clock, in nanoseconds since the Unix epoch.
func (s *Store) now() int64 { return s.clock.Now().UnixNano() }

// Prefix returns the prefix of the ownership keys.
func (s *Store) Prefix() string { return s.o.Prefix }

// TTL returns the lease's TTL.
func (s *Store) TTL() temporal.Duration { return s.o.TTL }

// Stats returns the requests sent so far.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Lease returns the etcd lease the claims are attached to, 0 while there
// is none (before the grant, after a loss).
func (s *Store) Lease() clientv3.LeaseID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lease
}

// Claim claims the owner id for this process: it owns it when the key is
// free, else waits as a standby. refresh (may be nil) is called, on a
// goroutine of the Store, whenever the claim gains or loses ownership;
// give it Owner.Refresh. Claim tries once before it returns (within ctx,
// waiting for the Store's first lease if need be), so an id nobody owns is
// owned at once. One claim per id per Store.
func (s *Store) Claim(ctx context.Context, id string, refresh func()) (*Claim, error) {
	const name = "Claim"
	if id == "" {
		return nil, &temporal.OptionError{Method: name, Param: "id", Want: "a non-empty string", Got: `""`}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	if s.claims[id] != nil {
		s.mu.Unlock()
		return nil, &temporal.OptionError{Method: name, Param: "id", Want: "an id this Store has not claimed", Got: id}
	}
	c := &Claim{s: s, id: id, key: s.o.Prefix + id, refresh: refresh}
	s.claims[id] = c
	lease := s.lease
	s.mu.Unlock()
	if lease == 0 {
		select { // a Store just opened: its first grant
		case <-s.granted:
			lease = s.Lease()
		case <-ctx.Done():
		}
	}
	if lease != 0 {
		s.campaign(ctx, c, lease)
	} else {
		s.queue(c)
	}
	return c, nil
}

// Close resigns every claim, revokes the lease (so standbys elsewhere take
// over at once, not after the TTL) and stops the Store's goroutines. The
// losses it makes are delivered before it returns, unless it is called
// while a change is being delivered (from OnChange or a refresh function,
// say): then they are delivered after that callback returns, and the
// notification goroutine ends once they are.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	lease := s.lease
	s.lease, s.deadline = 0, 0
	for _, c := range s.claims {
		c.closed = true
		s.lose(c, "closed")
	}
	calling := s.calling
	s.mu.Unlock()
	s.lapseT.Stop()
	s.cancel()
	s.wg.Wait()
	if !calling {
		<-s.noteDone
	}
	if lease == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), (s.o.TTL / 3).Std())
	defer cancel()
	if _, err := s.cli.Revoke(ctx, lease); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return fmt.Errorf("etcdlease: revoking the lease: %w", err)
	}
	return nil
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

// Admit is sched.Admitter: the fence, and whether a tick may start now
// (owned and before the deadline).
func (c *Claim) Admit() (fence uint64, ok bool) {
	l, held := c.Lease()
	return l.Fence, held && c.s.now() < l.Deadline
}

// Owned reports whether this process owns the id now: Admit's ok.
func (c *Claim) Owned() bool {
	_, ok := c.Admit()
	return ok
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

func (s *Store) poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// queue asks the campaign loop to campaign for c.
func (s *Store) queue(c *Claim) {
	s.mu.Lock()
	if !c.closed {
		s.pending[c] = struct{}{}
	}
	s.mu.Unlock()
	s.poke(s.wake)
}

func (s *Store) request() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, (s.o.TTL / 3).Std())
}

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

func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

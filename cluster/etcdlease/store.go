package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

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

func (s *Store) poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (s *Store) request() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, (s.o.TTL / 3).Std())
}

func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

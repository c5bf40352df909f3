package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/metronome-rt/metronome/cluster/etcdlease"
	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/runtime/sched"
)

// `metronome run --realtime --cluster etcd://HOST:PORT[,...]`: owners with
// an id are claimed in etcd through cluster/etcdlease. The store's news
// (a gain, a loss) reaches the run's goroutine through driver.Options.Calls,
// where it refreshes the owner and writes the trace, so the Lua state and
// the scheduler stay on one goroutine.

// clusterFlag is --cluster: etcd://HOST:PORT[,HOST:PORT...].
type clusterFlag struct {
	eps  []string
	text string
}

const clusterWant = "want etcd://HOST:PORT[,HOST:PORT...]"

func (f *clusterFlag) String() string {
	if f == nil {
		return ""
	}
	return f.text
}

func (f *clusterFlag) Set(s string) error {
	rest, ok := strings.CutPrefix(s, "etcd://")
	if !ok || rest == "" {
		return errors.New(clusterWant)
	}
	var eps []string
	for _, hp := range strings.Split(rest, ",") {
		host, port, err := net.SplitHostPort(hp)
		if err != nil || host == "" {
			return fmt.Errorf("%s: %q is not HOST:PORT", clusterWant, hp)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%s: port %q is not 1..65535", clusterWant, port)
		}
		eps = append(eps, hp)
	}
	f.eps, f.text = eps, s
	return nil
}

// clusterTTLFlag is --cluster-ttl: whole seconds >= 1.
type clusterTTLFlag struct{ d time.Duration }

func (f *clusterTTLFlag) String() string {
	if f == nil {
		return ""
	}
	return strconv.FormatInt(int64(f.d/time.Second), 10)
}

func (f *clusterTTLFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > 3600 {
		return errors.New("want whole seconds from 1 to 3600")
	}
	f.d = time.Duration(n) * time.Second
	return nil
}

// runCluster is one run's membership of a cluster.
type runCluster struct {
	ctx   context.Context
	cli   *clientv3.Client
	store *etcdlease.Store
	s     *session // set once the session exists; used on the run's goroutine only

	mu      sync.Mutex
	pending []func() // news for the run's goroutine
	calls   chan func() error
	claims  int // claims made by the script

	unanswered bool // the last claim found no lease: etcd is not answering
}

// openCluster connects to o.Cluster; nil without --cluster.
func openCluster(ctx context.Context, o runOptions) (*runCluster, error) {
	if len(o.Cluster) == 0 {
		return nil, nil
	}
	ttl := o.ClusterTTL
	if ttl == 0 {
		ttl = etcdlease.DefaultTTL
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: o.Cluster, DialTimeout: ttl, Logger: zap.NewNop()})
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	c := &runCluster{ctx: ctx, cli: cli, calls: make(chan func() error, 1)}
	c.store, err = etcdlease.Open(cli, etcdlease.Options{Prefix: o.ClusterPrefix, TTL: ttl, OnChange: func(ch etcdlease.Change) {
		c.post(func() { c.traceChange(ch) })
	}})
	if err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return c, nil
}

// close resigns every owner and revokes the lease, so standbys take over
// at once, then closes the client.
func (c *runCluster) close() {
	if c == nil {
		return
	}
	_ = c.store.Close()
	_ = c.cli.Close()
}

// post runs f on the run's goroutine, between steps; it never blocks.
func (c *runCluster) post(f func()) {
	c.mu.Lock()
	c.pending = append(c.pending, f)
	c.mu.Unlock()
	select {
	case c.calls <- c.drain:
	default: // a drain is queued already and will take f
	}
}

func (c *runCluster) drain() error {
	c.mu.Lock()
	fs := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, f := range fs {
		f()
	}
	return nil
}

func (c *runCluster) traceChange(ch etcdlease.Change) {
	if c.s == nil || c.s.rec == nil {
		return
	}
	state := "owned"
	if !ch.Owned {
		state = "lost"
	}
	c.s.rec.line(c.s.elapsed().DecimalSeconds(), "ownership", traceQuote(ch.ID), state, "fence "+strconv.FormatUint(ch.Fence, 10), "("+ch.Why+")")
}

// Claim is scripting.Cluster: the script's owner id, claimed for at most
// the TTL before it returns (a standby then, which claims the id when etcd
// answers). While etcd does not answer, later claims do not wait.
func (c *runCluster) Claim(id string) (scripting.ClusterClaim, error) {
	ctx, cancel := context.WithTimeout(c.ctx, c.store.TTL())
	defer cancel()
	if c.unanswered && c.store.Lease() == 0 {
		cancel() // etcd did not answer an earlier claim: a standby at once, not one TTL per owner
	}
	cc := &runClaim{c: c}
	claim, err := c.store.Claim(ctx, id, func() { c.post(cc.refresh) })
	if err != nil {
		var oe *etcdlease.OptionError
		if errors.As(err, &oe) && oe.Param == "id" {
			return nil, errors.New("claimed already by another owner of this process")
		}
		return nil, err
	}
	cc.claim = claim
	c.unanswered = c.store.Lease() == 0
	c.mu.Lock()
	c.claims++
	c.mu.Unlock()
	return cc, nil
}

func (c *runCluster) waiting() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.claims > 0
}

// runClaim is one owner's claim, bound to its sched.Owner.
type runClaim struct {
	c     *runCluster
	claim *etcdlease.Claim
	o     *sched.Owner // the run's goroutine only
}

func (r *runClaim) Admit() (uint64, bool) { return r.claim.Admit() }
func (r *runClaim) Bind(o *sched.Owner)   { r.o = o }

func (r *runClaim) Resign() error {
	ctx, cancel := context.WithTimeout(r.c.ctx, r.c.store.TTL())
	defer cancel()
	return r.claim.Resign(ctx)
}

func (r *runClaim) refresh() {
	if r.o != nil {
		r.o.Refresh()
	}
}

// errRunOver ends driver.Run from a step: with Calls open it returns only
// on an error.
var errRunOver = errors.New("run over")

// clusterRunner keeps a run alive while the script holds owners in the
// cluster: with nothing due, it waits for the store's news until --until.
type clusterRunner struct {
	*budgetedRunner
	c         *runCluster
	over      bool
	untilDone bool // over because --until passed with owners waiting
}

func (r *clusterRunner) Next() (time.Duration, bool) {
	wait, ok := r.budgetedRunner.Next()
	if ok {
		return wait, true
	}
	if r.Stopped() == hostservices.StopIdle && r.c.waiting() {
		if left := (r.s.o.Until - r.s.elapsed()).Std(); left > 0 {
			return left, true
		}
		r.untilDone = true
	}
	r.over = true
	return 0, true
}

func (r *clusterRunner) Step(elapsed time.Duration) error {
	if r.over {
		return errRunOver
	}
	return r.budgetedRunner.Step(elapsed)
}

// runRealtime is the --realtime loop, with the cluster's news when there
// is one. untilDone reports a run that --until ended with owners waiting.
func (s *session) runRealtime(ctx context.Context, r *budgetedRunner) (untilDone bool, err error) {
	if s.cluster == nil {
		return false, driver.Run(ctx, r, driver.Options{})
	}
	cr := &clusterRunner{budgetedRunner: r, c: s.cluster}
	err = driver.Run(ctx, cr, driver.Options{Calls: s.cluster.calls})
	if errors.Is(err, errRunOver) {
		err = nil
	}
	return cr.untilDone, err
}

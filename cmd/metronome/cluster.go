package main

import (
	"context"
	"errors"
	"fmt"
	"math"
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
	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
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
		if !validHost(host) || strings.HasPrefix(hp, "[") != strings.Contains(host, ":") {
			return fmt.Errorf("%s: host %q is not a host name or an IP address", clusterWant, host)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strings.Trim(port, "0123456789") != "" {
			return fmt.Errorf("%s: port %q is not 1..65535", clusterWant, port)
		}
		eps = append(eps, hp)
	}
	f.eps, f.text = eps, s
	return nil
}

// validHost reports whether h is an IP address or a DNS host name
// (letters, digits and hyphens in dot-separated labels of 1 to 63).
func validHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
				return false
			}
		}
	}
	return true
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

	claimWait time.Duration // how long a claim may wait for etcd's answer
}

// clusterConnectWait bounds the wait for etcd's first answer, before the
// main chunk runs; a shorter TTL bounds it too.
const clusterConnectWait = 5 * time.Second

// openCluster connects to o.Cluster; nil without --cluster. It waits
// for etcd's first answer (a lease) before the script runs, so the main
// chunk's claims do not wait for it, at most the TTL or
// clusterConnectWait: an etcd that does not answer by then is an error.
func openCluster(ctx context.Context, o runOptions) (*runCluster, error) {
	if len(o.Cluster) == 0 {
		return nil, nil
	}
	ttl := o.ClusterTTL
	if ttl == 0 {
		ttl = etcdlease.DefaultTTL.Std()
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: o.Cluster, DialTimeout: ttl, Logger: zap.NewNop()})
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	c := &runCluster{ctx: ctx, cli: cli, calls: make(chan func() error, 1)}
	// A claim's wait is a host call inside the script's budget: a part of
	// it, or the store's own request timeout when that is shorter.
	c.claimWait = ttl / 3
	if b := o.Budgets.Budget; b > 0 {
		c.claimWait = min(c.claimWait, b/4)
	}
	c.store, err = etcdlease.Open(cli, etcdlease.Options{Prefix: o.ClusterPrefix, TTL: temporal.Duration(ttl), OnChange: func(ch etcdlease.Change) {
		c.post(func() { c.traceChange(ch) })
	}})
	if err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	wait := min(ttl, clusterConnectWait)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-c.store.Granted():
		return c, nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-t.C:
		err = fmt.Errorf("cluster: etcd at %s did not answer within %s", strings.Join(o.Cluster, ","), wait.String())
	}
	c.close()
	return nil, err
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

// Claim is scripting.Cluster: the script's owner id, claimed within
// claimWait, else a standby that claims the id when etcd answers. While
// the store's lease has lapsed (etcd not answering), a claim does not wait.
func (c *runCluster) Claim(id string) (scripting.ClusterClaim, error) {
	ctx, cancel := context.WithTimeout(c.ctx, c.claimWait)
	defer cancel()
	if !c.store.Admitting() {
		cancel()
	}
	cc := &runClaim{c: c}
	claim, err := c.store.Claim(ctx, id, func() { c.post(cc.refresh) })
	if err != nil {
		var oe *temporal.OptionError
		if errors.As(err, &oe) && oe.Param == "id" {
			return nil, errors.New("claimed already by another owner of this process")
		}
		return nil, err
	}
	cc.claim = claim
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

// Lease is cadence.Authority for the run's virtual time, which does not
// follow the store's clock: held only while the claim is owned and before
// its deadline on that clock, with no deadline of its own.
func (r *runClaim) Lease() (cadence.Lease, bool) {
	l, held := r.claim.Lease()
	return cadence.Lease{Fence: l.Fence, Deadline: math.MaxInt64}, held && r.claim.Owned()
}

func (r *runClaim) Bind(o *sched.Owner) { r.o = o }

func (r *runClaim) Resign() error {
	ctx, cancel := context.WithTimeout(r.c.ctx, r.c.claimWait)
	defer cancel()
	return r.claim.Resign(ctx)
}

func (r *runClaim) refresh() {
	if r.o != nil {
		_ = r.o.Renew() // an error only on a dropped scheduler, which has no timers to resume
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

func (r *clusterRunner) Next() (temporal.Duration, bool) {
	wait, ok := r.budgetedRunner.Next()
	if ok {
		return wait, true
	}
	if r.Stopped() == hostservices.StopIdle && r.c.waiting() {
		if left := r.s.o.Until - r.s.elapsed(); left > 0 {
			return left, true
		}
		r.untilDone = true
	}
	r.over = true
	return 0, true
}

func (r *clusterRunner) Step(elapsed temporal.Duration) error {
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

package etcdtest_test

import (
	"context"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/metronome-rt/metronome/cluster/etcdlease"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// Orderings a real etcd gives only by chance, forced: a client whose
// transactions and watch a test holds back or filters.

// faultKV holds back the transactions that create one key: each such
// Commit waits for a release before it is sent (held "before") or after
// its answer came back (held "after"), so a test orders it against the
// watch.
type faultKV struct {
	clientv3.KV
	key string

	mu    sync.Mutex
	plans []string           // for the next commits on key: "before" or "after"
	held  chan chan struct{} // a commit waiting: close the channel to release it
	done  chan *clientv3.TxnResponse
	stop  chan struct{} // closed: nothing is held any more
}

func newFaultKV(kv clientv3.KV, key string, plans ...string) *faultKV {
	return &faultKV{KV: kv, key: key, plans: plans, held: make(chan chan struct{}, 8), done: make(chan *clientv3.TxnResponse, 8), stop: make(chan struct{})}
}

func (f *faultKV) Txn(ctx context.Context) clientv3.Txn { return &faultTxn{f: f, inner: f.KV.Txn(ctx)} }

// next returns the plan for a commit that creates key, "" for none.
func (f *faultKV) next() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.plans) == 0 {
		return ""
	}
	p := f.plans[0]
	f.plans = f.plans[1:]
	return p
}

// hold blocks until the test releases the commit.
func (f *faultKV) hold() {
	release := make(chan struct{})
	select {
	case f.held <- release:
	case <-f.stop:
		return
	}
	select {
	case <-release:
	case <-f.stop:
	}
}

// awaitHeld returns the release of the next held commit, at most within.
func (f *faultKV) awaitHeld(t *testing.T, within time.Duration, what string) chan struct{} {
	t.Helper()
	select {
	case r := <-f.held:
		return r
	case <-time.After(within):
		t.Fatalf("%s: no commit held within %v", what, within)
		return nil
	}
}

type faultTxn struct {
	f      *faultKV
	inner  clientv3.Txn
	create bool // Then puts f.key
}

func (t *faultTxn) If(cs ...clientv3.Cmp) clientv3.Txn { t.inner = t.inner.If(cs...); return t }
func (t *faultTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.inner = t.inner.Else(ops...)
	return t
}

func (t *faultTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	for _, op := range ops {
		if op.IsPut() && string(op.KeyBytes()) == t.f.key {
			t.create = true
		}
	}
	t.inner = t.inner.Then(ops...)
	return t
}

func (t *faultTxn) Commit() (*clientv3.TxnResponse, error) {
	plan := ""
	if t.create {
		plan = t.f.next()
	}
	if plan == "before" {
		t.f.hold()
	}
	resp, err := t.inner.Commit()
	if plan == "after" {
		t.f.done <- resp
		t.f.hold()
	}
	return resp, err
}

// dropWatch passes the watch on, without the Delete events of one key:
// a watch that missed a deletion.
type dropWatch struct {
	clientv3.Watcher
	key string
}

func (w *dropWatch) Watch(ctx context.Context, key string, opts ...clientv3.OpOption) clientv3.WatchChan {
	in := w.Watcher.Watch(ctx, key, opts...)
	out := make(chan clientv3.WatchResponse)
	go func() {
		defer close(out)
		for wr := range in {
			evs := wr.Events[:0:0]
			for _, ev := range wr.Events {
				if ev.Type == clientv3.EventTypeDelete && string(ev.Kv.Key) == w.key {
					continue
				}
				evs = append(evs, ev)
			}
			wr.Events = evs
			select {
			case out <- wr:
			case <-ctx.Done():
				for range in { // the watcher closes in once ctx is done
				}
				return
			}
		}
	}()
	return out
}

// faultStore opens a Store on a client changed by alter, closed at cleanup.
func (c *cluster) faultStore(o etcdlease.Options, alter func(*clientv3.Client)) *etcdlease.Store {
	c.t.Helper()
	cli := c.client()
	alter(cli)
	o.Prefix, o.TTL = c.prefix, temporal.Duration(ttl)
	if o.Clock == nil {
		o.Clock = keyed.SystemClock()
	}
	s, err := etcdlease.Open(cli, o)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = s.Close() })
	// Claims made from here campaign once, from Claim: none is queued by
	// the first grant or the first sync of the watch.
	waitFor(c.t, 10*time.Second, "the first lease and sync", func() bool { return s.Lease() != 0 && s.Stats().Syncs > 0 })
	return s
}

// A campaign wins, but the watch reports the key deleted before the
// campaign's answer is taken in, and another process then creates it: the
// old answer is not an ownership, so only the other process admits.
func TestCampaignAnswerOlderThanTheWatchIsIgnored(t *testing.T) {
	c := newCluster(t)
	var kv *faultKV
	a := c.faultStore(etcdlease.Options{}, func(cli *clientv3.Client) {
		// The claim's campaign: answered, then held. The campaign the
		// delete starts: held before it is sent.
		kv = newFaultKV(cli.KV, c.prefix+"spot-42", "after", "before")
		cli.KV = kv
	})
	t.Cleanup(func() { close(kv.stop) }) // before the store's Close: a failed test holds nothing
	claimed := make(chan *etcdlease.Claim, 1)
	go func() {
		cl, err := a.Claim(ctx(t), "spot-42", nil)
		if err != nil {
			t.Error(err)
		}
		claimed <- cl
	}()
	first := kv.awaitHeld(t, 10*time.Second, "the claim's campaign")
	won := <-kv.done
	if !won.Succeeded {
		t.Fatal("the claim's campaign did not create the key")
	}
	if _, err := c.client().Delete(ctx(t), c.prefix+"spot-42"); err != nil {
		t.Fatal(err)
	}
	// The store saw the delete: it campaigns again (held).
	second := kv.awaitHeld(t, 10*time.Second, "the campaign after the delete")
	close(first)
	ca := <-claimed
	if ca.Owned() {
		l, _ := ca.Lease()
		t.Errorf("owned under fence %d, a key deleted before the campaign's answer was taken in", l.Fence)
	}
	b := c.store(etcdlease.Options{})
	cb, err := b.Claim(ctx(t), "spot-42", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cb.Owned() {
		t.Fatal("the other process does not own the free key")
	}
	close(second)
	if ca.Owned() && cb.Owned() {
		t.Fatal("both processes admit ticks of spot-42")
	}
}

// A watch that missed the deletion of the owned key: the creation of the
// key under another lease still ends the ownership.
func TestCreateUnderAnotherLeaseLoses(t *testing.T) {
	c := newCluster(t)
	key := c.prefix + "spot-42"
	a := c.faultStore(etcdlease.Options{}, func(cli *clientv3.Client) {
		cli.Watcher = &dropWatch{Watcher: cli.Watcher, key: key}
	})
	ca, err := a.Claim(ctx(t), "spot-42", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ca.Owned() {
		t.Fatal("not owned")
	}
	if _, err := c.client().Delete(ctx(t), key); err != nil {
		t.Fatal(err)
	}
	b := c.store(etcdlease.Options{})
	cb, err := b.Claim(ctx(t), "spot-42", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cb.Owned() {
		t.Fatal("the other process does not own the free key")
	}
	waitFor(t, 5*time.Second, "the first owner loses to the key's new owner", func() bool { return !ca.Owned() })
}

// Close called from a change's callback returns, and the losses it makes
// are still delivered, after the callback, in order.
func TestCloseFromOnChangeReturns(t *testing.T) {
	c := newCluster(t)
	var st *etcdlease.Store
	closed := make(chan error, 1)
	changes := make(chan etcdlease.Change, 16)
	st = c.store(etcdlease.Options{OnChange: func(ch etcdlease.Change) {
		changes <- ch
		if ch.Owned {
			closed <- st.Close()
		}
	}})
	if _, err := st.Claim(ctx(t), "spot-42", nil); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, closed, "OnChange")
	gained := <-changes
	select {
	case lost := <-changes:
		if lost.Owned || lost.Fence != gained.Fence || lost.Why != "closed" {
			t.Fatalf("after %v: %v, want the loss by Close", gained, lost)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("after %v: no loss delivered within 10s", gained)
	}
}

// Close called from a claim's refresh function returns as well.
func TestCloseFromRefreshReturns(t *testing.T) {
	c := newCluster(t)
	st := c.store(etcdlease.Options{})
	closed := make(chan error, 1)
	var once sync.Once
	if _, err := st.Claim(ctx(t), "spot-42", func() { once.Do(func() { closed <- st.Close() }) }); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, closed, "a refresh function")
}

// etcd stopped: when the deadline passes, each owned claim is told its
// admission lapsed (a loss under the same fence), before anything else.
func TestLapseIsAChange(t *testing.T) {
	c := newCluster(t)
	c.needServer()
	changes := make(chan etcdlease.Change, 16)
	st := c.store(etcdlease.Options{OnChange: func(ch etcdlease.Change) { changes <- ch }})
	if _, err := st.Claim(ctx(t), "spot-42", nil); err != nil {
		t.Fatal(err)
	}
	gained := <-changes
	c.srv.Stop()
	select {
	case ch := <-changes:
		if ch.Owned || ch.Fence != gained.Fence || ch.Why != "lease lapsed" {
			t.Fatalf("after %v with etcd stopped: %v, want the lapse", gained, ch)
		}
		if st.Admitting() {
			t.Fatal("the store admits after the lapse")
		}
	case <-time.After(ttl + 5*time.Second):
		t.Fatalf("after %v: no change within TTL + 5s of stopping etcd", gained)
	}
}

// waitClosed waits, at most 10s, for the error of a Close called from
// where.
func waitClosed(t *testing.T, closed <-chan error, where string) {
	t.Helper()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Close from %s did not return within 10s", where)
	}
}

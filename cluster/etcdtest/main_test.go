package etcdtest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/metronome-rt/metronome/cluster/etcdlease"
	"github.com/metronome-rt/metronome/cluster/etcdtest"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

const ttl = time.Second

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(child())
	}
	code := m.Run()
	if metronome.path != "" && metronome.err == nil {
		_ = os.RemoveAll(filepath.Dir(metronome.path))
	}
	if code == 0 {
		// The Stores' goroutines end with Close; the server's and the
		// clients' with theirs.
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// cluster is one etcd for a test: in-process, or ETCD_ENDPOINTS.
type cluster struct {
	t      *testing.T
	eps    []string
	srv    *etcdtest.Server // nil for an external etcd
	prefix string           // this test's keys
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	c := &cluster{t: t, prefix: "/metronome-test/" + strings.ReplaceAll(t.Name(), "/", "-") + "/" + time.Now().Format("150405.000000") + "/"}
	if eps, ok := etcdtest.External(); ok {
		c.eps = eps
		return c
	}
	srv, err := etcdtest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	c.srv, c.eps = srv, []string{srv.Endpoint()}
	return c
}

// needServer skips a test that stops the server when it is external.
func (c *cluster) needServer() {
	if c.srv == nil {
		c.t.Skip("stops and restarts etcd: needs the in-process server, not ETCD_ENDPOINTS")
	}
}

// client is a new client, as another process would have.
func (c *cluster) client() *clientv3.Client {
	c.t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.eps, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// store opens a Store on a client of its own, closed at cleanup.
func (c *cluster) store(o etcdlease.Options) *etcdlease.Store {
	c.t.Helper()
	o.Prefix, o.TTL = c.prefix, temporal.Duration(ttl)
	if o.Clock == nil {
		o.Clock = keyed.SystemClock()
	}
	s, err := etcdlease.Open(c.client(), o)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = s.Close() })
	return s
}

// waitFor polls cond until it holds or within passes.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	tk := time.NewTicker(2 * time.Millisecond)
	defer tk.Stop()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %v", what, within)
		}
		<-tk.C
	}
	return time.Since(start)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

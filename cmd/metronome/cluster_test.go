package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// --cluster needs --realtime, and its value and --cluster-ttl's are
// checked: each a usage error (exit 2) that says what was expected, before
// anything connects. (The runs against a real etcd are in the nested
// module cluster/etcdtest.)
func TestRunClusterUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cluster", "etcd://127.0.0.1:2379"}, "--cluster needs --realtime: a lease held in etcd runs on wall time"},
		{[]string{"--realtime", "--cluster", "http://127.0.0.1:2379"}, `invalid value "http://127.0.0.1:2379" for flag -cluster: want etcd://HOST:PORT[,HOST:PORT...]`},
		{[]string{"--realtime", "--cluster", "etcd://"}, `invalid value "etcd://" for flag -cluster: want etcd://HOST:PORT[,HOST:PORT...]`},
		{[]string{"--realtime", "--cluster", "etcd://a:1,b"}, `invalid value "etcd://a:1,b" for flag -cluster: want etcd://HOST:PORT[,HOST:PORT...]: "b" is not HOST:PORT`},
		{[]string{"--realtime", "--cluster", "etcd://a:0"}, `invalid value "etcd://a:0" for flag -cluster: want etcd://HOST:PORT[,HOST:PORT...]: port "0" is not 1..65535`},
		{[]string{"--realtime", "--cluster", "etcd:// 127.0.0.1:2379"}, `invalid value "etcd:// 127.0.0.1:2379" for flag -cluster: want etcd://HOST:PORT[,HOST:PORT...]: host " 127.0.0.1" is not a host name or an IP address`},
		{[]string{"--realtime", "--cluster", "etcd://127.0.0.1:2379, b:1"}, `invalid value "etcd://127.0.0.1:2379, b:1" for flag -cluster: want etcd://HOST:PORT[,HOST:PORT...]: host " b" is not a host name or an IP address`},
		{[]string{"--realtime", "--cluster", "etcd://a_b:1"}, `host "a_b" is not a host name or an IP address`},
		{[]string{"--realtime", "--cluster", "etcd://-a:1"}, `host "-a" is not a host name or an IP address`},
		{[]string{"--realtime", "--cluster", "etcd://a..b:1"}, `host "a..b" is not a host name or an IP address`},
		{[]string{"--realtime", "--cluster", "etcd://user@a:1"}, `host "user@a" is not a host name or an IP address`},
		{[]string{"--realtime", "--cluster", "etcd://a:1/path"}, `port "1/path" is not 1..65535`},
		{[]string{"--realtime", "--cluster", "etcd://a:+1"}, `port "+1" is not 1..65535`},
		{[]string{"--realtime", "--cluster", "etcd://a:1 "}, `port "1 " is not 1..65535`},
		{[]string{"--realtime", "--cluster", "ETCD://a:1"}, `invalid value "ETCD://a:1" for flag -cluster: want etcd://HOST:PORT[,HOST:PORT...]`},
		{[]string{"--realtime", "--cluster", "etcds://a:1"}, `invalid value "etcds://a:1" for flag -cluster: want etcd://HOST:PORT[,HOST:PORT...]`},
		{[]string{"--realtime", "--cluster", " etcd://a:1"}, `invalid value " etcd://a:1" for flag -cluster: want etcd://HOST:PORT[,HOST:PORT...]`},
		{[]string{"--realtime", "--cluster", "etcd://::1:2379"}, `"::1:2379" is not HOST:PORT`},
		{[]string{"--realtime", "--cluster-ttl", "0"}, `invalid value "0" for flag -cluster-ttl: want whole seconds from 1 to 3600`},
		{[]string{"--realtime", "--cluster-ttl", "1.5"}, `invalid value "1.5" for flag -cluster-ttl: want whole seconds from 1 to 3600`},
	} {
		args := append(append([]string{"run"}, tc.args...), "testdata/clock.lua")
		code, out, errOut := cli(t, t.Context(), args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, "metronome run: ") || !strings.Contains(strings.SplitN(errOut, "\n", 2)[0], tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 after %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// print under --realtime reaches stdout a line at a time, one write per
// line, so an operator tailing two processes sees each tick as it happens.
func TestRunRealtimePrintsALineAWrite(t *testing.T) {
	w := &writes{}
	code := run(t.Context(), []string{"run", "--realtime", "testdata/args.lua", "a", "b"}, w, w)
	if code != 0 || len(w.lines) != 2 {
		t.Fatalf("exit %d, writes %q", code, w.lines)
	}
	for _, l := range w.lines {
		if strings.Count(l, "\n") != 1 || !strings.HasSuffix(l, "\n") {
			t.Fatalf("a write that is not one line: %q", l)
		}
	}
}

type writes struct{ lines []string }

func (w *writes) Write(p []byte) (int, error) {
	w.lines = append(w.lines, string(p))
	return len(p), nil
}

// Good endpoints pass, IPv6 in brackets and host names included.
func TestClusterFlagAcceptsEndpoints(t *testing.T) {
	for _, v := range []string{"etcd://127.0.0.1:2379", "etcd://[::1]:2379", "etcd://etcd-0.etcd.svc:2379,etcd-1:2379", "etcd://localhost:1"} {
		var f clusterFlag
		if err := f.Set(v); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
}

// An etcd that does not answer: run says so on stderr, naming the
// address, before the main chunk runs (no budget is blamed), and exits 1;
// the wait is bounded by the TTL.
func TestRunClusterUnreachableIsAnError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nothing listens there now
	script := filepath.Join(t.TempDir(), "owner.lua")
	src := `print("main chunk")
local host = require "app-host"
local Temporal = require "temporal"
host.scheduler:owner{ id = "spot-42", lease = Temporal.duration{ seconds = 1 } }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, out, errOut := cli(t, t.Context(), "run", "--realtime", "--cluster", "etcd://"+addr, "--cluster-ttl", "1", script)
	took := time.Since(start)
	want := "metronome run: cluster: etcd at " + addr + " did not answer within 1s\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, out, errOut, want)
	}
	t.Logf("took %v", took)
}

package main

import (
	"strings"
	"testing"
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
		{[]string{"--realtime", "--cluster-ttl", "0"}, `invalid value "0" for flag -cluster-ttl: want whole seconds from 1 to 3600`},
		{[]string{"--realtime", "--cluster-ttl", "1.5"}, `invalid value "1.5" for flag -cluster-ttl: want whole seconds from 1 to 3600`},
	} {
		args := append(append([]string{"run"}, tc.args...), "testdata/clock.lua")
		code, out, errOut := cli(t, t.Context(), args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, "metronome run: "+tc.want) {
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

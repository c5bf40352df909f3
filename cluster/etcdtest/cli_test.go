package etcdtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/cluster/etcdlease"

	// What cmd/metronome links, so that this module's go.sum covers the
	// build of the binary the tests run.
	_ "github.com/metronome-rt/metronome/lua/luatest"
	_ "github.com/metronome-rt/metronome/lua/scripting"
)

// The CLI end to end: `metronome run --realtime --cluster` in two real
// processes sharing one owner id.

var metronome struct {
	once sync.Once
	path string
	err  error
}

// metronomeBin builds cmd/metronome once per test binary.
func metronomeBin(t *testing.T) string {
	t.Helper()
	metronome.once.Do(func() {
		dir, err := os.MkdirTemp("", "metronome-bin-")
		if err != nil {
			metronome.err = err
			return
		}
		metronome.path = filepath.Join(dir, "metronome")
		out, err := exec.Command("go", "build", "-o", metronome.path, "github.com/metronome-rt/metronome/cmd/metronome").CombinedOutput()
		if err != nil {
			metronome.err = err
			metronome.path = string(out)
		}
	})
	if metronome.err != nil {
		t.Fatalf("building metronome: %v\n%s", metronome.err, metronome.path)
	}
	return metronome.path
}

const clusterScript = `
local Temporal = require "temporal"
local host = require "app-host"
local o = host.scheduler:owner{ id = "spot-42", lease = Temporal.duration{ seconds = 1 } }
print("claimed", o:is_owned() and "owned" or "standby")
o:register_timer{ key = "k", interval = Temporal.duration{ milliseconds = 20 }, callback = function(tick)
	print("tick", tick["scheduled-index"], tick.fence)
end }
`

func (c *cluster) runMetronome(t *testing.T, name, script string) *childProc {
	t.Helper()
	cmd := exec.Command(metronomeBin(t), "run", "--realtime", "--trace", "--cluster", "etcd://"+strings.Join(c.eps, ","),
		"--cluster-ttl", "1", "--etcd-prefix", c.prefix, script)
	return startChild(t, name, cmd)
}

// The owning metronome is killed with SIGKILL: the standby prints its
// first tick within TTL + 1s, under a higher fence, and its trace names
// the ownership change with the fence; lines arrive as they are printed.
func TestCLIStandbyTakesOverAfterSIGKILL(t *testing.T) {
	c := newCluster(t)
	script := filepath.Join(t.TempDir(), "spot.lua")
	if err := os.WriteFile(script, []byte(clusterScript), 0o644); err != nil {
		t.Fatal(err)
	}
	a := c.runMetronome(t, "owner", script)
	a.await(t, "claimed\towned", 0, 60*time.Second) // the first build may be cold
	i := a.await(t, "tick", 0, 5*time.Second)
	b := c.runMetronome(t, "standby", script)
	b.await(t, "claimed\tstandby", 0, 10*time.Second)
	a.await(t, "tick", i+1, 5*time.Second) // the owner goes on ticking
	killed := time.Now()
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.done
	j := b.await(t, "tick", 0, ttl+5*time.Second)
	took := b.lineAt(j).Sub(killed)
	t.Logf("metronome: SIGKILL to the standby's first tick line %v (TTL %v)", took, ttl)
	if took > ttl+time.Second {
		t.Errorf("the standby's first tick came %v after SIGKILL, want within TTL + 1s", took)
	}
	fa, fb := lastField(a.lineText(i)), lastField(b.lineText(j))
	if na, nb := atoi(fa), atoi(fb); nb <= na {
		t.Errorf("fences: owner %q, standby %q; want the standby's higher", fa, fb)
	}
	b.awaitLine(t, `ownership  "spot-42"  owned  fence `+fb+"  (acquired)", 0, 5*time.Second, strings.Contains)
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func lastField(s string) string {
	f := strings.Fields(s)
	return f[len(f)-1]
}

// A standby keeps `metronome run` alive: with its only timer's owner held
// by another process, the run waits (no tick) until --until, and says so.
func TestCLIStandbyKeepsTheRunAliveUntilUntil(t *testing.T) {
	c := newCluster(t)
	other := c.store(etcdlease.Options{})
	held, err := other.Claim(ctx(t), "spot-42", nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the other process owns spot-42", held.Owned)
	script := filepath.Join(t.TempDir(), "spot.lua")
	if err := os.WriteFile(script, []byte(clusterScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(metronomeBin(t), "run", "--realtime", "--until", "1500ms", "--cluster", "etcd://"+strings.Join(c.eps, ","),
		"--cluster-ttl", "1", "--etcd-prefix", c.prefix, script)
	p := startChild(t, "standby", cmd)
	p.await(t, "claimed\tstandby", 0, 60*time.Second)
	i := p.awaitLine(t, "metronome run: stopped at --until 1500ms", 0, 10*time.Second, strings.HasPrefix)
	if !strings.Contains(p.lineText(i), "with 0 jobs pending and 0 facets registered and owners claimed in the cluster") {
		t.Errorf("the stop message: %q", p.lineText(i))
	}
	<-p.done
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
	for _, l := range strings.Split(p.dump(), "\n") {
		if strings.Contains(l, "tick\t") {
			t.Errorf("the standby printed a tick: %q", l)
		}
	}
}

// stampedScript prints each tick with the wall time its callback started.
const stampedScript = `
local Temporal = require "temporal"
local host = require "app-host"
local wall = Temporal.clock.system()
local o = host.scheduler:owner{ id = "spot-42", lease = Temporal.duration{ seconds = 1 } }
print("claimed", o:is_owned() and "owned" or "standby")
o:register_timer{ key = "k", interval = Temporal.duration{ milliseconds = 20 }, callback = function(tick)
	print("tick", tick["scheduled-index"], tick.fence, wall:now():epoch_ns())
end }
`

// The owning metronome is suspended (SIGSTOP) past the TTL and resumed
// (SIGCONT) after the standby took over: it starts no tick after resuming,
// and ordered by wall time its ticks all precede the new owner's.
func TestCLISIGSTOPResumedOwnerStartsNoTick(t *testing.T) {
	c := newCluster(t)
	start := time.Now()
	script := filepath.Join(t.TempDir(), "spot.lua")
	if err := os.WriteFile(script, []byte(stampedScript), 0o644); err != nil {
		t.Fatal(err)
	}
	a := c.runMetronome(t, "owner", script)
	a.await(t, "claimed\towned", 0, 60*time.Second)
	a.await(t, "tick", 0, 5*time.Second)
	b := c.runMetronome(t, "standby", script)
	b.await(t, "claimed\tstandby", 0, 10*time.Second)
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	i := b.await(t, "tick", 0, ttl+5*time.Second)
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed := time.Now()
	a.awaitLine(t, `ownership  "spot-42"  lost  fence `, 0, ttl+5*time.Second, strings.Contains)
	b.await(t, "tick", i+5, 5*time.Second)
	ta, tb := a.ticks(t), b.ticks(t)
	for _, x := range append(ta, tb...) {
		if x.at.Before(start) {
			t.Fatalf("a tick stamped %v, before the test started: the stamp did not parse", x.at)
		}
	}
	for _, x := range ta {
		if !x.at.Before(resumed) {
			t.Fatalf("the resumed metronome started tick %d %v after SIGCONT:\n%s", x.slot, x.at.Sub(resumed), a.dump())
		}
	}
	if len(ta) == 0 || !ta[len(ta)-1].at.Before(tb[0].at) {
		t.Fatalf("ordering: the first owner's ticks %v, the second's first %v", len(ta), tb[0].at)
	}
}

// etcd stops under a running metronome: --trace says when the lease
// lapses, with the owner and its fence.
func TestCLITraceSaysWhenTheLeaseLapses(t *testing.T) {
	c := newCluster(t)
	c.needServer()
	script := filepath.Join(t.TempDir(), "spot.lua")
	if err := os.WriteFile(script, []byte(clusterScript), 0o644); err != nil {
		t.Fatal(err)
	}
	a := c.runMetronome(t, "owner", script)
	a.await(t, "claimed\towned", 0, 60*time.Second)
	i := a.await(t, "tick", 0, 5*time.Second)
	c.srv.Stop()
	a.awaitLine(t, `ownership  "spot-42"  lost  fence `+lastField(a.lineText(i))+"  (lease lapsed)", 0, ttl+5*time.Second, strings.Contains)
}

// claimScript claims "spot-42" in the main chunk, then "spot-43" from a
// job once the file named by its first argument exists.
const claimScript = `
local Temporal = require "temporal"
local host = require "app-host"
local ms = function(n) return Temporal.duration{ milliseconds = n } end
local trigger = ...
local o = host.scheduler:owner{ id = "spot-42", lease = Temporal.duration{ seconds = 1 } }
print("claimed", o:is_owned() and "owned" or "standby")
local done = false
host.scheduler:schedule_every{ interval = ms(20), callback = function()
	if done then return end
	local f = io.open(trigger)
	if not f then return end
	f:close()
	done = true
	local o2 = host.scheduler:owner{ id = "spot-43", lease = Temporal.duration{ seconds = 1 } }
	print("second", o2:is_owned() and "owned" or "standby")
	host.quit()
end }
`

// etcd stops under a running metronome with a long TTL: an owner claimed
// from a job then is a standby within the job's budget, not after the TTL.
func TestCLIClaimWithEtcdGoneStaysWithinTheBudget(t *testing.T) {
	c := newCluster(t)
	c.needServer()
	dir := t.TempDir()
	script, trigger := filepath.Join(dir, "claim.lua"), filepath.Join(dir, "go")
	if err := os.WriteFile(script, []byte(claimScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(metronomeBin(t), "run", "--realtime", "--allow-io", "--budget", "1s", "--cluster", "etcd://"+strings.Join(c.eps, ","),
		"--cluster-ttl", "30", "--etcd-prefix", c.prefix, script, trigger)
	p := startChild(t, "owner", cmd)
	p.await(t, "claimed\towned", 0, 60*time.Second)
	c.srv.Stop()
	if err := os.WriteFile(trigger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p.await(t, "second\tstandby", 0, 10*time.Second)
	<-p.done
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v\n%s", err, p.dump())
	}
}

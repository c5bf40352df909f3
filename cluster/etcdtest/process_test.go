package etcdtest_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/metronome-rt/metronome/cluster/etcdlease"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// The multi-process tests run this test binary again as a child: a
// process that claims one id and ticks a keyed timer under it, printing
//
//	claimed owned|standby
//	owned FENCE | lost FENCE
//	tick SLOT FENCE UNIXNANO
//
// where SLOT is the tick's nominal instant / the interval (the same grid
// in every process) and UNIXNANO the wall time the callback started.
const (
	childEnv      = "ETCDTEST_CHILD"
	childInterval = 20 * temporal.Millisecond
)

func child() int {
	eps := strings.Split(os.Getenv("ETCDTEST_ENDPOINTS"), ",")
	prefix, id := os.Getenv("ETCDTEST_PREFIX"), os.Getenv("ETCDTEST_ID")
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	say := func(format string, a ...any) {
		mu.Lock()
		fmt.Fprintf(out, format+"\n", a...)
		_ = out.Flush()
		mu.Unlock()
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		say("error %v", err)
		return 1
	}
	clock := keyed.SystemClock()
	st, err := etcdlease.Open(cli, etcdlease.Options{Prefix: prefix, TTL: temporal.Duration(ttl), Clock: clock, OnChange: func(c etcdlease.Change) {
		if c.Owned {
			say("owned %d", c.Fence)
		} else {
			say("lost %d", c.Fence)
		}
	}})
	if err != nil {
		say("error %v", err)
		return 1
	}
	s, _ := keyed.New(keyed.Options{Clock: clock, Workers: 1})
	var owner *keyed.Owner
	var ready sync.WaitGroup
	ready.Add(1)
	claim, err := st.Claim(context.Background(), id, func() { ready.Wait(); owner.Refresh() })
	if err != nil {
		say("error %v", err)
		return 1
	}
	owner, _ = s.NewOwnerAuthority(claim)
	ready.Done()
	now := time.Now().UnixNano()
	iv := int64(childInterval)
	delay := temporal.Duration(iv - now%iv)
	base := now/iv + 1
	_, _ = owner.Register(keyed.Config{Key: "k", Interval: childInterval, Delay: delay, Callback: func(f keyed.Fire) {
		say("tick %d %d %d", base+f.ScheduledIndex-1, f.Fence, time.Now().UnixNano())
	}})
	if claim.Owned() {
		say("claimed owned")
	} else {
		say("claimed standby")
	}
	select {} // until killed
}

// line is one line of a child's output and when the test read it.
type line struct {
	text string
	at   time.Time
}

type childProc struct {
	name  string
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []line
	note  chan struct{}
	done  chan struct{}
}

func (c *cluster) spawn(t *testing.T, name, id string) *childProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", "ETCDTEST_ENDPOINTS="+strings.Join(c.eps, ","),
		"ETCDTEST_PREFIX="+c.prefix, "ETCDTEST_ID="+id)
	return startChild(t, name, cmd)
}

// startChild starts cmd and reads its output (stdout and stderr, a line
// at a time, with the instant each line arrived) until it ends.
func startChild(t *testing.T, name string, cmd *exec.Cmd) *childProc {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &childProc{name: name, cmd: cmd, note: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, line{sc.Text(), time.Now()})
			p.mu.Unlock()
			select {
			case p.note <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		<-p.done
		_ = cmd.Wait()
	})
	return p
}

// await waits for a line starting with prefix, after the first skip
// lines, and returns its index.
func (p *childProc) await(t *testing.T, prefix string, from int, within time.Duration) int {
	t.Helper()
	return p.awaitLine(t, prefix, from, within, strings.HasPrefix)
}

// awaitLine waits for a line that match(line, s) accepts.
func (p *childProc) awaitLine(t *testing.T, prefix string, from int, within time.Duration, match func(line, s string) bool) int {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		for i := from; i < len(p.lines); i++ {
			if match(p.lines[i].text, prefix) {
				p.mu.Unlock()
				return i
			}
		}
		p.mu.Unlock()
		select {
		case <-p.note:
		case <-p.done:
			t.Fatalf("%s ended before printing %q:\n%s", p.name, prefix, p.dump())
		case <-deadline.C:
			t.Fatalf("%s printed no %q within %v:\n%s", p.name, prefix, within, p.dump())
		}
	}
}

func (p *childProc) lineAt(i int) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lines[i].at
}

func (p *childProc) lineText(i int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lines[i].text
}

func (p *childProc) dump() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, l := range p.lines {
		b.WriteString("\t" + l.text + "\n")
	}
	return b.String()
}

// ticks parses the tick lines: slot -> wall time the callback started.
func (p *childProc) ticks(t *testing.T) []childTick {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []childTick
	for _, l := range p.lines {
		f := strings.Fields(l.text)
		if len(f) != 4 || f[0] != "tick" {
			continue
		}
		slot, _ := strconv.ParseInt(f[1], 10, 64)
		fence, _ := strconv.ParseUint(f[2], 10, 64)
		ns, _ := strconv.ParseInt(f[3], 10, 64)
		out = append(out, childTick{slot, fence, time.Unix(0, ns)})
	}
	return out
}

type childTick struct {
	slot  int64
	fence uint64
	at    time.Time
}

func sharedSlots(a, b []childTick) []int64 {
	seen := map[int64]bool{}
	for _, x := range a {
		seen[x.slot] = true
	}
	var both []int64
	for _, y := range b {
		if seen[y.slot] {
			both = append(both, y.slot)
		}
	}
	return both
}

// ownerAndStandby starts a child that owns id and ticks, then one that
// waits as its standby.
func (c *cluster) ownerAndStandby(t *testing.T, id string) (owner, standby *childProc) {
	t.Helper()
	owner = c.spawn(t, "owner", id)
	owner.await(t, "claimed owned", 0, 10*time.Second)
	owner.await(t, "tick", 0, 5*time.Second)
	standby = c.spawn(t, "standby", id)
	standby.await(t, "claimed standby", 0, 10*time.Second)
	return owner, standby
}

// The owning process is killed with SIGKILL: the standby process owns the
// id within TTL + 1s and no slot is delivered by both.
func TestSIGKILLOfTheOwnerStandbyTakesOver(t *testing.T) {
	a, b := newCluster(t).ownerAndStandby(t, "spot-42")
	killed := time.Now()
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.done
	i := b.await(t, "tick", 0, ttl+5*time.Second)
	took := b.ticks(t)[0].at.Sub(killed)
	t.Logf("SIGKILL to the standby's first tick: %v (TTL %v)", took, ttl)
	if took > ttl+time.Second {
		t.Errorf("the standby's first tick came %v after SIGKILL, want within TTL + 1s = %v", took, ttl+time.Second)
	}
	b.await(t, "tick", i+3, 5*time.Second)
	if both := sharedSlots(a.ticks(t), b.ticks(t)); len(both) != 0 {
		t.Fatalf("slots delivered by both: %v", both)
	}
}

// The owner is suspended (SIGSTOP) past the TTL, the standby takes over,
// then the owner resumes (SIGCONT): it starts no tick after resuming, and
// the two outputs, ordered by wall time, never overlap.
func TestSIGSTOPPastTheTTLResumedOwnerStartsNoTick(t *testing.T) {
	a, b := newCluster(t).ownerAndStandby(t, "spot-42")
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	i := b.await(t, "tick", 0, ttl+5*time.Second)
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed := time.Now()
	t.Logf("stopped for %v; the standby ticked %v after the stop", resumed.Sub(stopped), b.ticks(t)[0].at.Sub(stopped))
	// The resumed process notices the loss (its keep-alive finds the
	// lease gone); by then any stale tick would have started.
	a.await(t, "lost", 0, ttl+5*time.Second)
	b.await(t, "tick", i+5, 5*time.Second)
	ta, tb := a.ticks(t), b.ticks(t)
	for _, x := range ta {
		if !x.at.Before(resumed) {
			t.Fatalf("the resumed process started slot %d %v after SIGCONT:\n%s", x.slot, x.at.Sub(resumed), a.dump())
		}
	}
	// Ordered by wall time, every tick of the first owner precedes every
	// tick of the second.
	if len(ta) > 0 && !ta[len(ta)-1].at.Before(tb[0].at) {
		t.Fatalf("the first owner's last tick (%v) is not before the second's first (%v)", ta[len(ta)-1].at, tb[0].at)
	}
	if both := sharedSlots(ta, tb); len(both) != 0 {
		t.Fatalf("slots delivered by both: %v", both)
	}
}

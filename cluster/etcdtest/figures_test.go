package etcdtest_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/cluster/etcdlease"
	"github.com/metronome-rt/metronome/temporal"
)

// The figures for docs/scale-out.md, run by `make cluster-figures`
// (METRONOME_FIGURES=1), not by make test: they take about a minute.

func needFigures(t *testing.T) {
	if os.Getenv("METRONOME_FIGURES") != "1" {
		t.Skip("set METRONOME_FIGURES=1 (make cluster-figures)")
	}
}

// Requests a Store sends to etcd in steady state with 1,000 owners in one
// process: the keep-alives of its one lease, whatever the owner count.
func TestFiguresSteadyStateRequests(t *testing.T) {
	needFigures(t)
	c := newCluster(t)
	for _, ttlS := range []int{1, 2, 5} {
		st, err := etcdlease.Open(c.client(), etcdlease.Options{Prefix: c.prefix + strconv.Itoa(ttlS) + "/", TTL: temporal.Duration(ttlS) * temporal.Second})
		if err != nil {
			t.Fatal(err)
		}
		claims := make([]*etcdlease.Claim, 1000)
		for i := range claims {
			if claims[i], err = st.Claim(ctx(t), fmt.Sprintf("spot-%d", i), nil); err != nil {
				t.Fatal(err)
			}
		}
		waitFor(t, 30*time.Second, "1,000 owned", func() bool {
			for _, cl := range claims {
				if !cl.Owned() {
					return false
				}
			}
			return true
		})
		// Measure over whole keep-alive periods, after the claims settled.
		window := 3 * time.Duration(ttlS) * time.Second
		s0, t0 := st.Stats(), time.Now()
		<-time.After(window)
		s1, el := st.Stats(), time.Since(t0)
		n := (s1.KeepAlives - s0.KeepAlives) + (s1.Grants - s0.Grants) + (s1.Campaigns - s0.Campaigns) + (s1.Resigns - s0.Resigns) + (s1.Syncs - s0.Syncs)
		t.Logf("TTL %ds, 1,000 owners in one process: %d requests in %v = %.2f requests/s (keep-alives %d); one keep-alive stream at a time, one watch stream",
			ttlS, n, el.Round(time.Millisecond), float64(n)/el.Seconds(), s1.KeepAlives-s0.KeepAlives)
		_ = st.Close()
	}
}

// Take-over time, SIGKILL of the owning process to the standby's first
// tick, over 20 runs, beside the TTL.
func TestFiguresTakeOver(t *testing.T) {
	needFigures(t)
	c := newCluster(t)
	var took []time.Duration
	for i := range 20 {
		id := "spot-" + strconv.Itoa(i)
		a, b := c.ownerAndStandby(t, id)
		killed := time.Now()
		if err := a.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-a.done
		b.await(t, "tick", 0, ttl+5*time.Second)
		took = append(took, b.ticks(t)[0].at.Sub(killed))
		_ = b.cmd.Process.Kill()
		<-b.done
	}
	slices.Sort(took)
	t.Logf("take-over over %d runs (TTL %v, margin %v, keep-alive every %v): p50 %v, max %v, min %v",
		len(took), ttl, ttl/10, ttl/3, took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond), took[0].Round(time.Millisecond))
}

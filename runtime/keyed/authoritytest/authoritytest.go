// Package authoritytest is the contract every keyed owner authority keeps,
// as one test function that runs on each: the local lease
// (Scheduler.NewOwner) here, a lease held in etcd (cluster/etcdlease) in
// the module that starts an etcd.
//
// The contract, each a subtest of Run:
//
//	FenceReachesCallbacks    every tick's Fire.Fence is the fence Lease
//	                         reported held while the tick ran
//	NoTickWhileLost          from Lose's return until Regain is called no
//	                         callback starts; after Regain ticks resume,
//	                         one per nominal tick (no burst), under the
//	                         fence Lease reports
//	LeaseUnderConcurrency    Lease is called from many goroutines while
//	                         ownership moves (run it with -race)
//
// It runs in real time on the Harness's clock, waiting with deadlines
// for what must happen (a tick, a loss), never sleeping.
package authoritytest

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// Subject is one owner under the authority being tested.
type Subject struct {
	// Owner ticks under Authority.
	Owner     *keyed.Owner
	Authority cadence.Authority
	// Lose ends this process's ownership and returns once the authority
	// admits no tick (Lease not held, or its deadline passed); it stays
	// lost until Regain.
	Lose func(t *testing.T)
	// Regain makes the authority hold again; it may return before it does
	// (the contract waits for the next tick).
	Regain func(t *testing.T)
}

// Harness makes subjects.
type Harness struct {
	// Clock is the scheduler's clock, the one Lease's deadlines are on.
	Clock temporal.Clock
	// Interval is the test timer's period: short against the time a loss
	// and a regain take.
	Interval temporal.Duration
	// Within bounds every wait for a tick or a change.
	Within temporal.Duration
	// New returns a subject whose owner is on s and holds the authority.
	New func(t *testing.T, s *keyed.Scheduler) Subject
}

// Run runs the contract's subtests on h.
func Run(t *testing.T, h Harness) {
	t.Run("FenceReachesCallbacks", func(t *testing.T) { fenceReachesCallbacks(t, h) })
	t.Run("NoTickWhileLost", func(t *testing.T) { noTickWhileLost(t, h) })
	t.Run("LeaseUnderConcurrency", func(t *testing.T) { leaseUnderConcurrency(t, h) })
}

// record is one callback's view.
type record struct {
	fire  keyed.Fire
	lease cadence.Lease
	held  bool
	now   int64
	phase int32
}

type rig struct {
	h     Harness
	s     *keyed.Scheduler
	sub   Subject
	phase atomic.Int32
	mu    sync.Mutex
	recs  []record
	tick  chan struct{}
}

func newRig(t *testing.T, h Harness) *rig {
	t.Helper()
	s, err := keyed.New(keyed.Options{Clock: h.Clock, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	r := &rig{h: h, s: s, tick: make(chan struct{}, 1)}
	r.sub = h.New(t, s)
	_, err = r.sub.Owner.Register(keyed.Config{Key: "contract", Interval: h.Interval, Callback: func(f keyed.Fire) {
		l, held := r.sub.Authority.Lease()
		rec := record{fire: f, lease: l, held: held, now: h.Clock.Now().UnixNano(), phase: r.phase.Load()}
		r.mu.Lock()
		r.recs = append(r.recs, rec)
		r.mu.Unlock()
		select {
		case r.tick <- struct{}{}:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// await waits for n more ticks than have been recorded.
func (r *rig) await(t *testing.T, n int) {
	t.Helper()
	r.mu.Lock()
	want := len(r.recs) + n
	r.mu.Unlock()
	deadline := time.NewTimer(r.h.Within.Std())
	defer deadline.Stop()
	for {
		r.mu.Lock()
		got := len(r.recs)
		r.mu.Unlock()
		if got >= want {
			return
		}
		select {
		case <-r.tick:
		case <-deadline.C:
			t.Fatalf("%d ticks within %v, want %d", got, r.h.Within, want)
		}
	}
}

func (r *rig) take() []record {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.recs
	r.recs = nil
	return out
}

func fenceReachesCallbacks(t *testing.T, h Harness) {
	r := newRig(t, h)
	r.await(t, 3)
	for _, rec := range r.take() {
		if !rec.held || rec.fire.Fence != rec.lease.Fence {
			t.Fatalf("tick %d under fence %d; Lease says %d, held %v", rec.fire.DeliveryIndex, rec.fire.Fence, rec.lease.Fence, rec.held)
		}
	}
}

func noTickWhileLost(t *testing.T, h Harness) {
	r := newRig(t, h)
	r.await(t, 2)
	before := r.take()
	r.sub.Lose(t)
	r.phase.Store(1)
	if l, held := r.sub.Authority.Lease(); held && h.Clock.Now().UnixNano() < l.Deadline {
		t.Fatalf("Lose returned with the authority admitting: %+v", l)
	}
	r.sub.Regain(t)
	r.phase.Store(2)
	r.await(t, 3)
	after := r.take()
	last := before[len(before)-1].fire
	for _, rec := range after {
		switch {
		case rec.phase == 1:
			t.Fatalf("tick %d started between Lose and Regain", rec.fire.DeliveryIndex)
		case !rec.held || rec.fire.Fence != rec.lease.Fence:
			t.Fatalf("tick %d under fence %d; Lease says %d, held %v", rec.fire.DeliveryIndex, rec.fire.Fence, rec.lease.Fence, rec.held)
		case rec.fire.DeliveryIndex != last.DeliveryIndex+1 || rec.fire.ScheduledIndex <= last.ScheduledIndex:
			t.Fatalf("after tick %+v came %+v: not one per nominal tick", last.Tick, rec.fire.Tick)
		}
		last = rec.fire
	}
}

func leaseUnderConcurrency(t *testing.T, h Harness) {
	r := newRig(t, h)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if l, held := r.sub.Authority.Lease(); held && l.Fence == 0 {
					t.Error("held under fence 0")
					return
				}
				runtime.Gosched() // readers, not a load that starves the scheduler

			}
		})
	}
	r.await(t, 2)
	r.sub.Lose(t)
	r.sub.Regain(t)
	r.await(t, 2)
	close(stop)
	wg.Wait()
}

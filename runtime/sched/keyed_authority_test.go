package sched_test

import (
	"errors"
	"math"
	"testing"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// gate is a cadence.Authority a test moves by hand.
type gate struct {
	fence uint64
	ok    bool
	asked int
}

func (g *gate) Lease() (cadence.Lease, bool) {
	g.asked++
	return cadence.Lease{Fence: g.fence, Deadline: math.MaxInt64}, g.ok
}

// An Authority's owner ticks while admitted, parks while not (no tick, no
// burst), and resumes from the next nominal tick on Renew.
func TestKeyedAuthorityParksAndResumesOnRenew(t *testing.T) {
	r := newTicks()
	g := &gate{fence: 7, ok: true}
	o, err := r.s.NewOwner(sched.OwnerOptions{Authority: g})
	if err != nil {
		t.Fatal(err)
	}
	r.register(t, o, "a", every(10*ms), func(tk *sched.Step) error {
		if tk.Fence != 7 {
			t.Errorf("tick %d under fence %d, want 7", tk.DeliveryIndex, tk.Fence)
		}
		r.record(tk)
		return nil
	})
	adv(t, r.s, 20*ms)
	r.want(t, "a/1 d=1 s=1 k=0 @0.01s", "a/1 d=2 s=2 k=0 @0.02s")
	g.ok = false
	adv(t, r.s, 50*ms) // to 70: the tick at 30 parks
	r.want(t)
	if r.s.Count() != 0 {
		t.Fatalf("a parked timer is pending: Count = %d", r.s.Count())
	}
	if err := o.Renew(); err != nil {
		t.Fatal(err)
	}
	adv(t, r.s, 5*ms)
	r.want(t)
	g.ok = true
	if err := o.Renew(); err != nil { // at 75: the next nominal tick is at 80
		t.Fatal(err)
	}
	adv(t, r.s, 15*ms)
	r.want(t, "a/1 d=3 s=8 k=5 @0.08s", "a/1 d=4 s=9 k=0 @0.09s")
}

// A new fence drops the ticks due under the old one, as Transfer does, and
// the next tick carries it.
func TestKeyedAuthorityNewFenceDropsTheOldFencesTicks(t *testing.T) {
	r := newTicks()
	g := &gate{fence: 3, ok: true}
	o, _ := r.s.NewOwner(sched.OwnerOptions{Authority: g})
	var fences []uint64
	r.register(t, o, "a", every(10*ms), func(tk *sched.Step) error {
		fences = append(fences, tk.Fence)
		r.record(tk)
		return nil
	})
	adv(t, r.s, 10*ms)
	g.fence = 9 // another process owned it meanwhile; this one owns it again
	adv(t, r.s, 10*ms)
	r.want(t, "a/1 d=1 s=1 k=0 @0.01s") // the tick at 20 is not started under fence 9 before Renew
	if err := o.Renew(); err != nil {
		t.Fatal(err)
	}
	adv(t, r.s, 10*ms) // at 20 the Renew: tick 2 was due under fence 3
	r.want(t, "a/1 d=2 s=3 k=1 @0.03s")
	if want := []uint64{3, 9}; len(fences) != 2 || fences[0] != want[0] || fences[1] != want[1] {
		t.Fatalf("fences %v, want %v", fences, want)
	}
}

// Transfer and bad arguments: errors that change nothing; owners without
// an Authority keep their virtual-time lease.
func TestKeyedAuthorityEdges(t *testing.T) {
	r := newTicks()
	g := &gate{fence: 1, ok: true}
	if _, err := r.s.NewOwner(sched.OwnerOptions{Lease: ms, Authority: g}); !errors.As(err, new(*temporal.OptionError)) {
		t.Fatalf("a lease and an Authority: %v", err)
	}
	o, _ := r.s.NewOwner(sched.OwnerOptions{Authority: g})
	if err := o.Transfer(); !errors.As(err, new(*sched.CallError)) {
		t.Fatalf("Transfer: %v", err)
	}
	if err := o.Renew(); err != nil {
		t.Fatal(err)
	}
	local, _ := r.s.NewOwner(sched.OwnerOptions{Lease: 25 * ms})
	r.register(t, local, "a", every(10*ms), r.busy(0))
	adv(t, r.s, 40*ms)
	r.want(t, "a/1 d=1 s=1 k=0 @0.01s", "a/1 d=2 s=2 k=0 @0.02s")
}

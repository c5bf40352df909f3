package sched_test

import (
	"errors"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
)

// gate is an Admitter a test moves by hand.
type gate struct {
	fence uint64
	ok    bool
	asked int
}

func (g *gate) Admit() (uint64, bool) { g.asked++; return g.fence, g.ok }

// An Admitter owner ticks while admitted, parks while not (no tick, no
// burst), and resumes from the next nominal tick on Refresh.
func TestKeyedAdmitterParksAndResumesOnRefresh(t *testing.T) {
	r := newTicks()
	g := &gate{fence: 7, ok: true}
	o, err := r.s.NewOwnerAdmitter("spot-42", g)
	if err != nil {
		t.Fatal(err)
	}
	r.register(t, o, "a", every(10*ms), func(tk *sched.Tick) error {
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
	o.Refresh()
	adv(t, r.s, 5*ms)
	r.want(t)
	g.ok = true
	o.Refresh() // at 75: the next nominal tick is at 80
	adv(t, r.s, 15*ms)
	r.want(t, "a/1 d=3 s=8 k=5 @0.08s", "a/1 d=4 s=9 k=0 @0.09s")
}

// A new fence drops the ticks due under the old one, as Transfer does, and
// the next tick carries it.
func TestKeyedAdmitterNewFenceDropsTheOldAuthoritysTicks(t *testing.T) {
	r := newTicks()
	g := &gate{fence: 3, ok: true}
	o, _ := r.s.NewOwnerAdmitter("spot-42", g)
	var fences []uint64
	r.register(t, o, "a", every(10*ms), func(tk *sched.Tick) error {
		fences = append(fences, tk.Fence)
		r.record(tk)
		return nil
	})
	adv(t, r.s, 10*ms)
	g.fence = 9 // another process owned it meanwhile; this one owns it again
	adv(t, r.s, 10*ms)
	r.want(t, "a/1 d=1 s=1 k=0 @0.01s") // the tick at 20 is not started under fence 9 before Refresh
	o.Refresh()
	adv(t, r.s, 10*ms) // at 20 the Refresh: tick 2 was due under fence 3
	r.want(t, "a/1 d=2 s=3 k=1 @0.03s")
	if want := []uint64{3, 9}; len(fences) != 2 || fences[0] != want[0] || fences[1] != want[1] {
		t.Fatalf("fences %v, want %v", fences, want)
	}
	if o.Authority() != 9 {
		t.Fatalf("Authority = %d, want 9", o.Authority())
	}
}

// Transfer and bad arguments: errors that change nothing; Renew does
// nothing; owners without an Admitter keep their virtual-time lease.
func TestKeyedAdmitterEdges(t *testing.T) {
	r := newTicks()
	if _, err := r.s.NewOwnerAdmitter("x", nil); !errors.As(err, new(*sched.OptionError)) {
		t.Fatalf("nil Admitter: %v", err)
	}
	g := &gate{fence: 1, ok: true}
	o, _ := r.s.NewOwnerAdmitter("x", g)
	if err := o.Transfer(); !errors.As(err, new(*sched.CallError)) {
		t.Fatalf("Transfer: %v", err)
	}
	if o.Authority() != 1 {
		t.Fatalf("Transfer moved the fence to %d", o.Authority())
	}
	if err := o.Renew(); err != nil {
		t.Fatal(err)
	}
	if _, has := o.Deadline(); has {
		t.Fatal("an Admitter owner reports a virtual lease")
	}
	local, _ := r.s.NewOwner("y", 25*ms)
	local.Refresh() // no Admitter: nothing
	r.register(t, local, "a", every(10*ms), r.busy(0))
	adv(t, r.s, 40*ms)
	r.want(t, "a/1 d=1 s=1 k=0 @0.01s", "a/1 d=2 s=2 k=0 @0.02s")
}

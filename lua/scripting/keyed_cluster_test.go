package scripting

import (
	"errors"
	"math"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/sched"
)

// fakeCluster hands out claims a test moves by hand.
type fakeCluster struct {
	claims map[string]*fakeClaim
	fail   error
}

type fakeClaim struct {
	fence    uint64
	owned    bool
	resigned int
	o        *sched.Owner
}

func (c *fakeCluster) Claim(id string) (ClusterClaim, error) {
	if c.fail != nil {
		return nil, c.fail
	}
	if c.claims[id] != nil {
		return nil, errors.New("claimed already in this process")
	}
	cl := &fakeClaim{fence: 11, owned: true}
	c.claims[id] = cl
	return cl, nil
}

func (c *fakeClaim) Lease() (cadence.Lease, bool) {
	return cadence.Lease{Fence: c.fence, Deadline: math.MaxInt64}, c.owned
}
func (c *fakeClaim) Bind(o *sched.Owner) { c.o = o }
func (c *fakeClaim) Resign() error       { c.resigned++; c.owned = false; return nil }

// An owner with an id is claimed in the cluster: owned? follows the
// claim, ticks carry its fence as a decimal string, a lost claim parks the
// timers and a refresh under a new fence resumes them, and transfer
// resigns. An owner without an id keeps its local lease.
func TestClusterOwnerFollowsItsClaim(t *testing.T) {
	fc := &fakeCluster{claims: map[string]*fakeClaim{}}
	L, h := budgetState(t, Options{Cluster: fc})
	err := chunk(t, L, `
		local Temporal = require "temporal"
		local function ms(n) return Temporal.duration{ milliseconds = n } end
		local hs = require("app-host").scheduler
		o = hs:owner{ id = "spot-42", lease = ms(50) }
		local_owner = hs:owner{ lease = ms(50) }
		fences = {}
		o:register_timer{ key = "k", interval = ms(10), callback = function(tick)
			fences[#fences + 1] = tick.fence
		end }
		assert(o["owned?"](o) == true and o:is_owned() == true)
		assert(local_owner:is_owned() == true, "a local owner is its process's")
		assert(o:renew() == true)
	`)
	if err != nil {
		t.Fatal(err)
	}
	claim := fc.claims["spot-42"]
	if claim == nil || claim.o == nil {
		t.Fatal("the owner was not claimed and bound")
	}
	step := func(ms float64) {
		t.Helper()
		if err := Drain(L, "update", func() error { return h.Update(ms) }); err != nil {
			t.Fatal(err)
		}
	}
	fences := func() []string {
		tbl := L.GetGlobal("fences").(*lua.LTable)
		var out []string
		for i := 1; i <= tbl.Len(); i++ {
			out = append(out, tbl.RawGetInt(i).String())
		}
		L.SetGlobal("fences", L.NewTable())
		return out
	}
	step(20)
	if got := fences(); len(got) != 2 || got[0] != "11" {
		t.Fatalf("while owned: %q", got)
	}
	claim.owned = false
	step(30)
	if got := fences(); len(got) != 0 {
		t.Fatalf("while a standby: %q", got)
	}
	if err := chunk(t, L, `assert(o:is_owned() == false)`); err != nil {
		t.Fatal(err)
	}
	claim.owned, claim.fence = true, 12
	_ = claim.o.Renew()
	step(20)
	if got := fences(); len(got) != 2 || got[0] != "12" {
		t.Fatalf("after the refresh under fence 12: %q", got)
	}
	if err := chunk(t, L, `assert(o:transfer() == true); assert(not o:is_owned())`); err != nil {
		t.Fatal(err)
	}
	if claim.resigned != 1 {
		t.Fatalf("transfer resigned %d times", claim.resigned)
	}
	step(30)
	if got := fences(); len(got) != 0 {
		t.Fatalf("after transfer: %q", got)
	}
}

// Without a cluster an id is a label: tick.fence is the local owner's
// authority ("0", then one more per transfer) and owned? is true.
func TestLocalOwnerFenceAndOwned(t *testing.T) {
	L, _ := budgetState(t, Options{})
	err := chunk(t, L, `
		local Temporal = require "temporal"
		local function ms(n) return Temporal.duration{ milliseconds = n } end
		local s = require("runtime-scheduler").create()
		local o = s:owner{ id = "spot-42", lease = ms(100) }
		local got = {}
		o:register_timer{ key = "k", interval = ms(10), callback = function(tick) got[#got + 1] = tick.fence end }
		s:advance(ms(10))
		o:transfer()
		s:advance(ms(10))
		assert(got[1] == "0" and got[2] == "1", table.concat(got, ","))
		assert(o:is_owned() == true)
	`)
	if err != nil {
		t.Fatal(err)
	}
}

// A claim that fails raises a Lua error naming owner and the id, and
// makes no owner.
func TestClusterClaimErrorIsALuaError(t *testing.T) {
	fc := &fakeCluster{claims: map[string]*fakeClaim{}, fail: errors.New("etcd: no lease")}
	L, _ := budgetState(t, Options{Cluster: fc})
	err := chunk(t, L, `require("app-host").scheduler:owner{ id = "spot-1", lease = require("temporal").duration{ seconds = 1 } }`)
	luaeval.WantErr(t, err, `f.lua:1: owner: id "spot-1": etcd: no lease`)
}

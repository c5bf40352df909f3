package scripting

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/sched"
)

// Owners across processes: with Options.Cluster set (metronome run
// --realtime --cluster), an owner made with an id is claimed in the
// cluster and ticks under the claim's authority (cadence.Authority) instead
// of its local lease.

// Cluster claims keyed-timer owners that have an id in a store that
// processes share (etcd, through cluster/etcdlease).
type Cluster interface {
	// Claim claims id for this process: owned at once when nobody owns
	// it, else a standby. An error is raised in the script.
	Claim(id string) (ClusterClaim, error)
}

// ClusterClaim is one claimed owner id.
type ClusterClaim interface {
	cadence.Authority
	// Bind names the owner the claim ticks; the claim calls its Renew, on
	// the state's goroutine, whenever its answer changes.
	Bind(o *sched.Owner)
	// Resign gives the id up, letting a standby take over (o:transfer()).
	Resign() error
}

const clusterKey = "metronome.cluster"

// setCluster keeps c for the owners the state makes.
func setCluster(L *lua.LState, c Cluster) {
	if c == nil {
		return
	}
	ud := L.NewUserData()
	ud.Value = c
	L.G.Registry.RawSetString(clusterKey, ud)
}

func clusterOf(L *lua.LState) Cluster {
	if ud, ok := L.G.Registry.RawGetString(clusterKey).(*lua.LUserData); ok {
		return ud.Value.(Cluster)
	}
	return nil
}

// claimOwner makes the owner id under the state's cluster; ok is false
// without a cluster (the owner keeps its local lease).
func claimOwner(L *lua.LState, fn, id string, t target) (*luaOwner, bool) {
	c := clusterOf(L)
	if c == nil || id == "" {
		return nil, false
	}
	claim, err := c.Claim(id)
	if err != nil {
		raise(L, "%s: id %q: %v", fn, id, err)
	}
	o, err := t.s.NewOwner(sched.OwnerOptions{ID: id, Authority: claim})
	raiseError(L, luaCall{fn, 2, true}, err)
	claim.Bind(o)
	return &luaOwner{o: o, id: id, t: t, claim: claim}, true
}

// ownerOwned is o["owned?"](o): whether this process owns o now. An owner
// outside a cluster is always its process's.
func ownerOwned(L *lua.LState) int {
	lo := checkLuaOwner(L, "owned?")
	owned := true
	if lo.claim != nil {
		_, owned = lo.claim.Lease()
	}
	L.Push(lua.LBool(owned))
	return 1
}

// ownerTransfer is o:transfer(): a new authority for a local owner; a
// resignation, for a standby to take over, for a claimed one.
func ownerTransfer(L *lua.LState) int {
	lo := checkLuaOwner(L, "transfer")
	if lo.claim != nil {
		if err := lo.claim.Resign(); err != nil {
			raise(L, "transfer: %v", err)
		}
	} else {
		raiseError(L, luaCall{fn: "transfer"}, lo.o.Transfer())
	}
	L.Push(lua.LTrue)
	return 1
}

func checkLuaOwner(L *lua.LState, fn string) *luaOwner {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if o, ok := ud.Value.(*luaOwner); ok {
			return o
		}
	}
	argError(L, 1, fn, "keyed timer owner expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return nil
}

// setFence writes tick.fence, the decimal fence, when it changed.
func (r *timerRunner) setFence(tbl *lua.LTable, fence uint64, first bool) {
	if first || fence != r.fence {
		r.fence = fence
		tbl.RawSetString("fence", lua.LString(strconv.FormatUint(fence, 10)))
	}
}

package scripting

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/temporal"
)

// clockPolicy is what a state's Options say about clocks. It lives in the
// registry, so the module functions of every thread of the state find it;
// a state not made by NewState has none and gets the wall clock.
type clockPolicy struct {
	def  temporal.Clock // runtime-scheduler create{} and make-scheduler{} without :clock
	wall bool           // Temporal.clock.system() allowed
}

const clockPolicyKey = "metronome.clock-policy"

var wallClockPolicy = &clockPolicy{def: temporal.System(), wall: true}

// installClockPolicy records opts' Clock and AllowWallClock in L. The wall
// clock is refused only when opts.Clock is another clock and AllowWallClock
// is false, so the zero Options keep the wall clock and allow it.
func installClockPolicy(L *lua.LState, opts Options) {
	if opts.Clock == nil || opts.Clock == temporal.System() {
		return
	}
	ud := L.NewUserData()
	ud.Value = &clockPolicy{def: opts.Clock, wall: opts.AllowWallClock}
	L.G.Registry.RawSetString(clockPolicyKey, ud)
}

func clockPolicyOf(L *lua.LState) *clockPolicy {
	if ud, ok := L.G.Registry.RawGetString(clockPolicyKey).(*lua.LUserData); ok {
		if p, ok := ud.Value.(*clockPolicy); ok {
			return p
		}
	}
	return wallClockPolicy
}

// defaultClock is the clock of a create{} or make-scheduler{} without one.
func defaultClock(L *lua.LState) temporal.Clock { return clockPolicyOf(L).def }

// checkWallClock raises unless L may read the wall clock, naming instead
// as what to use.
func checkWallClock(L *lua.LState, fn, instead string) {
	if !clockPolicyOf(L).wall {
		raise(L, "%s: the wall clock is refused: this state runs on a virtual clock, so a run repeats; "+
			"use %s, or allow the wall clock with --allow-wallclock (Options.AllowWallClock in Go)", fn, instead)
	}
}

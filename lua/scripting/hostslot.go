package scripting

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/compat"
	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/temporal"
)

// HostSlot holds the host that app-host and runtime-timers act on in the
// states given HostSlotModules. Set swaps it: the Lua objects scripts hold
// (require "app-host"'s scheduler, the runtime-timers module) stay the same
// and act on the new host from their next call, so every kind of work the
// host's scheduler carries goes with the old host. The script-test harness
// gives each test a fresh host this way. Handles and Debouncers made before
// a swap stay bound to the host they were made on.
//
// A HostSlot is also a temporal.Clock reading its current host, for
// Options.Clock.
type HostSlot struct {
	h *hostservices.Host
}

// NewHostSlot returns a slot holding h. It panics if h is nil.
func NewHostSlot(h *hostservices.Host) *HostSlot {
	if h == nil {
		panic("scripting.NewHostSlot: nil host")
	}
	return &HostSlot{h: h}
}

// Host returns the host the slot holds now.
func (s *HostSlot) Host() *hostservices.Host { return s.h }

// Set makes h the slot's host and returns the one it replaces. It panics
// if h is nil. Call it between script calls, not from a callback.
func (s *HostSlot) Set(h *hostservices.Host) (old *hostservices.Host) {
	if h == nil {
		panic("scripting.HostSlot.Set: nil host")
	}
	old, s.h = s.h, h
	return old
}

// Now is the current host's instant.
func (s *HostSlot) Now() temporal.Instant { return s.h.Now() }

// HostSlotModules is HostModules on the slot's current host: app-host,
// app-host.services and runtime-timers, following Set.
func HostSlotModules(slot *HostSlot, quit func()) map[string]lua.LGFunction {
	if slot == nil {
		panic("scripting.HostSlotModules: nil slot")
	}
	return map[string]lua.LGFunction{
		"app-host": func(L *lua.LState) int {
			mod := L.NewTable()
			hs := newSlotHostValue(L, slot)
			mod.RawSetString("scheduler", hs)
			mod.RawSetString("handlers", L.NewFunction(hostHandlers(hs)))
			mod.RawSetString("quit", L.NewFunction(func(L *lua.LState) int {
				if quit == nil {
					L.Push(lua.LFalse)
					return 1
				}
				quit()
				L.Push(lua.LTrue)
				return 1
			}))
			L.Push(mod)
			return 1
		},
		"app-host.services": loadAppHostServices,
		"runtime-timers": func(L *lua.LState) int {
			// This state's group of timers, made again on each new host.
			var tm *compat.Timers
			var on *hostservices.Host
			return loadRuntimeTimers(L, func() *compat.Timers {
				if h := slot.h; h != on {
					tm, on = compat.New(h.Scheduler()), h
				}
				return tm
			})
		},
	}
}

// newSlotHostValue is the app-host scheduler object of a slot: each method
// call acts on the slot's current host (checkLuaHost refreshes h).
func newSlotHostValue(L *lua.LState, slot *HostSlot) *lua.LUserData {
	ud := newHostValue(L, slot.h)
	ud.Value.(*luaHost).slot = slot
	return ud
}

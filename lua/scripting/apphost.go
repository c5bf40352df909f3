package scripting

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
)

// HostModules returns the loaders of app-host, app-host.services and
// runtime-timers bound to h; quit is called by host.quit() (nil: quit is a
// no-op that returns false). Pass them in Options.Modules, or preload them
// into a state of your own with PreloadHostModules:
//
//	h := hostservices.New(temporal.System())
//	L := scripting.NewState(scripting.Options{Modules: scripting.HostModules(h, cancel)})
//	... each frame: h.UpdateBy(dt)
//
// require "app-host" gives { scheduler = <h as a Lua object>, quit = fn }.
// require "runtime-timers" gives millisecond timers on h's scheduler: they
// run in one timeline with h's own jobs, and move when h's frames do. Each
// state that loads runtime-timers gets its own group of timers, so its
// clear() leaves other states' timers alone.
//
// Callbacks, facets and timers scripts register run on the main thread of
// the state that registered them, so h must be driven from the goroutine
// that owns that state.
func HostModules(h *hostservices.Host, quit func()) map[string]lua.LGFunction {
	if h == nil {
		panic("scripting.HostModules: nil host")
	}
	return HostSlotModules(NewHostSlot(h), quit)
}

// PreloadHostModules puts HostModules(h, quit) into L's package.preload, for
// a state made without them.
func PreloadHostModules(L *lua.LState, h *hostservices.Host, quit func()) {
	preload, ok := L.GetField(L.GetGlobal("package"), "preload").(*lua.LTable)
	if !ok {
		panic("scripting.PreloadHostModules: the state has no package.preload table")
	}
	for name, loader := range HostModules(h, quit) {
		preload.RawSetString(name, L.NewFunction(loader))
	}
}

// loadAppHostServices is the loader of app-host.services.
func loadAppHostServices(L *lua.LState) int {
	mod := L.NewTable()
	setFuncs(L, mod, dotCalled(mod, "app-host.services", "services", map[string]lua.LGFunction{"make-scheduler": makeScheduler}))
	strictModule(L, "app-host.services", mod)
	L.Push(mod)
	return 1
}

// makeScheduler is services["make-scheduler"]{ clock = c }: a new host with
// a private scheduler whose epoch is c:now() (default Options.Clock).
func makeScheduler(L *lua.LState) int {
	L.Push(newHostValue(L, hostservices.New(clockOption(L, "make-scheduler"))))
	return 1
}

// The host object.

// hostType names a host object to scripts and its metatable in the
// registry.
const hostType = "app-host scheduler"

type luaHost struct {
	h     *hostservices.Host
	slot  *HostSlot // non-nil: h follows the slot's host (HostSlotModules)
	jobs  jobCache
	trace *hostTrace // hs:trace, see host_clock.go
}

func (*luaHost) luaTypeName() string { return hostType }

func newHostValue(L *lua.LState, h *hostservices.Host) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = &luaHost{h: h}
	L.SetMetatable(ud, typeMetatable(L, hostType, buildHostMeta))
	return ud
}

func buildHostMeta(L *lua.LState, mt *lua.LTable) {
	methods := L.NewTable()
	setFuncs(L, methods, hostMethods)
	setFuncs(L, methods, hostClockMethods)
	strictMethods(L, hostType, methods)
	mt.RawSetString("__index", methods)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		h := checkHost(L, "tostring")
		state := "running"
		if h.Paused() {
			state = "paused"
		}
		L.Push(lua.LString(fmt.Sprintf("app-host scheduler at %s, %s, %d jobs, %d facets",
			h.Now(), state, h.Scheduler().Count(h.Jobs()), len(h.Facets()))))
		return 1
	}))
}

func checkHost(L *lua.LState, fn string) *hostservices.Host { return checkLuaHost(L, fn).h }

func checkLuaHost(L *lua.LState, fn string) *luaHost {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if lh, ok := ud.Value.(*luaHost); ok {
			if lh.slot != nil {
				lh.h = lh.slot.h
			}
			return lh
		}
	}
	argError(L, 1, fn, "app-host scheduler expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return nil
}

// checkString reads argument n as a Lua string; numbers are refused, unlike
// L.CheckString.
func checkString(L *lua.LState, n int, fn, name string) string {
	s, ok := L.Get(n).(lua.LString)
	if !ok {
		argError(L, n, fn, fmt.Sprintf("%s must be a string, got %s", name, describe(L.Get(n))))
	}
	return string(s)
}

// facetOf adapts argument n, a function or a table with an update method,
// to a facet: a function is called as f(dt), a table as facet:update(dt).
func facetOf(L *lua.LState, n int, fn string) hostservices.Facet {
	main := L.G.MainThread // callbacks outlive the thread that registered them
	cbs := callbacksOf(main)
	switch v := L.Get(n).(type) {
	case *lua.LFunction:
		return hostservices.FacetFunc(func(dt float64) error {
			main.Push(v)
			main.Push(lua.LNumber(dt))
			return cbs.Call(main, v, 1)
		})
	case *lua.LTable:
		if _, ok := L.GetField(v, "update").(*lua.LFunction); !ok {
			argError(L, n, fn, "a table facet needs an update method, got update = "+describe(L.GetField(v, "update")))
		}
		return hostservices.FacetFunc(func(dt float64) error {
			m, err := cbs.LookUp(main, v, "update")
			if err != nil {
				return err
			}
			upd, ok := m.(*lua.LFunction)
			if !ok {
				return fmt.Errorf("update must be a function, got %s", describe(m))
			}
			main.Push(upd)
			main.Push(v)
			main.Push(lua.LNumber(dt))
			return cbs.Call(main, upd, 2)
		})
	}
	argError(L, n, fn, "facet must be a function or a table with an update method, got "+describe(L.Get(n)))
	return nil
}

var hostMethods = map[string]lua.LGFunction{
	"schedule-once": func(L *lua.LState) int {
		lh := checkLuaHost(L, "schedule-once")
		pushHandle(L, scheduleOnce(L, hostTarget(lh.h), &lh.jobs, "schedule-once"))
		return 1
	},
	"schedule-every": func(L *lua.LState) int {
		lh := checkLuaHost(L, "schedule-every")
		pushHandle(L, scheduleEvery(L, hostTarget(lh.h), &lh.jobs, "schedule-every"))
		return 1
	},
	"schedule-recurrence": func(L *lua.LState) int {
		pushHandle(L, scheduleRecurrence(L, hostTarget(checkHost(L, "schedule-recurrence")), "schedule-recurrence"))
		return 1
	},
	"clear": func(L *lua.LState) int {
		raiseError(L, luaCall{fn: "clear"}, checkHost(L, "clear").Clear())
		L.Push(lua.LTrue)
		return 1
	},
	"register": func(L *lua.LState) int {
		h := checkHost(L, "register")
		name := checkString(L, 2, "register", "name")
		if name == "" {
			argError(L, 2, "register", `name must be a non-empty string, got ""`)
		}
		f := facetOf(L, 3, "register")
		raiseError(L, luaCall{fn: "register"}, h.Register(name, f))
		L.Push(lua.LTrue)
		return 1
	},
	"unregister": func(L *lua.LState) int {
		h := checkHost(L, "unregister")
		L.Push(lua.LBool(h.Unregister(checkString(L, 2, "unregister", "name"))))
		return 1
	},
	"list": func(L *lua.LState) int {
		names := checkHost(L, "list").Facets()
		t := L.CreateTable(len(names), 0)
		for _, n := range names {
			t.Append(lua.LString(n))
		}
		L.Push(t)
		return 1
	},
	"update": func(L *lua.LState) int {
		h := checkHost(L, "update")
		raiseError(L, luaCall{"update", 2, false}, drainHost(L, "update", h.Update, checkNumber(L, 2, "update", "delta-ms")))
		L.Push(lua.LTrue)
		return 1
	},
	"step": func(L *lua.LState) int {
		h := checkHost(L, "step")
		raiseError(L, luaCall{"step", 2, false}, drainHost(L, "step", h.Step, checkNumber(L, 2, "step", "delta-ms")))
		L.Push(lua.LTrue)
		return 1
	},
	"set-paused": func(L *lua.LState) int {
		h := checkHost(L, "set-paused")
		p, ok := L.Get(2).(lua.LBool)
		if !ok {
			argError(L, 2, "set-paused", "paused must be a boolean, got "+describe(L.Get(2)))
		}
		h.SetPaused(bool(p))
		L.Push(lua.LTrue)
		return 1
	},
	"paused?": func(L *lua.LState) int {
		L.Push(lua.LBool(checkHost(L, "paused?").Paused()))
		return 1
	},
	"on-error":       hostOnError,
	"register-timer": hostRegisterTimer,
	"spawn":          hostSpawn,
	"wait":           hostWait,
	"owner":          hostOwner,
	"debouncer": func(L *lua.LState) int {
		h := checkHost(L, "debouncer")
		return newKeyDebouncer(L, h.Scheduler(), h.Jobs())
	},
	"now": func(L *lua.LState) int {
		L.Push(newInstant(L, checkHost(L, "now").Now()))
		return 1
	},
}

// drainHost runs a host's Update or Step under the drain budget.
func drainHost(L *lua.LState, name string, f func(float64) error, deltaMs float64) error {
	return Drain(L, name, func() error { return f(deltaMs) })
}

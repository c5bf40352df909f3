package scripting

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/compat"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// typedHint points a typed key given to runtime-timers at the typed API.
var typedHint = map[string]string{
	"delay":    "runtime-timers takes :delay-ms, a number of milliseconds; for a Temporal.duration :delay use runtime-scheduler (or the app-host scheduler's schedule-once)",
	"interval": "runtime-timers takes :interval-ms, a number of milliseconds; for a Temporal.duration :interval use runtime-scheduler (or the app-host scheduler's schedule-every)",
}

// loadRuntimeTimers is the loader of runtime-timers: millisecond timers in
// the group tm returns (this state's, on the current host).
func loadRuntimeTimers(L *lua.LState, tm func() *compat.Timers) int {
	var jobs jobCache
	mod := L.NewTable()
	setFuncs(L, mod, dotCalled(mod, "runtime-timers", "RuntimeTimers", map[string]lua.LGFunction{
		"Timeout": func(L *lua.LState) int {
			const fn = "Timeout"
			o := checkOptions(L, 1, fn, []string{"delay-ms", "callback", "label"}, typedHint)
			ms := o.millis("delay-ms")
			cb := o.function("callback")
			h, err := tm().Timeout(ms, jobs.get(L, cb), o.handleOptions()...)
			raiseError(L, luaCall{fn, 1, true}, err)
			pushTimersHandle(L, h, ms)
			return 1
		},
		"Interval": func(L *lua.LState) int {
			const fn = "Interval"
			o := checkOptions(L, 1, fn, []string{"interval-ms", "callback", "label"}, typedHint)
			ms := o.millis("interval-ms")
			cb := o.function("callback")
			h, err := tm().Interval(ms, jobs.get(L, cb), o.handleOptions()...)
			raiseError(L, luaCall{fn, 1, true}, err)
			pushTimersHandle(L, h, ms)
			return 1
		},
		"Debouncer": func(L *lua.LState) int {
			const fn = "Debouncer"
			o := checkOptions(L, 1, fn, []string{"delay-ms", "callback", "label"}, typedHint)
			ms := o.millis("delay-ms")
			cb := o.function("callback")
			main := L.G.MainThread
			cbs := callbacksOf(main)
			label := where(L)
			jobOpts := o.jobOptions()
			d, err := tm().Debouncer(ms, func(args []any) error {
				main.Push(cb)
				for _, a := range args {
					main.Push(a.(lua.LValue))
				}
				return cbs.Call(main, cb, len(args))
			}, jobOpts...)
			raiseError(L, luaCall{fn, 1, true}, err)
			ud := L.NewUserData()
			ud.Value = &luaDebouncer{d, label}
			L.SetMetatable(ud, typeMetatable(L, debouncerType, buildDebouncerMeta))
			L.Push(ud)
			return 1
		},
		"count": func(L *lua.LState) int {
			L.Push(lua.LNumber(tm().Count()))
			return 1
		},
		"list": func(L *lua.LState) int {
			pushJobList(L, tm().List())
			return 1
		},
		"clear": func(L *lua.LState) int {
			raiseError(L, luaCall{fn: "clear"}, tm().Clear())
			L.Push(lua.LTrue)
			return 1
		},
	}))
	strictModule(L, "runtime-timers", mod)
	L.Push(mod)
	return 1
}

// pushTimersHandle pushes a runtime-timers handle: its reset takes
// milliseconds, by default ms.
func pushTimersHandle(L *lua.LState, h sched.Handle, ms float64) {
	d, _ := temporal.Millis(ms)
	pushHandle(L, &luaHandle{h: h, ms: true, reset: d})
}

// millis reads a required millisecond option: a Lua number (numeric strings
// and durations refused). Its range is checked by compat.
func (o *options) millis(key string) float64 {
	switch v := o.get(key).(type) {
	case lua.LNumber:
		return float64(v)
	case *lua.LUserData:
		if _, isDur := toDuration(v); isDur {
			o.fail(key, temporal.WantMillis+"; for a Temporal.duration use runtime-scheduler")
		}
	}
	o.fail(key, temporal.WantMillis)
	return 0
}

// The Debouncer object.

// debouncerType names a Debouncer to scripts and its metatable in the
// registry.
const debouncerType = "runtime-timers Debouncer"

type luaDebouncer struct {
	d     *compat.Debouncer
	label string // where it was made
}

func (*luaDebouncer) luaTypeName() string { return debouncerType }

func checkDebouncer(L *lua.LState, fn string) *compat.Debouncer { return checkLuaDebouncer(L, fn).d }

func checkLuaDebouncer(L *lua.LState, fn string) *luaDebouncer {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if ld, ok := ud.Value.(*luaDebouncer); ok {
			return ld
		}
	}
	argError(L, 1, fn, "Debouncer expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return nil
}

// debounceCall is db(...) and db:call(...): (re)arm with these arguments.
func debounceCall(L *lua.LState) int {
	d := checkDebouncer(L, "call")
	n := L.GetTop() - 1
	args := make([]any, max(n, 0))
	for i := range args {
		args[i] = L.Get(i + 2)
	}
	raiseError(L, luaCall{fn: "Debouncer"}, d.Call(args...))
	L.Push(lua.LTrue)
	return 1
}

var debouncerMethods = map[string]lua.LGFunction{
	"call": debounceCall,
	"cancel": func(L *lua.LState) int {
		L.Push(lua.LBool(checkDebouncer(L, "cancel").Cancel()))
		return 1
	},
	"flush": func(L *lua.LState) int {
		ld := checkLuaDebouncer(L, "flush")
		ran := ld.d.Pending()
		if err := ld.d.Flush(); err != nil {
			raiseError(L, luaCall{fn: "flush"}, &flushError{label: ld.label, err: err})
		}
		L.Push(lua.LBool(ran))
		return 1
	},
	"pending?": func(L *lua.LState) int {
		L.Push(lua.LBool(checkDebouncer(L, "pending?").Pending()))
		return 1
	},
}

func buildDebouncerMeta(L *lua.LState, mt *lua.LTable) {
	methods := L.NewTable()
	setFuncs(L, methods, debouncerMethods)
	strictMethods(L, debouncerType, methods)
	mt.RawSetString("__index", methods)
	mt.RawSetString("__call", L.NewFunction(debounceCall))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		state := "idle"
		if checkDebouncer(L, "tostring").Pending() {
			state = "pending"
		}
		L.Push(lua.LString("runtime-timers Debouncer (" + state + ")"))
		return 1
	}))
}

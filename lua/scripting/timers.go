package scripting

import (
	"errors"
	"fmt"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/compat"
	"github.com/metronome-rt/metronome/runtime/sched"
)

// typedHint points a typed key given to runtime-timers at the typed API.
var typedHint = map[string]string{
	"delay":    "runtime-timers takes :delay-ms, a number of milliseconds; for a Temporal.duration :delay use runtime-scheduler (or the app-host scheduler's schedule-once)",
	"interval": "runtime-timers takes :interval-ms, a number of milliseconds; for a Temporal.duration :interval use runtime-scheduler (or the app-host scheduler's schedule-every)",
}

// loadRuntimeTimers is the loader of runtime-timers: millisecond timers in
// a group of their own on s.
func loadRuntimeTimers(L *lua.LState, s *sched.Scheduler) int {
	tm := compat.New(s)
	var jobs jobCache
	mod := L.NewTable()
	setFuncs(L, mod, map[string]lua.LGFunction{
		"Timeout": func(L *lua.LState) int {
			const fn = "Timeout"
			o := checkOptions(L, 1, fn, []string{"delay-ms", "callback"}, typedHint)
			ms := o.millis("delay-ms", "a finite number >= 0")
			cb := o.function("callback")
			h, err := tm.Timeout(ms, jobs.get(L, cb), sched.WithLabel(where(L)))
			raiseCompat(L, &o, err)
			pushHandle(L, h)
			return 1
		},
		"Interval": func(L *lua.LState) int {
			const fn = "Interval"
			o := checkOptions(L, 1, fn, []string{"interval-ms", "callback"}, typedHint)
			ms := o.millis("interval-ms", "a finite number > 0")
			cb := o.function("callback")
			h, err := tm.Interval(ms, jobs.get(L, cb), sched.WithLabel(where(L)))
			raiseCompat(L, &o, err)
			pushHandle(L, h)
			return 1
		},
		"Debouncer": func(L *lua.LState) int {
			const fn = "Debouncer"
			o := checkOptions(L, 1, fn, []string{"delay-ms", "callback"}, typedHint)
			ms := o.millis("delay-ms", "a finite number >= 0")
			cb := o.function("callback")
			main := L.G.MainThread
			d, err := tm.Debouncer(ms, func(args []any) error {
				main.Push(cb)
				for _, a := range args {
					main.Push(a.(lua.LValue))
				}
				return main.PCall(len(args), 0, nil)
			}, sched.WithLabel(where(L)))
			raiseCompat(L, &o, err)
			ud := L.NewUserData()
			ud.Value = &luaDebouncer{d}
			L.SetMetatable(ud, debouncerMetatable(L))
			L.Push(ud)
			return 1
		},
		"clear": func(L *lua.LState) int {
			if err := tm.Clear(); err != nil {
				raise(L, "clear: %s", err)
			}
			L.Push(lua.LTrue)
			return 1
		},
	})
	L.Push(mod)
	return 1
}

// millis reads a required millisecond option: a Lua number (numeric strings
// and durations refused). Its range is checked by compat.
func (o *options) millis(key, want string) float64 {
	switch v := o.get(key).(type) {
	case lua.LNumber:
		return float64(v)
	case *lua.LNilType:
		o.fail(key, want+" (milliseconds)")
	}
	if _, isDur := toDuration(o.get(key)); isDur {
		o.fail(key, want+" (milliseconds); for a Temporal.duration use runtime-scheduler")
	}
	o.fail(key, want+" (milliseconds)")
	return 0
}

// raiseCompat turns a compat error into a Lua error: option errors as
// argument errors on the option table.
func raiseCompat(L *lua.LState, o *options, err error) {
	if err == nil {
		return
	}
	var oe *sched.OptionError
	if errors.As(err, &oe) {
		got := fmt.Sprint(oe.Got)
		if f, ok := oe.Got.(float64); ok {
			got = describe(lua.LNumber(f))
		}
		argError(L, o.arg, o.fn, fmt.Sprintf(":%s must be %s, got %s", oe.Key, oe.Want, got))
	}
	raise(L, "%s: %s", o.fn, err)
}

// The Debouncer object.

const debouncerMeta = "metronome.runtime-timers.debouncer"

type luaDebouncer struct{ d *compat.Debouncer }

func (*luaDebouncer) luaTypeName() string { return "runtime-timers Debouncer" }

func checkDebouncer(L *lua.LState, fn string) *compat.Debouncer {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if ld, ok := ud.Value.(*luaDebouncer); ok {
			return ld.d
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
	if err := d.Call(args...); err != nil {
		raise(L, "%s", err)
	}
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
		d := checkDebouncer(L, "flush")
		ran := d.Pending()
		if err := d.Flush(); err != nil {
			raiseJobError(L, "flush", err)
		}
		L.Push(lua.LBool(ran))
		return 1
	},
	"pending?": func(L *lua.LState) int {
		L.Push(lua.LBool(checkDebouncer(L, "pending?").Pending()))
		return 1
	},
}

func debouncerMetatable(L *lua.LState) *lua.LTable {
	reg := L.Get(lua.RegistryIndex).(*lua.LTable)
	if mt, ok := reg.RawGetString(debouncerMeta).(*lua.LTable); ok {
		return mt
	}
	methods := L.NewTable()
	setFuncs(L, methods, debouncerMethods)
	mt := L.NewTable()
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
	reg.RawSetString(debouncerMeta, mt)
	return mt
}

package lua

import (
	"errors"
	"fmt"

	glua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/compat"
	"github.com/metronome-rt/metronome/runtime"
)

// typedHint points a typed key given to runtime-timers at the typed API.
var typedHint = map[string]string{
	"delay":    "runtime-timers takes :delay-ms, a number of milliseconds; for a Temporal.duration :delay use runtime-scheduler (or the app-host scheduler's schedule-once)",
	"interval": "runtime-timers takes :interval-ms, a number of milliseconds; for a Temporal.duration :interval use runtime-scheduler (or the app-host scheduler's schedule-every)",
}

// loadRuntimeTimers is the loader of runtime-timers: millisecond timers in
// a group of their own on s.
func loadRuntimeTimers(L *glua.LState, s *runtime.Scheduler) int {
	tm := compat.New(s)
	var jobs jobCache
	mod := L.NewTable()
	setFuncs(L, mod, map[string]glua.LGFunction{
		"Timeout": func(L *glua.LState) int {
			const fn = "Timeout"
			o := checkOptions(L, 1, fn, []string{"delay-ms", "callback"}, typedHint)
			ms := o.millis("delay-ms", "a finite number >= 0")
			cb := o.function("callback")
			h, err := tm.Timeout(ms, jobs.get(L, cb), runtime.WithLabel(where(L)))
			raiseCompat(L, &o, err)
			pushHandle(L, h)
			return 1
		},
		"Interval": func(L *glua.LState) int {
			const fn = "Interval"
			o := checkOptions(L, 1, fn, []string{"interval-ms", "callback"}, typedHint)
			ms := o.millis("interval-ms", "a finite number > 0")
			cb := o.function("callback")
			h, err := tm.Interval(ms, jobs.get(L, cb), runtime.WithLabel(where(L)))
			raiseCompat(L, &o, err)
			pushHandle(L, h)
			return 1
		},
		"Debouncer": func(L *glua.LState) int {
			const fn = "Debouncer"
			o := checkOptions(L, 1, fn, []string{"delay-ms", "callback"}, typedHint)
			ms := o.millis("delay-ms", "a finite number >= 0")
			cb := o.function("callback")
			main := L.G.MainThread
			d, err := tm.Debouncer(ms, func(args []any) error {
				main.Push(cb)
				for _, a := range args {
					main.Push(a.(glua.LValue))
				}
				return main.PCall(len(args), 0, nil)
			}, runtime.WithLabel(where(L)))
			raiseCompat(L, &o, err)
			ud := L.NewUserData()
			ud.Value = &luaDebouncer{d}
			L.SetMetatable(ud, debouncerMetatable(L))
			L.Push(ud)
			return 1
		},
		"clear": func(L *glua.LState) int {
			if err := tm.Clear(); err != nil {
				raise(L, "clear: %s", err)
			}
			L.Push(glua.LTrue)
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
	case glua.LNumber:
		return float64(v)
	case *glua.LNilType:
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
func raiseCompat(L *glua.LState, o *options, err error) {
	if err == nil {
		return
	}
	var oe *runtime.OptionError
	if errors.As(err, &oe) {
		got := fmt.Sprint(oe.Got)
		if f, ok := oe.Got.(float64); ok {
			got = describe(glua.LNumber(f))
		}
		argError(L, o.arg, o.fn, fmt.Sprintf(":%s must be %s, got %s", oe.Key, oe.Want, got))
	}
	raise(L, "%s: %s", o.fn, err)
}

// The Debouncer object.

const debouncerMeta = "metronome.runtime-timers.debouncer"

type luaDebouncer struct{ d *compat.Debouncer }

func (*luaDebouncer) luaTypeName() string { return "runtime-timers Debouncer" }

func checkDebouncer(L *glua.LState, fn string) *compat.Debouncer {
	if ud, ok := L.Get(1).(*glua.LUserData); ok {
		if ld, ok := ud.Value.(*luaDebouncer); ok {
			return ld.d
		}
	}
	argError(L, 1, fn, "Debouncer expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return nil
}

// debounceCall is db(...) and db:call(...): (re)arm with these arguments.
func debounceCall(L *glua.LState) int {
	d := checkDebouncer(L, "call")
	n := L.GetTop() - 1
	args := make([]any, max(n, 0))
	for i := range args {
		args[i] = L.Get(i + 2)
	}
	if err := d.Call(args...); err != nil {
		raise(L, "%s", err)
	}
	L.Push(glua.LTrue)
	return 1
}

var debouncerMethods = map[string]glua.LGFunction{
	"call": debounceCall,
	"cancel": func(L *glua.LState) int {
		L.Push(glua.LBool(checkDebouncer(L, "cancel").Cancel()))
		return 1
	},
	"flush": func(L *glua.LState) int {
		d := checkDebouncer(L, "flush")
		ran := d.Pending()
		if err := d.Flush(); err != nil {
			raiseJobError(L, "flush", err)
		}
		L.Push(glua.LBool(ran))
		return 1
	},
	"pending?": func(L *glua.LState) int {
		L.Push(glua.LBool(checkDebouncer(L, "pending?").Pending()))
		return 1
	},
}

func debouncerMetatable(L *glua.LState) *glua.LTable {
	reg := L.Get(glua.RegistryIndex).(*glua.LTable)
	if mt, ok := reg.RawGetString(debouncerMeta).(*glua.LTable); ok {
		return mt
	}
	methods := L.NewTable()
	setFuncs(L, methods, debouncerMethods)
	mt := L.NewTable()
	mt.RawSetString("__index", methods)
	mt.RawSetString("__call", L.NewFunction(debounceCall))
	mt.RawSetString("__tostring", L.NewFunction(func(L *glua.LState) int {
		state := "idle"
		if checkDebouncer(L, "tostring").Pending() {
			state = "pending"
		}
		L.Push(glua.LString("runtime-timers Debouncer (" + state + ")"))
		return 1
	}))
	reg.RawSetString(debouncerMeta, mt)
	return mt
}

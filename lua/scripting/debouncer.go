package scripting

import (
	"errors"
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/runtime/debounce"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// keyDebouncerType names a scheduler's debouncer to scripts and its
// metatable in the registry.
const keyDebouncerType = "debouncer"

// luaKeyDebouncer is s:debouncer{...}: per-key debounce on a typed
// scheduler (runtime/debounce on a virtual clock). Keys are Lua values
// compared as rawequal compares them: Go's == on lua.LValue agrees for
// every value but NaN, which is refused.
type luaKeyDebouncer struct {
	d     *debounce.Debouncer[lua.LValue, []lua.LValue]
	label string // where it was made
}

func (*luaKeyDebouncer) luaTypeName() string { return keyDebouncerType }

var debouncerOptions = []string{"timeout", "busy-timeout", "force-min", "force-max", "throttle", "leading", "trailing", "seed", "callback", "label"}

// newKeyDebouncer is s:debouncer{...} on s, its jobs in g (nil: none).
func newKeyDebouncer(L *lua.LState, s *sched.Scheduler, g *sched.Group) int {
	const fn = "debouncer"
	o := checkOptions(L, 2, fn, debouncerOptions, nil)
	c := debounce.Config{Timeout: o.positive("timeout", true), Trailing: true}
	c.BusyTimeout = o.positive("busy-timeout", false)
	fmin, fmax := o.positive("force-min", false), o.positive("force-max", false)
	switch {
	case o.has("force-min") && !o.has("force-max"):
		o.fail("force-max", "given with :force-min (a Temporal.duration >= :force-min)")
	case o.has("force-max") && !o.has("force-min"):
		o.fail("force-min", "given with :force-max (a Temporal.duration > 0, at most :force-max)")
	case fmin > fmax:
		o.fail("force-max", fmt.Sprintf("a Temporal.duration >= :force-min (%v)", temporal.Duration(fmin)))
	}
	c.ForceMin, c.ForceMax = fmin, fmax
	if o.has("throttle") {
		d := o.duration("throttle", false)
		if d < 0 {
			o.fail("throttle", "a Temporal.duration >= 0")
		}
		c.Throttle = d
	}
	c.Leading = o.boolean("leading", false)
	c.Trailing = o.boolean("trailing", true)
	if !c.Leading && !c.Trailing {
		o.fail("trailing", "true when :leading is false (one edge at least)")
	}
	cb := o.function("callback")
	if n, given := o.integer("seed", false); given {
		c.Seed = uint64(n)
	} else {
		c.Seed = sandbox.NextRandom(L) // last: a refused table draws nothing
	}
	main := L.G.MainThread
	cbs := callbacksOf(main)
	label := where(L)
	d, err := debounce.New(&debounceTimers{s, g, o.jobOptions()}, c, func(key lua.LValue, args []lua.LValue) error {
		main.Push(cb)
		main.Push(key)
		for _, a := range args {
			main.Push(a)
		}
		return cbs.Call(main, cb, 1+len(args))
	})
	if err != nil { // the checks above are New's; this is a bug if reached
		raise(L, "%s: %v", fn, err)
	}
	ud := L.NewUserData()
	ud.Value = &luaKeyDebouncer{d: d, label: label}
	trackDebouncer(L, s, ud.Value.(*luaKeyDebouncer), o.label())
	L.SetMetatable(ud, typeMetatable(L, keyDebouncerType, buildKeyDebouncerMeta))
	L.Push(ud)
	return 1
}

// positive reads an optional (or required) Temporal.duration option that
// must be > 0; absent, it is 0.
func (o *options) positive(key string, required bool) temporal.Duration {
	if !required && !o.has(key) {
		return 0
	}
	d := o.duration(key, required)
	if d <= 0 {
		o.fail(key, "a Temporal.duration > 0")
	}
	return d
}

// boolean reads an optional boolean option with its default.
func (o *options) boolean(key string, def bool) bool {
	switch v := o.get(key).(type) {
	case lua.LBool:
		return bool(v)
	case *lua.LNilType:
		return def
	}
	o.fail(key, "a boolean")
	return def
}

func checkKeyDebouncer(L *lua.LState, fn string) *luaKeyDebouncer {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if ld, ok := ud.Value.(*luaKeyDebouncer); ok {
			return ld
		}
	}
	argError(L, 1, fn, "debouncer expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return nil
}

// checkKey reads argument 2 of fn, a debouncer key: any value but nil and
// NaN (which rawequal never matches).
func checkKey(L *lua.LState, fn string) lua.LValue {
	k := L.Get(2)
	if n, ok := k.(lua.LNumber); k == lua.LNil || ok && math.IsNaN(float64(n)) {
		argError(L, 2, fn, "key must be a value other than nil and NaN, got "+describe(k))
	}
	return k
}

// debouncerCallbackError is the error of a debouncer's callback run inside
// debounce (a leading edge) or flush.
type debouncerCallbackError struct {
	label string
	err   error
}

func (e *debouncerCallbackError) Error() string { return e.err.Error() }
func (e *debouncerCallbackError) Unwrap() error { return e.err }

// raiseDebounce raises err from the debouncer method fn: a callback's error
// with its traceback, a refused wake-up in the debouncer's terms.
func raiseDebounce(L *lua.LState, ld *luaKeyDebouncer, fn string, err error) {
	if err == nil {
		return
	}
	_, refused := asRefusal(err)
	switch {
	case isScriptError(err):
		err = &debouncerCallbackError{label: ld.label, err: err}
	case refused:
		err = &sched.CallError{Method: fn, Err: errors.New("the key's wake-up (:timeout, :busy-timeout or :throttle from now) would be past int64 nanoseconds after the scheduler's epoch")}
	}
	raiseError(L, luaCall{fn: fn}, err)
}

var keyDebouncerMethods = map[string]lua.LGFunction{
	"debounce": func(L *lua.LState) int {
		ld := checkKeyDebouncer(L, "debounce")
		key := checkKey(L, "debounce")
		var args []lua.LValue
		if n := L.GetTop() - 2; n > 0 {
			args = make([]lua.LValue, n)
			for i := range args {
				args[i] = L.Get(i + 3)
			}
		}
		raiseDebounce(L, ld, "debounce", ld.d.Debounce(key, args))
		L.Push(lua.LTrue)
		return 1
	},
	"cancel": func(L *lua.LState) int {
		ld := checkKeyDebouncer(L, "cancel")
		L.Push(lua.LBool(ld.d.Cancel(checkKey(L, "cancel"))))
		return 1
	},
	"flush": func(L *lua.LState) int {
		ld := checkKeyDebouncer(L, "flush")
		ran, err := ld.d.Flush(checkKey(L, "flush"))
		raiseDebounce(L, ld, "flush", err)
		L.Push(lua.LBool(ran))
		return 1
	},
	"pending?": func(L *lua.LState) int {
		ld := checkKeyDebouncer(L, "pending?")
		L.Push(lua.LBool(ld.d.Pending(checkKey(L, "pending?"))))
		return 1
	},
}

func buildKeyDebouncerMeta(L *lua.LState, mt *lua.LTable) {
	methods := L.NewTable()
	setFuncs(L, methods, keyDebouncerMethods)
	strictMethods(L, keyDebouncerType, methods)
	mt.RawSetString("__index", methods)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		ld := checkKeyDebouncer(L, "tostring")
		L.Push(lua.LString(fmt.Sprintf("debouncer made at %s, %d keys pending", ld.label, ld.d.Len())))
		return 1
	}))
}

// debounceJob describes a debouncer's job for list(): kind "debounce" and
// its key; ok is false for other jobs.
func debounceJob(j sched.JobInfo) (key lua.LValue, ok bool) {
	kd, ok := j.Data.(debounceKey)
	if !ok {
		return nil, false
	}
	key, ok = kd.key.(lua.LValue)
	return key, ok
}

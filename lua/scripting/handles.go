package scripting

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// The handle and time API (docs/lua-api.md, "Scheduling options and handles"):
// schedule-once's :at, schedule-every's :delay and :count, the :label of
// every scheduling call, and a handle's due, remaining and reset.

// countHint refuses :count on schedule-recurrence, which counts with :limit.
var countHint = map[string]string{
	"count": "schedule-recurrence caps its fires with :limit (use :limit)",
}

// jobOptions are the sched options of a scheduling call: the position of
// the Lua code calling it and, when given, its :label (a string).
func (o *options) jobOptions() []sched.JobOption { return o.schedOptions(false) }

// handleOptions are jobOptions for a job whose handle has reset.
func (o *options) handleOptions() []sched.JobOption { return o.schedOptions(true) }

func (o *options) schedOptions(rearm bool) []sched.JobOption {
	opts := make([]sched.JobOption, 1, 3)
	opts[0] = sched.WithLabel(where(o.L))
	if rearm {
		opts = append(opts, sched.Rearmable())
	}
	if name, given := o.str("label", false); given {
		opts = append(opts, sched.WithName(name))
	}
	return opts
}

// label is the :label option of a call that takes one without a sched
// job of its own; "" when absent.
func (o *options) label() string {
	name, _ := o.str("label", false)
	return name
}

// every reads schedule-every's :interval, :delay and :count.
func (o *options) every() sched.Every {
	e := sched.Every{Interval: o.duration("interval", true)}
	if o.has("delay") {
		d := o.duration("delay", false)
		e.Delay = &d
	}
	if n, given := o.integer("count", false); given {
		if n < 1 || n > int64(maxInt) {
			o.fail("count", "an integer >= 1")
		}
		e.Count = int(n)
	}
	return e
}

// scheduleOnceAt is schedule-once{ at = instant }.
func scheduleOnceAt(L *lua.LState, t target, c *jobCache, fn string, o *options, cb *lua.LFunction) *luaHandle {
	if o.has("delay") {
		argError(L, 2, fn, "options :delay and :at are two ways to say when; give one")
	}
	at, ok := toInstant(o.get("at"))
	if !ok {
		o.fail("at", "a Temporal.instant")
	}
	h, err := t.ScheduleOnceAt(at, c.get(L, cb), o.handleOptions()...)
	raiseErrorAbout(L, luaCall{fn, 2, true}, "at", err)
	_, d, _ := h.Due()
	return &luaHandle{h: h, reset: d}
}

// handle userdata.

// handleType names a handle to scripts and its metatable in the registry.
const handleType = "runtime-scheduler handle"

type luaHandle struct {
	h          sched.Handle
	reset      temporal.Duration // reset's default: the original delay or interval
	ms         bool              // a runtime-timers handle: reset takes milliseconds
	recurrence bool              // reset refused
	dropped    bool              // reset refused
}

func (*luaHandle) luaTypeName() string { return handleType }

func pushHandle(L *lua.LState, lh *luaHandle) {
	ud := L.NewUserData()
	ud.Value = lh
	L.SetMetatable(ud, typeMetatable(L, handleType, buildHandleMeta))
	L.Push(ud)
}

// handleMethods are a handle's methods; its __index adds the field id.
var handleMethods = map[string]lua.LGFunction{
	// cancel and drop return true whether or not the job was pending
	// (docs/lua-api.md), unlike Go's Handle.Cancel.
	"cancel": func(L *lua.LState) int { checkHandle(L, "cancel").h.Cancel(); L.Push(lua.LTrue); return 1 },
	"drop": func(L *lua.LState) int {
		lh := checkHandle(L, "drop")
		lh.h.Drop()
		lh.dropped = true
		L.Push(lua.LTrue)
		return 1
	},
	"active?": func(L *lua.LState) int { L.Push(lua.LBool(checkHandle(L, "active?").h.Active())); return 1 },
	"due": func(L *lua.LState) int {
		pushDue(L, checkHandle(L, "due").h)
		return 1
	},
	"remaining": func(L *lua.LState) int {
		pushRemaining(L, checkHandle(L, "remaining").h)
		return 1
	},
	"reset": handleReset,
}

func pushDue(L *lua.LState, h sched.Handle) {
	if at, _, ok := h.Due(); ok {
		L.Push(newInstant(L, at))
		return
	}
	L.Push(lua.LNil)
}

func pushRemaining(L *lua.LState, h sched.Handle) {
	if _, d, ok := h.Due(); ok {
		L.Push(newDuration(L, d))
		return
	}
	L.Push(lua.LNil)
}

// handleReset is h:reset(d?): a typed handle takes a Temporal.duration, a
// runtime-timers handle milliseconds; either defaults to the original.
func handleReset(L *lua.LState) int {
	const fn = "reset"
	lh := checkHandle(L, fn)
	switch {
	case lh.recurrence:
		raise(L, "reset: a recurrence handle cannot be reset (its occurrences come from its set); cancel it and schedule it again")
	case lh.dropped:
		raise(L, "reset: the handle was dropped; schedule the job again")
	}
	d := lh.reset
	if v := L.Get(2); v != lua.LNil {
		d = resetDelay(L, lh, v)
	}
	raiseError(L, luaCall{fn, 2, false}, lh.h.Reset(d))
	L.Push(lua.LTrue)
	return 1
}

// resetDelay reads reset's argument v for lh.
func resetDelay(L *lua.LState, lh *luaHandle, v lua.LValue) temporal.Duration {
	const fn = "reset"
	if lh.ms {
		ms, ok := v.(lua.LNumber)
		if !ok {
			hint := ""
			if _, isDur := toDuration(v); isDur {
				hint = "; a runtime-timers handle takes milliseconds (for a Temporal.duration use runtime-scheduler)"
			}
			argError(L, 2, fn, "number of milliseconds expected, got "+describe(v)+hint)
		}
		d, ok := temporal.Millis(float64(ms))
		if !ok {
			argError(L, 2, fn, fmt.Sprintf("delay-ms must be %s, got %s", temporal.WantMillis, describe(v)))
		}
		return d
	}
	d, ok := toDuration(v)
	if !ok {
		msg := "Temporal.duration expected, got " + describe(v)
		if _, isNum := v.(lua.LNumber); isNum {
			msg += "; a typed handle takes a Temporal.duration (milliseconds are for runtime-timers handles)"
		}
		argError(L, 2, fn, msg)
	}
	if d < 0 {
		argError(L, 2, fn, "duration must be >= 0, got "+d.String())
	}
	return d
}

func buildHandleMeta(L *lua.LState, mt *lua.LTable) {
	methods := L.NewTable()
	setFuncs(L, methods, handleMethods)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		lh := checkHandle(L, "index")
		if k, ok := L.Get(2).(lua.LString); ok && k == "id" {
			L.Push(lua.LNumber(lh.h.ID()))
			return 1
		}
		if m := methods.RawGet(L.Get(2)); m != lua.LNil {
			L.Push(m)
			return 1
		}
		noMethod(L, handleType, methods, L.Get(2), "id")
		return 1
	}))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(fmt.Sprintf("handle #%d", checkHandle(L, "tostring").h.ID())))
		return 1
	}))
}

func checkHandle(L *lua.LState, fn string) *luaHandle {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if h, ok := ud.Value.(*luaHandle); ok {
			return h
		}
	}
	argError(L, 1, fn, "handle expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return nil
}

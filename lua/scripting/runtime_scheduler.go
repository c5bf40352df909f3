package scripting

import (
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// schedulerType names a runtime-scheduler to scripts and its metatable in
// the registry.
const schedulerType = "runtime-scheduler"

// defaultLoopLimit is the default of the loop-limit options, run-all's
// and run-to-last's fires and EventLoop.new's limit, as the contract
// states it: 10,000, a scheduler's own loop limit (set-loop-limit) too.
const defaultLoopLimit = 10_000

// luaScheduler is the userdata behind a runtime-scheduler instance.
type luaScheduler struct {
	s     *sched.Scheduler
	jobs  jobCache
	trace scriptTrace
}

func (*luaScheduler) luaTypeName() string { return schedulerType }

// loadRuntimeScheduler is the loader of the runtime-scheduler module.
func loadRuntimeScheduler(L *lua.LState) int {
	mod := L.NewTable()
	setFuncs(L, mod, dotCalled(mod, "runtime-scheduler", "RuntimeScheduler", map[string]lua.LGFunction{"create": schedulerCreate, "encode": snapshotModuleFuncs["encode"], "decode": snapshotModuleFuncs["decode"]}))
	strictModule(L, "runtime-scheduler", mod)
	L.Push(mod)
	return 1
}

func schedulerCreate(L *lua.LState) int {
	clock := clockOption(L, "create")
	ls := &luaScheduler{s: sched.New(clock)}
	ud := L.NewUserData()
	ud.Value = ls
	L.SetMetatable(ud, typeMetatable(L, schedulerType, buildSchedulerMeta))
	L.Push(ud)
	return 1
}

// clockOption reads argument 1 of fn, an optional table that accepts only
// :clock; the clock defaults to Options.Clock (the system clock unless set).
func clockOption(L *lua.LState, fn string) temporal.Clock {
	if L.GetTop() < 1 || L.Get(1) == lua.LNil {
		return defaultClock(L)
	}
	tbl, ok := L.Get(1).(*lua.LTable)
	if !ok {
		argError(L, 1, fn, "option table expected, got "+describe(L.Get(1)))
	}
	o := readOptions(L, tbl, 1, fn, []string{"clock"}, nil)
	if !o.has("clock") {
		return defaultClock(L)
	}
	c, ok := toClock(o.get("clock"))
	if !ok {
		o.fail("clock", "a Temporal.clock")
	}
	return c
}

func buildSchedulerMeta(L *lua.LState, mt *lua.LTable) {
	methods := L.NewTable()
	setFuncs(L, methods, schedulerMethods)
	strictMethods(L, schedulerType, methods)
	mt.RawSetString("__index", methods)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		ls := checkScheduler(L, "tostring")
		L.Push(lua.LString(fmt.Sprintf("runtime-scheduler at %s, %d pending", ls.s.Now(), ls.s.Count())))
		return 1
	}))
}

func checkScheduler(L *lua.LState, fn string) *luaScheduler {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if ls, ok := ud.Value.(*luaScheduler); ok {
			return ls
		}
	}
	argError(L, 1, fn, "runtime-scheduler expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return nil
}

// live returns the scheduler of argument 1, raising if it was dropped.
func live(L *lua.LState, fn string) *luaScheduler {
	ls := checkScheduler(L, fn)
	if ls.s.Dropped() {
		raiseError(L, luaCall{fn: fn}, &sched.CallError{Err: sched.ErrDropped})
	}
	return ls
}

// checkDurationArg reads argument n as a Temporal.duration.
func checkDurationArg(L *lua.LState, n int, fn, hint string) temporal.Duration {
	d, ok := toDuration(L.Get(n))
	if !ok {
		msg := "Temporal.duration expected, got " + describe(L.Get(n))
		if _, isNum := L.Get(n).(lua.LNumber); isNum && hint != "" {
			msg += "; " + hint
		}
		argError(L, n, fn, msg)
	}
	return d
}

var schedulerMethods = map[string]lua.LGFunction{
	"schedule-once": func(L *lua.LState) int {
		ls := live(L, "schedule-once")
		pushHandle(L, scheduleOnce(L, target{s: ls.s}, &ls.jobs, "schedule-once"))
		return 1
	},
	"schedule-every": func(L *lua.LState) int {
		ls := live(L, "schedule-every")
		pushHandle(L, scheduleEvery(L, target{s: ls.s}, &ls.jobs, "schedule-every"))
		return 1
	},
	"schedule-recurrence": func(L *lua.LState) int {
		pushHandle(L, scheduleRecurrence(L, target{s: live(L, "schedule-recurrence").s}, "schedule-recurrence"))
		return 1
	},
	"advance": func(L *lua.LState) int {
		ls := live(L, "advance")
		d := checkDurationArg(L, 2, "advance", "use update for milliseconds")
		raiseError(L, luaCall{"advance", 2, false}, Drain(L, "advance", func() error { return ls.s.Advance(d) }))
		L.Push(lua.LTrue)
		return 1
	},
	"update": func(L *lua.LState) int {
		ls := live(L, "update")
		ms := checkNumber(L, 2, "update", "delta-ms")
		d, ok := temporal.Millis(ms)
		if !ok {
			raiseError(L, luaCall{"update", 2, false}, &temporal.OptionError{Method: "Update", Param: "deltaMs", Want: temporal.WantMillis, Got: ms})
		}
		err := Drain(L, "update", func() error { return ls.s.Advance(d) })
		if oe := (*temporal.OptionError)(nil); errors.As(err, &oe) {
			// Advance's d is update's delta-ms.
			err = &temporal.OptionError{Method: "Update", Param: "deltaMs", Want: "a number of milliseconds that keeps the deadline within int64 nanoseconds", Got: ms}
		}
		raiseError(L, luaCall{"update", 2, false}, err)
		L.Push(lua.LTrue)
		return 1
	},
	"jump": func(L *lua.LState) int {
		ls := live(L, "jump")
		d := checkDurationArg(L, 2, "jump", "")
		raiseError(L, luaCall{"jump", 2, false}, Drain(L, "jump", func() error { return ls.s.Jump(d) }))
		L.Push(lua.LTrue)
		return 1
	},
	"next": func(L *lua.LState) int {
		ls := live(L, "next")
		var ran bool
		err := Drain(L, "next", func() (err error) { ran, err = runNext(ls.s); return err })
		raiseError(L, luaCall{"next", 2, false}, err)
		L.Push(lua.LBool(ran))
		return 1
	},
	"run-all": func(L *lua.LState) int {
		ls := live(L, "run-all")
		limit := runAllLimit(L, "run-all")
		raiseError(L, luaCall{"run-all", 2, true}, Drain(L, "run-all", func() error { return ls.s.RunAll(limit) }))
		L.Push(lua.LTrue)
		return 1
	},
	"run-to-last": func(L *lua.LState) int {
		ls := live(L, "run-to-last")
		limit := runAllLimit(L, "run-to-last")
		raiseError(L, luaCall{"run-to-last", 2, true}, Drain(L, "run-to-last", func() error { return ls.s.RunToLast(limit) }))
		L.Push(lua.LTrue)
		return 1
	},
	"now": func(L *lua.LState) int {
		L.Push(newInstant(L, live(L, "now").s.Now()))
		return 1
	},
	"count": func(L *lua.LState) int {
		L.Push(lua.LNumber(live(L, "count").s.Count()))
		return 1
	},
	"list": func(L *lua.LState) int {
		pushJobList(L, live(L, "list").s.List())
		return 1
	},
	"clear": func(L *lua.LState) int {
		raiseError(L, luaCall{fn: "clear"}, live(L, "clear").s.Clear())
		L.Push(lua.LTrue)
		return 1
	},
	"drop": func(L *lua.LState) int {
		checkScheduler(L, "drop").s.Drop()
		L.Push(lua.LTrue)
		return 1
	},
	"set-loop-limit": func(L *lua.LState) int {
		ls := live(L, "set-loop-limit")
		n, ok := toInteger(L.Get(2))
		if !ok || n < 1 {
			argError(L, 2, "set-loop-limit", "an integer >= 1 expected, got "+describe(L.Get(2)))
		}
		raiseError(L, luaCall{"set-loop-limit", 2, false}, ls.s.SetLimits(int(n), 0))
		L.Push(lua.LTrue)
		return 1
	},
	"set-max-pending": schedulerSetMaxPending,
	"register-timer":  schedulerRegisterTimer,
	"owner":           schedulerOwner,
	"debouncer":       func(L *lua.LState) int { return newKeyDebouncer(L, live(L, "debouncer").s, nil) },
	"spawn":           schedulerSpawn,
	"wait":            schedulerWait,
	"trace": func(L *lua.LState) int {
		ls := live(L, "trace")
		return ls.trace.method(L, ls.s)
	},
}

// scriptTrace is a script's s:trace(true | false) and s:trace() on one
// scheduler. It records fires beside the observer already set (the CLI's
// --trace), not in its place, and stopping it puts that observer back.
type scriptTrace struct {
	on    bool
	prev  func(sched.Fire)
	fires []sched.Fire
}

// method runs trace with argument 2 of L on s.
func (tr *scriptTrace) method(L *lua.LState, s *sched.Scheduler) int {
	switch v := L.Get(2).(type) {
	case lua.LBool:
		on := bool(v)
		if on && !tr.on {
			var prev func(sched.Fire)
			prev = s.SetObserver(func(f sched.Fire) {
				if prev != nil {
					prev(f)
				}
				tr.fires = append(tr.fires, f)
			})
			tr.prev = prev
		}
		if !on && tr.on {
			s.SetObserver(tr.prev)
		}
		tr.on = on
		if on {
			tr.fires = tr.fires[:0]
		}
		L.Push(lua.LTrue)
		return 1
	case *lua.LNilType:
		pushTrace(L, tr.fires)
		return 1
	}
	argError(L, 2, "trace", "boolean or nothing expected, got "+describe(L.Get(2)))
	return 0
}

func pushTrace(L *lua.LState, fires []sched.Fire) {
	list := L.CreateTable(len(fires), 0)
	for _, f := range fires {
		r := newRecord(L, 5)
		r.RawSetString("event", lua.LString(f.Event.String()))
		r.RawSetString("at", newInstant(L, f.At))
		r.RawSetString("id", lua.LNumber(f.ID))
		r.RawSetString("kind", lua.LString(f.Kind.String()))
		if f.Name != "" {
			r.RawSetString("label", lua.LString(f.Name))
		}
		if f.ScheduledIndex > 0 {
			r.RawSetString("scheduled-index", lua.LNumber(f.ScheduledIndex))
		}
		switch {
		case f.Kind != sched.KindTimer:
		case f.Event == sched.EventFire:
			keyedTraceFields(r, f)
		default: // a cancelled or dropped generation: no tick
			r.RawSetString("key", lua.LString(f.Key))
			r.RawSetString("generation", lua.LNumber(f.Generation))
		}
		list.Append(r)
	}
	L.Push(list)
}

// schedulerSetMaxPending is s["set-max-pending"](s, n): the scheduler's cap
// on pending jobs (by default 1,000,000).
func schedulerSetMaxPending(L *lua.LState) int {
	const fn = "set-max-pending"
	ls := live(L, fn)
	n, ok := toInteger(L.Get(2))
	if !ok || n < 1 {
		argError(L, 2, fn, "an integer >= 1 expected, got "+describe(L.Get(2)))
	}
	raiseError(L, luaCall{fn, 2, false}, ls.s.SetLimits(0, int(n)))
	L.Push(lua.LTrue)
	return 1
}

package scripting

import (
	"fmt"
	"strconv"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// msHint points a millisecond key at the layer that takes milliseconds.
var msHint = map[string]string{
	"delay-ms":    "the typed scheduler takes :delay as a Temporal.duration; use runtime-timers for milliseconds",
	"delay_ms":    "the typed scheduler takes :delay as a Temporal.duration; use runtime-timers for milliseconds",
	"interval-ms": "the typed scheduler takes :interval as a Temporal.duration; use runtime-timers for milliseconds",
	"interval_ms": "the typed scheduler takes :interval as a Temporal.duration; use runtime-timers for milliseconds",
}

// target is where typed jobs go: a whole scheduler or one group of it.
type target interface {
	ScheduleOnce(temporal.Duration, sched.Func, ...sched.JobOption) (sched.Handle, error)
	ScheduleEvery(temporal.Duration, sched.Func, ...sched.JobOption) (sched.Handle, error)
	ScheduleRecurrence(sched.Recurrence, sched.RecurrenceFunc, ...sched.JobOption) (sched.Handle, error)
}

// luaJob turns a Lua function into a sched.Func: one PCall per fire, no
// arguments, no coroutine. It runs on the main thread: the coroutine that
// scheduled it may be dead by the time it fires. A Lua error comes back as
// a *lua.ApiError whose StackTrace describes the callback's frames.
func luaJob(L *lua.LState, f *lua.LFunction) sched.Func {
	main := L.G.MainThread
	cbs := callbacksOf(main)
	return func() error {
		main.Push(f)
		return cbs.call(main, f, 0)
	}
}

// jobCache is luaJob that reuses the Func it made last when the same Lua
// function is scheduled again, as a loop that gives many jobs one handler
// does: one allocation instead of one per job, and the jobs' fires share
// one closure instead of each reading its own from a scattered cache line.
// It keeps the last function it was given alive while its owner lives.
type jobCache struct {
	main *lua.LState
	f    *lua.LFunction
	job  sched.Func
}

func (c *jobCache) get(L *lua.LState, f *lua.LFunction) sched.Func {
	if main := L.G.MainThread; f != c.f || main != c.main {
		c.main, c.f, c.job = main, f, luaJob(L, f)
	}
	return c.job
}

// where returns "file:line" of the Lua code calling the current Go function
// ("[G]" for a Go caller), as L.Where(1) does without its trailing colon. It
// reads the frame through GetInfo and builds the label with one
// concatenation: every scheduling call pays for it, and L.Where's two
// Sprintf calls cost more than the rest of scheduling a job.
func where(L *lua.LState) string {
	dbg, ok := L.GetStack(1)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.What == "G" {
		return "[G]"
	}
	return dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine)
}

// scheduleOnce, scheduleEvery and scheduleRecurrence read argument 2 as
// the typed option table and schedule into t. fn names the Lua function.
func scheduleOnce(L *lua.LState, t target, c *jobCache, fn string) sched.Handle {
	o := checkOptions(L, 2, fn, []string{"delay", "callback"}, msHint)
	d := o.duration("delay", true)
	cb := o.function("callback")
	h, err := t.ScheduleOnce(d, c.get(L, cb), sched.WithLabel(where(L)))
	raiseError(L, luaCall{fn, 2, true}, err)
	return h
}

func scheduleEvery(L *lua.LState, t target, c *jobCache, fn string) sched.Handle {
	o := checkOptions(L, 2, fn, []string{"interval", "callback"}, msHint)
	d := o.duration("interval", false)
	cb := o.function("callback")
	h, err := t.ScheduleEvery(d, c.get(L, cb), sched.WithLabel(where(L)))
	raiseError(L, luaCall{fn, 2, true}, err)
	return h
}

func scheduleRecurrence(L *lua.LState, t target, fn string) sched.Handle {
	o := checkOptions(L, 2, fn, []string{"recurrence-set", "zone-id", "callback", "disambiguation", "limit"}, nil)
	rs, ok := toRecurrenceSet(o.get("recurrence-set"))
	if !ok {
		o.fail("recurrence-set", "a Temporal.recurrence-set")
	}
	zone, _ := o.str("zone-id", true)
	dis := temporal.Reject
	if s, given := o.str("disambiguation", false); given {
		var err error
		if dis, err = temporal.ParseDisambiguation(s); err != nil {
			o.fail("disambiguation", `"reject", "compatible", "earlier" or "later"`)
		}
	}
	limit, given := o.integer("limit", false)
	if given && limit < 1 {
		o.fail("limit", "an integer >= 1")
	}
	cb := o.function("callback")
	r := sched.Recurrence{Set: rs, Zone: zone, Disambiguation: dis, Limit: int(limit)}
	main := L.G.MainThread
	cbs := callbacksOf(main)
	h, err := t.ScheduleRecurrence(r, func(occ sched.Occurrence) error {
		p := newRecord(main, 2)
		p.RawSetString("scheduled-at", newInstant(main, occ.ScheduledAt))
		p.RawSetString("occurrence-index", lua.LNumber(occ.Index))
		main.Push(cb)
		main.Push(p)
		return cbs.call(main, cb, 1)
	}, sched.WithLabel(where(L)))
	raiseError(L, luaCall{fn, 2, true}, err)
	return h
}

// duration reads a Temporal.duration option; a number gets a pointer to the
// millisecond layer.
func (o *options) duration(key string, required bool) temporal.Duration {
	v := o.get(key)
	if d, ok := toDuration(v); ok {
		return d
	}
	if _, isNum := v.(lua.LNumber); isNum {
		o.fail(key, "a Temporal.duration (use runtime-timers for milliseconds)")
	}
	o.fail(key, "a Temporal.duration")
	return 0
}

// handle userdata.

// handleType names a handle to scripts and its metatable in the registry.
const handleType = "runtime-scheduler handle"

type luaHandle struct{ h sched.Handle }

func (*luaHandle) luaTypeName() string { return handleType }

func pushHandle(L *lua.LState, h sched.Handle) {
	ud := L.NewUserData()
	ud.Value = &luaHandle{h}
	L.SetMetatable(ud, typeMetatable(L, handleType, buildHandleMeta))
	L.Push(ud)
}

// handleMethods are a handle's methods; its __index adds the field id.
var handleMethods = map[string]lua.LGFunction{
	// cancel and drop return true whether or not the job was pending
	// (LUA-API), unlike Go's Handle.Cancel.
	"cancel":  func(L *lua.LState) int { checkHandle(L, "cancel").Cancel(); L.Push(lua.LTrue); return 1 },
	"drop":    func(L *lua.LState) int { checkHandle(L, "drop").Drop(); L.Push(lua.LTrue); return 1 },
	"active?": func(L *lua.LState) int { L.Push(lua.LBool(checkHandle(L, "active?").Active())); return 1 },
}

func buildHandleMeta(L *lua.LState, mt *lua.LTable) {
	methods := L.NewTable()
	setFuncs(L, methods, handleMethods)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		h := checkHandle(L, "index")
		if k, ok := L.Get(2).(lua.LString); ok && k == "id" {
			L.Push(lua.LNumber(h.ID()))
			return 1
		}
		L.Push(methods.RawGet(L.Get(2)))
		return 1
	}))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		h := checkHandle(L, "tostring")
		L.Push(lua.LString(fmt.Sprintf("handle #%d", h.ID())))
		return 1
	}))
}

func checkHandle(L *lua.LState, fn string) sched.Handle {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if h, ok := ud.Value.(*luaHandle); ok {
			return h.h
		}
	}
	argError(L, 1, fn, "handle expected, got "+describe(L.Get(1)))
	return sched.Handle{}
}

// pushJobList pushes jobs as LUA-API's list() records.
func pushJobList(L *lua.LState, jobs []sched.JobInfo) {
	list := L.CreateTable(len(jobs), 0)
	for _, j := range jobs {
		r := newRecord(L, 6)
		r.RawSetString("id", lua.LNumber(j.ID))
		r.RawSetString("kind", lua.LString(j.Kind.String()))
		if key, ok := debounceJob(j); ok {
			r.RawSetString("kind", lua.LString("debounce"))
			r.RawSetString("key", key)
		}
		r.RawSetString("due-at", newInstant(L, j.DueAt))
		r.RawSetString("due-in", newDuration(L, j.DueIn))
		if j.Kind == sched.KindEvery {
			r.RawSetString("interval", newDuration(L, j.Interval))
		}
		if j.Kind == sched.KindRecurrence {
			r.RawSetString("occurrence-index", lua.LNumber(j.OccurrenceIndex))
		}
		if j.Kind == sched.KindTimer {
			keyedListFields(L, r, j)
		}
		list.Append(r)
	}
	L.Push(list)
}

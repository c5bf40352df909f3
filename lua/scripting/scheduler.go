package scripting

import (
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
	ScheduleOnceAt(temporal.Instant, sched.Func, ...sched.JobOption) (sched.Handle, error)
	ScheduleEveryWith(sched.Every, sched.Func, ...sched.JobOption) (sched.Handle, error)
	ScheduleRecurrence(sched.Recurrence, sched.RecurrenceFunc, ...sched.JobOption) (sched.Handle, error)
	Spawn(sched.TaskFunc, ...sched.JobOption) (*sched.Task, error)
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
func scheduleOnce(L *lua.LState, t target, c *jobCache, fn string) *luaHandle {
	o := checkOptions(L, 2, fn, []string{"delay", "at", "callback", "label"}, msHint)
	cb := o.function("callback")
	if o.has("at") {
		return scheduleOnceAt(L, t, c, fn, &o, cb)
	}
	d := o.duration("delay", true)
	h, err := t.ScheduleOnce(d, c.get(L, cb), o.handleOptions()...)
	raiseError(L, luaCall{fn, 2, true}, err)
	return &luaHandle{h: h, reset: d}
}

func scheduleEvery(L *lua.LState, t target, c *jobCache, fn string) *luaHandle {
	o := checkOptions(L, 2, fn, []string{"interval", "delay", "count", "callback", "label"}, msHint)
	e := o.every()
	cb := o.function("callback")
	h, err := t.ScheduleEveryWith(e, c.get(L, cb), o.handleOptions()...)
	raiseError(L, luaCall{fn, 2, true}, err)
	reset := e.Interval
	if e.Delay != nil {
		reset = *e.Delay
	}
	return &luaHandle{h: h, reset: reset}
}

func scheduleRecurrence(L *lua.LState, t target, fn string) *luaHandle {
	o := checkOptions(L, 2, fn, []string{"recurrence-set", "zone-id", "callback", "disambiguation", "limit", "label"}, countHint)
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
	h, err := t.ScheduleRecurrence(r, recurrenceJob(L, cb), o.jobOptions()...)
	raiseError(L, luaCall{fn, 2, true}, err)
	return &luaHandle{h: h, recurrence: true}
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

// pushJobList pushes jobs as LUA-API's list() records.
func pushJobList(L *lua.LState, jobs []sched.JobInfo) {
	list := L.CreateTable(len(jobs), 0)
	for _, j := range jobs {
		r := newRecord(L, 7)
		r.RawSetString("id", lua.LNumber(j.ID))
		r.RawSetString("kind", lua.LString(j.Kind.String()))
		if key, ok := debounceJob(j); ok {
			r.RawSetString("kind", lua.LString("debounce"))
			r.RawSetString("key", key)
		}
		r.RawSetString("due-at", newInstant(L, j.DueAt))
		r.RawSetString("due-in", newDuration(L, j.DueIn))
		if j.Name != "" {
			r.RawSetString("label", lua.LString(j.Name))
		}
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

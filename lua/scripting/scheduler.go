package scripting

import (
	"errors"
	"fmt"
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
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

// target is where typed jobs go: a whole scheduler, or one group of it
// when g is set.
type target struct {
	s *sched.Scheduler
	g *sched.Group
}

// hostTarget is the group of the host's own jobs.
func hostTarget(h *hostservices.Host) target { return target{s: h.Scheduler(), g: h.Jobs()} }

// runNext moves s to its earliest deadline and runs what is due there; it
// reports false, and does nothing, when nothing is pending.
func runNext(s *sched.Scheduler) (bool, error) {
	if s.Running() {
		return false, &sched.CallError{Method: "Next", Err: sched.ErrReentrant}
	}
	at, ok := s.NextDeadline()
	if !ok {
		return false, nil
	}
	d, err := at.Sub(s.Now())
	if err != nil {
		return false, err
	}
	return true, s.Advance(max(d, 0))
}

// with is opts and the target's group.
func (t target) with(opts []sched.JobOption) []sched.JobOption {
	if t.g == nil {
		return opts
	}
	return append(opts, sched.InGroup(t.g))
}

func (t target) ScheduleOnce(d temporal.Duration, fn func() error, opts ...sched.JobOption) (sched.Handle, error) {
	return t.s.ScheduleOnce(d, fn, t.with(opts)...)
}

// ScheduleOnceAt runs fn once at the instant at: at equal to Now() is due
// now, at before Now() an error naming both instants. Errors name the
// method ScheduleOnceAt and the parameter at.
func (t target) ScheduleOnceAt(at temporal.Instant, fn func() error, opts ...sched.JobOption) (sched.Handle, error) {
	const name = "ScheduleOnceAt"
	if t.s.Dropped() {
		return sched.Handle{}, &sched.CallError{Method: name, Err: sched.ErrDropped}
	}
	now := t.s.Now()
	if at.Before(now) {
		return sched.Handle{}, &temporal.OptionError{Method: name, Param: "at", Want: "an instant not before now (" + now.String() + ")", Got: at}
	}
	d, err := at.Sub(now)
	if err != nil {
		return sched.Handle{}, &temporal.OptionError{Method: name, Param: "at", Err: err}
	}
	h, err := t.s.ScheduleOnce(d, fn, t.with(opts)...)
	var (
		oe *temporal.OptionError
		ce *sched.CallError
	)
	switch {
	case errors.As(err, &oe):
		oe.Method = name
		if oe.Param == "delay" {
			oe.Param = "at"
		}
	case errors.As(err, &ce):
		ce.Method = name
	}
	return h, err
}

func (t target) ScheduleEveryWith(e sched.Every, fn func() error, opts ...sched.JobOption) (sched.Handle, error) {
	return t.s.ScheduleEvery(e, fn, t.with(opts)...)
}

func (t target) ScheduleRecurrence(r sched.Recurrence, fn func(temporal.Instant, int) error, opts ...sched.JobOption) (sched.Handle, error) {
	return t.s.ScheduleRecurrence(r, fn, t.with(opts)...)
}

func (t target) Spawn(fn func(*sched.Step) error, opts ...sched.JobOption) (sched.Handle, error) {
	return t.s.Spawn(fn, t.with(opts)...)
}

// luaJob turns a Lua function into a job's callback: one PCall per fire, no
// arguments, no coroutine. It runs on the main thread: the coroutine that
// scheduled it may be dead by the time it fires. A Lua error comes back as
// a *lua.ApiError whose StackTrace describes the callback's frames.
func luaJob(L *lua.LState, f *lua.LFunction) func() error {
	main := L.G.MainThread
	cbs := callbacksOf(main)
	return func() error {
		main.Push(f)
		return cbs.Call(main, f, 0)
	}
}

// jobCache is luaJob that reuses the func it made last when the same Lua
// function is scheduled again, as a loop that gives many jobs one handler
// does: one allocation instead of one per job, and the jobs' fires share
// one closure instead of each reading its own from a scattered cache line.
// It keeps the last function it was given alive while its owner lives.
type jobCache struct {
	main *lua.LState
	f    *lua.LFunction
	job  func() error
}

func (c *jobCache) get(L *lua.LState, f *lua.LFunction) func() error {
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
	if e.Interval <= 0 {
		argError(L, 2, fn, fmt.Sprintf(":interval must be a duration > 0, got %v", e.Interval))
	}
	h, err := t.ScheduleEveryWith(e, c.get(L, cb), o.handleOptions()...)
	key := "interval" // the first deadline's: :delay when given
	if e.Delay != nil {
		key = "delay"
	}
	raiseErrorAbout(L, luaCall{fn, 2, true}, key, err)
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

// pushJobList pushes jobs as docs/lua-api.md describes list() records.
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

package scripting

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/sched"
)

// The test-clock verbs of the app-host scheduler (docs/lua-api.md, "Test-clock verbs
// on the host"): runtime-scheduler's next, run-all, run-to-last, jump,
// count and trace, over everything on the host's timeline and never its
// facets; pause is ignored, as by step. jobs lists what count counts, each
// with its group.

// hostTrace is a host object's trace: the fires recorded on host h while
// on, chained after the observer that was installed before (the command
// line's --trace keeps working).
type hostTrace struct {
	h *hostservices.Host
	scriptTrace
}

var hostClockMethods = map[string]lua.LGFunction{
	"next": func(L *lua.LState) int {
		h := checkHost(L, "next")
		var ran bool
		err := Drain(L, "next", func() (err error) { ran, err = h.RunNext(); return err })
		raiseError(L, luaCall{"next", 2, false}, err)
		L.Push(lua.LBool(ran))
		return 1
	},
	"run-all": func(L *lua.LState) int {
		h := checkHost(L, "run-all")
		limit := runAllLimit(L, "run-all")
		raiseError(L, luaCall{"run-all", 2, true}, Drain(L, "run-all", func() error { return h.RunAll(limit) }))
		L.Push(lua.LTrue)
		return 1
	},
	"run-to-last": func(L *lua.LState) int {
		h := checkHost(L, "run-to-last")
		limit := runAllLimit(L, "run-to-last")
		raiseError(L, luaCall{"run-to-last", 2, true}, Drain(L, "run-to-last", func() error { return h.RunToLast(limit) }))
		L.Push(lua.LTrue)
		return 1
	},
	"jump": func(L *lua.LState) int {
		h := checkHost(L, "jump")
		d := checkDurationArg(L, 2, "jump", "")
		raiseError(L, luaCall{"jump", 2, false}, Drain(L, "jump", func() error { return h.Jump(d) }))
		L.Push(lua.LTrue)
		return 1
	},
	"count": func(L *lua.LState) int {
		L.Push(lua.LNumber(checkHost(L, "count").Count()))
		return 1
	},
	"jobs": func(L *lua.LState) int {
		pushGroupedJobs(L, checkHost(L, "jobs").List())
		return 1
	},
	"trace": hostTraceMethod,
}

// runAllLimit reads the optional option table { loop-limit = n } of fn,
// run-all or run-to-last.
func runAllLimit(L *lua.LState, fn string) int {
	limit := int64(defaultLoopLimit)
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		o := checkOptions(L, 2, fn, []string{"loop-limit"}, nil)
		if n, given := o.integer("loop-limit", false); given {
			if n < 1 {
				o.fail("loop-limit", "an integer >= 1")
			}
			limit = n
		}
	}
	return int(limit)
}

// pushGroupedJobs is list's table with each job's group: "app-host",
// "runtime-timers", or another group's name.
func pushGroupedJobs(L *lua.LState, jobs []sched.JobInfo) {
	pushJobList(L, jobs)
	list := L.Get(-1).(*lua.LTable)
	for i, j := range jobs {
		group := j.Group
		if group == "" {
			group = "scheduler"
		}
		list.RawGetInt(i+1).(*lua.LTable).RawSetString("group", lua.LString(group))
	}
}

// hostTraceMethod is hs:trace(true | false) and hs:trace(). A trace belongs
// to the host it was started on: after the host changes (a new script
// test), hs:trace() is empty until trace(true) again.
func hostTraceMethod(L *lua.LState) int {
	lh := checkLuaHost(L, "trace")
	tr := lh.trace
	if tr == nil || tr.h != lh.h {
		tr = &hostTrace{h: lh.h}
		lh.trace = tr
	}
	return tr.method(L, lh.h.Scheduler())
}

package scripting

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// s:spawn(f, ...) and s:wait(d) (docs/lua-api.md, "spawn / wait"): f runs as a
// coroutine, from the keyed timers' pool, that s:wait suspends for virtual
// time. Under the hood it is a spawned sched job whose steps are the coroutine's
// resumptions.

const spawnHandleType = "spawn handle"

// coroutineRunner is a coroutine a scheduler runs: a spawned function or a
// keyed timer's callback. s:wait is allowed only in the one resuming now.
type coroutineRunner interface {
	thread() *lua.LState
	scheduler() *sched.Scheduler
	setWait(d temporal.Duration)
}

func (r *handlerRun) thread() *lua.LState          { return r.th }
func (r *handlerRun) scheduler() *sched.Scheduler  { return r.s }
func (r *handlerRun) setWait(d temporal.Duration)  { r.waitReq, r.waitFor = true, d }
func (r *spawnRunner) thread() *lua.LState         { return r.th }
func (r *spawnRunner) scheduler() *sched.Scheduler { return r.s }
func (r *spawnRunner) setWait(d temporal.Duration) { r.waitReq, r.waitFor = true, d }

// spawnRunner runs one spawned function.
type spawnRunner struct {
	k       *keyedLua
	s       *sched.Scheduler
	fn      *lua.LFunction
	th      *lua.LState // its thread, until it ends
	waitReq bool
	waitFor temporal.Duration
	cont    func(*sched.Step) error
}

// resume runs the coroutine up to its next s:wait or its end, under its
// own callback budget, as a keyed handler's resumption does.
func (r *spawnRunner) resume(t *sched.Step, fn *lua.LFunction, args ...lua.LValue) error {
	k := r.k
	if r.th == nil {
		r.th = k.thread()
	}
	th := r.th
	st, err := k.resumeOn(th, r.fn, r, fn, args...)
	switch {
	case err != nil || st == lua.ResumeError:
		r.th = nil // a failed thread is not reused
		return err
	case st == lua.ResumeOK:
		th.Dead = false
		k.pool = append(k.pool, th)
		r.th = nil
		return nil
	case !r.waitReq:
		where := threadWhere(th)
		r.th = nil
		return &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(where + "coroutine.yield: a spawned function must not yield; use s:wait(duration)")}
	}
	r.waitReq = false
	return t.Wait(r.waitFor, r.cont)
}

// spawn is s:spawn(f, ...) on t; s is the scheduler t's tasks run on.
func spawn(L *lua.LState, t target, s *sched.Scheduler) int {
	const fn = "spawn"
	f, ok := L.Get(2).(*lua.LFunction)
	if !ok {
		argError(L, 2, fn, "function expected, got "+describe(L.Get(2)))
	}
	if f.IsG {
		// gopher-lua cannot start a coroutine on a Go function: it ends
		// with neither results nor an error.
		argError(L, 2, fn, "Lua function expected, got a Go function, which cannot run as a coroutine: wrap it, as in function(...) print(...) end")
	}
	args := make([]lua.LValue, max(L.GetTop()-2, 0))
	for i := range args {
		args[i] = L.Get(i + 3)
	}
	r := &spawnRunner{k: keyedOf(L), s: s, fn: f}
	r.cont = func(tk *sched.Step) error { return r.resume(tk, nil, newDuration(r.k.main, tk.Waited)) }
	h, err := t.Spawn(func(tk *sched.Step) error { return r.resume(tk, f, args...) }, sched.WithLabel(where(L)))
	raiseError(L, luaCall{fn, 2, false}, err)
	ud := L.NewUserData()
	ud.Value = &luaSpawn{h}
	L.SetMetatable(ud, typeMetatable(L, spawnHandleType, buildSpawnMeta))
	L.Push(ud)
	return 1
}

// wait is s:wait(d): allowed only in a coroutine s runs, where it yields
// until d of virtual time has passed and returns how long that took.
func wait(L *lua.LState, s *sched.Scheduler) int {
	const fn = "wait"
	d := checkDurationArg(L, 2, fn, "wait takes a Temporal.duration")
	if d < 0 {
		argError(L, 2, fn, "duration must be >= 0, got "+d.String())
	}
	k := keyedOf(L)
	c := k.cur
	if c == nil || c.thread() != L || c.scheduler() != s {
		raise(L, "wait: allowed only inside a function this scheduler runs as a coroutine (one given to its spawn, or a keyed timer's callback); schedule a callback instead")
	}
	sandbox.RefuseNestedYield(L, "wait")
	c.setWait(d)
	return L.Yield()
}

type luaSpawn struct{ h sched.Handle }

func (*luaSpawn) luaTypeName() string { return spawnHandleType }

var spawnMethods = map[string]lua.LGFunction{
	"cancel":  func(L *lua.LState) int { checkSpawn(L, "cancel").Cancel(); L.Push(lua.LTrue); return 1 },
	"drop":    func(L *lua.LState) int { checkSpawn(L, "drop").Cancel(); L.Push(lua.LTrue); return 1 },
	"active?": func(L *lua.LState) int { L.Push(lua.LBool(checkSpawn(L, "active?").Active())); return 1 },
	"due":     func(L *lua.LState) int { pushDue(L, checkSpawn(L, "due")); return 1 },
	"remaining": func(L *lua.LState) int {
		pushRemaining(L, checkSpawn(L, "remaining"))
		return 1
	},
	"reset": func(L *lua.LState) int {
		checkSpawn(L, "reset")
		raise(L, "reset: a spawn handle cannot be reset; spawn the function again")
		return 0
	},
}

func buildSpawnMeta(L *lua.LState, mt *lua.LTable) {
	methods := L.NewTable()
	setFuncs(L, methods, spawnMethods)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		t := checkSpawn(L, "index")
		if k, ok := L.Get(2).(lua.LString); ok && k == "id" {
			L.Push(lua.LNumber(t.ID()))
			return 1
		}
		if m := methods.RawGet(L.Get(2)); m != lua.LNil {
			L.Push(m)
			return 1
		}
		noMethod(L, spawnHandleType, methods, L.Get(2), "id")
		return 1
	}))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(fmt.Sprintf("spawn #%d", checkSpawn(L, "tostring").ID())))
		return 1
	}))
}

func checkSpawn(L *lua.LState, fn string) sched.Handle {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if s, ok := ud.Value.(*luaSpawn); ok {
			return s.h
		}
	}
	argError(L, 1, fn, "spawn handle expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return sched.Handle{}
}

// The methods runtime-scheduler and app-host schedulers gain.

func schedulerSpawn(L *lua.LState) int {
	ls := live(L, "spawn")
	return spawn(L, target{s: ls.s}, ls.s)
}

func schedulerWait(L *lua.LState) int { return wait(L, live(L, "wait").s) }

func hostSpawn(L *lua.LState) int {
	h := checkHost(L, "spawn")
	return spawn(L, hostTarget(h), h.Scheduler())
}

func hostWait(L *lua.LState) int { return wait(L, checkHost(L, "wait").Scheduler()) }

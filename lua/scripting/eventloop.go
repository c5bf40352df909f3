package scripting

import (
	"errors"
	"fmt"
	"math"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/runtime/loop"
	"github.com/metronome-rt/metronome/temporal"
)

// eventLoopType names an event-loop instance to scripts and its metatable
// in the registry.
const eventLoopType = "event-loop"

// luaLoop is the userdata behind an event-loop instance: a loop.Scheduler
// whose tasks, timers, frames and sources call Lua functions through the
// state's callback runner, under its budgets.
type luaLoop struct {
	host *loopHost
	s    *loop.Scheduler
	main *lua.LState
	cbs  *sandbox.Callbacks

	micro   []microtask
	hook    *lua.LFunction
	onError *lua.LFunction
	errAt   string // where on_error was called

	running bool
	errs    []error // the window's errors, without on_error
	fatal   error   // ends the window: a budget, or on_error's own error
	limit   int     // the loop limit new set
	names   map[string]bool

	// The last task, timer, frame callback or microtask that ran, for the
	// loop-limit error: its kind and where it was set.
	lastKind, lastAt string

	trace  *loopTrace // the state's (looptrace.go)
	number int        // the loop's number in its state, from 1

	// The fire function of the last timer set without extra arguments,
	// reused by the next one set at the same place with the same callback
	// and kind, as a loop that sets many intervals with one handler does:
	// their fires then share one warm closure instead of each loading its
	// own from a cold cache line.
	lastTimer cachedFire
}

type cachedFire struct {
	fn     *lua.LFunction
	pos    string
	repeat bool
	fire   func(id int)
}

type microtask struct {
	fn    *lua.LFunction
	args  []lua.LValue
	label string // where it was queued
}

func (*luaLoop) luaTypeName() string { return eventLoopType }

// loopHost is the loop's LoopHost: SimpleHost, closing when the window must
// end, and parking on a real clock until the item or the state's budget.
type loopHost struct {
	*loop.SimpleHost
	l *luaLoop
}

func (h *loopHost) Closing() bool { return h.l.fatal != nil }

// Park sleeps until deadline on a real clock; Lua sources are never live,
// so there is nothing else to wait for. The state's budget or context
// (Ctrl-C under metronome run) ends the sleep.
func (h *loopHost) Park(deadline temporal.Duration) bool {
	c := h.l.s.Clock()
	if deadline == loop.Never || !c.Real() {
		return false
	}
	d := (deadline - c.Now()).Std()
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	var done <-chan struct{}
	ctx := h.l.cbs.Context()
	if ctx != nil {
		done = ctx.Done()
	}
	select {
	case <-t.C:
		return true
	case <-done:
		h.l.fatal = ctx.Err()
		return false
	}
}

// loopLimitOption reads the option loop-limit of o: an integer from 1 to
// 2^31, def when not given.
func loopLimitOption(o *options, def int64) int64 {
	n, given := o.integer("loop-limit", false)
	if !given {
		return def
	}
	if n < 1 || n > 1<<31 {
		o.fail("loop-limit", "an integer from 1 to 2^31")
	}
	return n
}

// loadEventLoop is the loader of the event-loop module.
func loadEventLoop(L *lua.LState) int {
	mod := L.NewTable()
	setFuncs(L, mod, dotCalled(mod, "event-loop", "EventLoop", map[string]lua.LGFunction{"new": eventLoopNew}))
	strictModule(L, "event-loop", mod)
	L.Push(mod)
	return 1
}

func eventLoopNew(L *lua.LState) int {
	const fn = "new"
	var clock *loop.Clock
	limit := int64(defaultLoopLimit)
	if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
		o := checkOptions(L, 1, fn, []string{"clock", "now", "loop-limit"}, nil)
		limit = loopLimitOption(&o, limit)
		real := false
		switch v := o.get("clock"); v {
		case lua.LNil, lua.LString("virtual"):
		case lua.LString("real"):
			real = true
		default:
			o.fail("clock", `"virtual" or "real"`)
		}
		if v := o.get("now"); v != lua.LNil {
			n, ok := v.(lua.LNumber)
			if !ok || math.IsNaN(float64(n)) || n < 0 || n > 9e12 {
				o.fail("now", "a loop time in ms from 0 to 9e12")
			}
			if real {
				o.fail("now", `nil with clock "real", whose time starts at 0 when the loop is made`)
			}
			clock = loop.NewVirtualClock(temporal.Duration(math.Round(float64(n) * 1e6)))
		}
		if real {
			checkWallClock(L, "event-loop.new", `clock = "virtual" (the default)`)
			clock = loop.NewRealClock()
		}
	}
	main := L.G.MainThread
	l := &luaLoop{main: main, cbs: callbacksOf(main), names: map[string]bool{}, trace: loopTraceOf(main), limit: int(limit)}
	l.trace.loops++
	l.number = l.trace.loops
	l.host = &loopHost{SimpleHost: loop.NewSimpleHost(clock), l: l}
	l.s = l.host.Scheduler()
	l.s.SetTaskHook(l.taskEnded)
	ud := L.NewUserData()
	ud.Value = l
	L.SetMetatable(ud, typeMetatable(L, eventLoopType, buildEventLoopMeta))
	L.Push(ud)
	return 1
}

func buildEventLoopMeta(L *lua.LState, mt *lua.LTable) {
	methods := L.NewTable()
	setFuncs(L, methods, eventLoopMethods)
	strictMethods(L, eventLoopType, methods)
	mt.RawSetString("__index", methods)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		l := checkLoop(L, "tostring")
		L.Push(lua.LString(fmt.Sprintf("event-loop at %s ms, %d timers, %d tasks", formatNumber(msOf(l.s.Now())), l.s.TimersPending(), l.s.TasksPending())))
		return 1
	}))
}

func checkLoop(L *lua.LState, fn string) *luaLoop {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if l, ok := ud.Value.(*luaLoop); ok {
			return l
		}
	}
	argError(L, 1, fn, "event-loop expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return nil
}

// msOf is loop time in float milliseconds; Never is math.huge, which
// gopher-lua defines as the largest float64, not infinity.
func msOf(d temporal.Duration) float64 {
	if d == loop.Never {
		return math.MaxFloat64
	}
	return float64(d) / 1e6
}

// checkFunction reads argument n, a function.
func checkFunction(L *lua.LState, n int, fn, name string) *lua.LFunction {
	f, ok := L.Get(n).(*lua.LFunction)
	if !ok {
		argError(L, n, fn, fmt.Sprintf("%s must be a function, got %s", name, describe(L.Get(n))))
	}
	return f
}

// checkDelay reads argument n as a timer delay in ms: NaN, negative or
// missing is 0 (HTML); infinity or more than 2^31-1 ms is an error, as is
// anything but a number.
func checkDelay(L *lua.LState, n int, fn string) temporal.Duration {
	var ms float64
	switch v := L.Get(n).(type) {
	case *lua.LNilType:
		return 0
	case lua.LNumber:
		ms = float64(v)
	default:
		argError(L, n, fn, "delay must be a number of milliseconds, got "+describe(v))
	}
	if math.IsNaN(ms) || ms < 0 {
		return 0
	}
	if ms > float64(loop.MaxDelay/temporal.Millisecond) {
		argError(L, n, fn, "delay must be at most 2147483647 ms (2^31-1), got "+describe(lua.LNumber(ms)))
	}
	return temporal.Duration(math.Round(ms * 1e6))
}

// extraArgs copies the arguments from n on: they reach the callback.
func extraArgs(L *lua.LState, n int) []lua.LValue {
	top := L.GetTop()
	if top < n {
		return nil
	}
	args := make([]lua.LValue, 0, top-n+1)
	for i := n; i <= top; i++ {
		args = append(args, L.Get(i))
	}
	return args
}

// call runs a callback as the loop's task or microtask: its error goes to
// report, never out of the loop.
func (l *luaLoop) call(kind string, id int, fn *lua.LFunction, args []lua.LValue) {
	if l.fatal != nil {
		return
	}
	L := l.main
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	if err := l.cbs.Call(L, fn, len(args)); err != nil {
		l.report(kind, id, err)
	}
}

// call1 is call for a source's function, returning its one result (nil on
// error).
func (l *luaLoop) call1(kind string, fn *lua.LFunction, name string) lua.LValue {
	if l.fatal != nil {
		return lua.LNil
	}
	L := l.main
	L.Push(fn)
	if err := l.cbs.CallN(L, fn, 0, 1); err != nil {
		l.report(kind, 0, fmt.Errorf("source %q: %w", name, err))
		return lua.LNil
	}
	v := L.Get(-1)
	L.Pop(1)
	return v
}

// report hands a callback's error to on_error, or keeps it for the end of
// the window. A budget that ran out for the window ends it.
func (l *luaLoop) report(kind string, id int, err error) {
	if l.cbs.Standing() {
		l.fatal = err
		return
	}
	if l.onError == nil {
		l.errs = append(l.errs, err)
		return
	}
	L := l.main
	v := reportedValue(err)
	info := L.CreateTable(0, 2)
	info.RawSetString("kind", lua.LString(kind))
	if id > 0 {
		info.RawSetString("id", lua.LNumber(id))
	}
	L.Push(l.onError)
	L.Push(v)
	L.Push(info)
	herr := l.cbs.Call(L, l.onError, 2)
	if herr == nil {
		return
	}
	var api *lua.ApiError
	if errors.As(herr, &api) && api.Object == v {
		l.fatal = err // raised again as it came
		return
	}
	l.fatal = &handlerError{label: l.errAt, err: herr}
}

// taskEnded is the scheduler's task hook: the microtask checkpoint, then
// the script's task hook.
func (l *luaLoop) taskEnded() {
	l.checkpoint()
	if l.hook != nil {
		l.call("hook", 0, l.hook, nil)
	}
}

// checkpoint runs the microtasks, those they queue included, at nesting
// level 0, each counted against the loop limit; past it, those left stay
// queued.
func (l *luaLoop) checkpoint() {
	if len(l.micro) == 0 {
		return
	}
	l.s.BeginCheckpoint()
	i := 0
	for ; i < len(l.micro) && l.fatal == nil; i++ {
		if !l.s.Admit() {
			break
		}
		m := l.micro[i]
		l.micro[i] = microtask{}
		l.traced("microtask", 0, m.label)
		l.call("microtask", 0, m.fn, m.args)
	}
	if l.fatal != nil {
		i = len(l.micro)
	}
	n := copy(l.micro, l.micro[i:])
	clear(l.micro[n:])
	l.micro = l.micro[:n]
	l.s.EndCheckpoint()
}

// limits says how a window counts callbacks against the loop limit.
type limits uint8

const (
	perInstant limits = iota // at most limit at one instant: run, advance, next, jump
	perCall                  // at most limit in all: run-all, run-to-last, run-microtasks
)

// window runs f, which moves the loop, as the Lua function name: under the
// drain budget and the loop limit, after the microtasks queued outside any
// task, and raising the window's first error at its end.
func (l *luaLoop) window(L *lua.LState, name string, lim limits, limit int, f func() error) {
	if l.running {
		raise(L, "%s: the event loop is running; call it from outside its callbacks", name)
	}
	l.running = true
	l.lastKind, l.lastAt = "", ""
	l.s.SetLoopLimit(limit, lim == perCall)
	err := Drain(L, name, func() error {
		l.checkpoint()
		if l.fatal != nil || l.s.LimitReached() {
			return nil
		}
		return f()
	})
	if l.fatal == nil && (errors.Is(err, loop.ErrLoopLimit) || err == nil && l.s.LimitReached()) {
		err = l.limitError(lim, limit)
	}
	l.s.SetLoopLimit(0, false)
	l.running = false
	l.finish(L, name, err)
}

// limitError is the error of a window that stopped at the loop limit: it
// names the last callback that ran.
func (l *luaLoop) limitError(lim limits, limit int) error {
	last := "nothing ran"
	switch l.lastKind {
	case "":
	case "source":
		last = fmt.Sprintf("the last was the task of source %q", l.lastAt)
	default:
		verb := map[string]string{"task": "queued", "microtask": "queued", "timeout": "set", "interval": "set", "frame": "requested"}[l.lastKind]
		kind := l.lastKind
		if kind == "frame" {
			kind = "frame callback"
		}
		last = fmt.Sprintf("the last was the %s %s at %s", kind, verb, l.lastAt)
	}
	if lim == perCall {
		return fmt.Errorf("more than %d tasks and microtasks ran and work is still pending; %s (an active interval, or a frame or microtask that queues the next, never ends; use run or advance, or raise loop-limit)", limit, last)
	}
	return fmt.Errorf("more than %d tasks and microtasks ran at %s ms and work is still pending there; %s (work that queues more at the same instant, such as a 0 ms timer set from a microtask, never lets time move; raise loop-limit if it is meant)", limit, formatNumber(msOf(l.s.Now())), last)
}

// finish raises what a window or a call that ran sources left: err, the
// error that ended it, or the first error of the window with a count of the
// rest.
func (l *luaLoop) finish(L *lua.LState, name string, err error) {
	fatal, errs := l.fatal, l.errs
	l.fatal, l.errs = nil, nil
	if err == nil {
		err = fatal
	}
	if err == nil && len(errs) > 0 {
		err = errs[0]
		if more := len(errs) - 1; more > 0 && isScriptError(err) {
			v, msgLen := callbackErrorValue(err)
			if s, ok := v.(lua.LString); ok {
				raiseValue(L, lua.LString(fmt.Sprintf("%s (and %d more %s in this %s; set on_error to see each)%s",
					s[:msgLen], more, plural(more, "error", "errors"), name, s[msgLen:])))
			}
		}
	}
	raiseError(L, luaCall{fn: name}, err)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

var eventLoopMethods = map[string]lua.LGFunction{
	"set-timeout":  func(L *lua.LState) int { return setLoopTimer(L, "set-timeout", false) },
	"set-interval": func(L *lua.LState) int { return setLoopTimer(L, "set-interval", true) },
	"clear-timeout": func(L *lua.LState) int {
		return clearLoopTimer(L, "clear-timeout")
	},
	"clear-interval": func(L *lua.LState) int {
		return clearLoopTimer(L, "clear-interval")
	},
	"queue-task": func(L *lua.LState) int {
		l := checkLoop(L, "queue-task")
		fn := checkFunction(L, 2, "queue-task", "callback")
		args, at := extraArgs(L, 3), where(L)
		l.s.QueueTask(func() {
			l.traced("task", 0, at)
			l.call("task", 0, fn, args)
		})
		return 0
	},
	"queue-microtask": func(L *lua.LState) int {
		l := checkLoop(L, "queue-microtask")
		fn := checkFunction(L, 2, "queue-microtask", "callback")
		l.micro = append(l.micro, microtask{fn, extraArgs(L, 3), where(L)})
		return 0
	},
	"request-animation-frame": func(L *lua.LState) int {
		const name = "request-animation-frame"
		l := checkLoop(L, name)
		fn := checkFunction(L, 2, name, "callback")
		var id int
		pos := where(L)
		id = l.s.RequestFrame(func(at temporal.Duration) {
			l.traced("frame", id, pos)
			l.call("frame", id, fn, []lua.LValue{lua.LNumber(msOf(at))})
		})
		L.Push(lua.LNumber(id))
		return 1
	},
	"cancel-animation-frame": func(L *lua.LState) int {
		l := checkLoop(L, "cancel-animation-frame")
		if id, ok := timerID(L.Get(2)); ok {
			l.s.CancelFrame(id)
		}
		return 0
	},
	"register-source": registerLoopSource,
	"set-task-hook": func(L *lua.LState) int {
		l := checkLoop(L, "set-task-hook")
		l.hook = optFunction(L, 2, "set-task-hook", "hook")
		return 0
	},
	"on-error": func(L *lua.LState) int {
		l := checkLoop(L, "on-error")
		l.onError = optFunction(L, 2, "on-error", "handler")
		l.errAt = where(L)
		return 0
	},
	"run": func(L *lua.LState) int {
		l := checkLoop(L, "run")
		u := checkNumber(L, 2, "run", "until")
		if math.IsNaN(u) {
			argError(L, 2, "run", "until must be a loop time in ms, got number NaN")
		}
		until := loop.Never
		if u < 9e12 { // beyond int64 ns: never
			until = temporal.Duration(math.Round(max(u, -9e12) * 1e6))
		}
		l.window(L, "run", perInstant, l.limit, func() error { return loop.Run(l.host, until) })
		return 0
	},
	"advance": func(L *lua.LState) int {
		l := checkVirtualLoop(L, "advance", "run(until)")
		var ms float64
		if L.Get(2) != lua.LNil {
			ms = checkNumber(L, 2, "advance", "ms")
		}
		if math.IsNaN(ms) || ms < 0 || ms > 9e12 {
			argError(L, 2, "advance", "ms must be a number of milliseconds >= 0 within int64 nanoseconds, got "+describe(lua.LNumber(ms)))
		}
		d := temporal.Duration(math.Round(ms * 1e6))
		l.window(L, "advance", perInstant, l.limit, func() error { return loop.Advance(l.host, d) })
		return pushNow(L, l)
	},
	"next": func(L *lua.LState) int {
		l := checkVirtualLoop(L, "next", "run(until)")
		l.window(L, "next", perInstant, l.limit, func() error { _, err := loop.Next(l.host); return err })
		return pushNow(L, l)
	},
	"jump": func(L *lua.LState) int {
		l := checkVirtualLoop(L, "jump", "run(until)")
		ms := checkNumber(L, 2, "jump", "ms")
		if math.IsNaN(ms) || ms < 0 || ms > 9e12 {
			argError(L, 2, "jump", "ms must be a number of milliseconds >= 0 within int64 nanoseconds, got "+describe(lua.LNumber(ms)))
		}
		d := temporal.Duration(math.Round(ms * 1e6))
		l.window(L, "jump", perInstant, l.limit, func() error { return loop.Jump(l.host, d) })
		return pushNow(L, l)
	},
	"run-microtasks": func(L *lua.LState) int {
		l := checkLoop(L, "run-microtasks")
		l.window(L, "run-microtasks", perCall, l.limit, func() error { return nil })
		return 0
	},
	"run-to-frame": func(L *lua.LState) int {
		l := checkVirtualLoop(L, "run-to-frame", "request_animation_frame and run(until)")
		l.window(L, "run-to-frame", perInstant, l.limit, func() error { return loop.RunToFrame(l.host) })
		return pushNow(L, l)
	},
	"run-all": func(L *lua.LState) int {
		l := checkLoop(L, "run-all")
		limit := int64(l.limit)
		if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
			o := checkOptions(L, 2, "run-all", []string{"loop-limit"}, nil)
			limit = loopLimitOption(&o, limit)
		}
		l.window(L, "run-all", perCall, int(limit), func() error { return loop.Run(l.host, loop.Never) })
		return pushNow(L, l)
	},
	"run-to-last": func(L *lua.LState) int {
		l := checkLoop(L, "run-to-last")
		limit := int64(l.limit)
		if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
			o := checkOptions(L, 2, "run-to-last", []string{"loop-limit"}, nil)
			limit = loopLimitOption(&o, limit)
		}
		l.window(L, "run-to-last", perCall, int(limit), func() error { return loop.RunToLast(l.host) })
		return pushNow(L, l)
	},
	"count": func(L *lua.LState) int {
		l := checkLoop(L, "count")
		L.Push(lua.LNumber(l.s.Pending() + len(l.micro)))
		return 1
	},
	"reset": func(L *lua.LState) int {
		l := checkLoop(L, "reset")
		if l.running {
			raise(L, "reset: the event loop is running; call it from outside its callbacks")
		}
		if err := l.s.Reset(); err != nil {
			raise(L, "reset: %v", err)
		}
		clear(l.micro)
		l.micro = l.micro[:0]
		return 0
	},
	"now": func(L *lua.LState) int {
		L.Push(lua.LNumber(msOf(checkLoop(L, "now").s.Now())))
		return 1
	},
	"next-timer": func(L *lua.LState) int {
		l := checkLoop(L, "next-timer")
		at := loop.NextTimer(l.host)
		l.finish(L, "next-timer", nil) // a Lua source's error
		if len(l.micro) > 0 {
			at = l.s.Now() // the next run starts with them
		}
		L.Push(lua.LNumber(msOf(at)))
		return 1
	},
	"needs-frame": func(L *lua.LState) int {
		l := checkLoop(L, "needs-frame")
		v := loop.NeedsFrame(l.host) || len(l.micro) > 0
		l.finish(L, "needs-frame", nil)
		L.Push(lua.LBool(v))
		return 1
	},
}

// checkVirtualLoop is checkLoop for a verb that moves a virtual clock; on
// the real clock it raises, naming what to use instead.
func checkVirtualLoop(L *lua.LState, fn, instead string) *luaLoop {
	l := checkLoop(L, fn)
	if l.s.Clock().Real() {
		raise(L, "%s: this event loop runs on the real clock, whose time moves by itself; use %s", fn, instead)
	}
	return l
}

// pushNow returns the loop's time in ms, a verb's result.
func pushNow(L *lua.LState, l *luaLoop) int {
	L.Push(lua.LNumber(msOf(l.s.Now())))
	return 1
}

func setLoopTimer(L *lua.LState, name string, repeat bool) int {
	l := checkLoop(L, name)
	fn := checkFunction(L, 2, name, "callback")
	d := checkDelay(L, 3, name)
	pos := where(L)
	args := extraArgs(L, 4)
	id, err := l.s.SetTimer(l.timerFire(fn, pos, repeat, args), d, repeat)
	if err != nil {
		raise(L, "%s: %v", name, err)
	}
	L.Push(lua.LNumber(id))
	return 1
}

// timerFire returns the function a timer's fire runs: fn(args...) as the
// timer id of its kind, set at pos.
func (l *luaLoop) timerFire(fn *lua.LFunction, pos string, repeat bool, args []lua.LValue) func(id int) {
	if c := &l.lastTimer; len(args) == 0 && c.fn == fn && c.repeat == repeat && c.pos == pos {
		return c.fire
	}
	kind := "timeout"
	if repeat {
		kind = "interval"
	}
	// The closure holds what a fire reads, in one cache line (a 64-byte
	// object). Extra arguments, rare, live behind a pointer.
	var argp *[]lua.LValue
	if len(args) > 0 {
		argp = new([]lua.LValue)
		*argp = args
	}
	fire := func(id int) {
		l.traced(kind, id, pos)
		var args []lua.LValue
		if argp != nil {
			args = *argp
		}
		l.call(kind, id, fn, args)
	}
	if len(args) == 0 {
		l.lastTimer = cachedFire{fn: fn, pos: pos, repeat: repeat, fire: fire}
	}
	return fire
}

// timerID reads a timer or frame id; anything else is no id (a no-op to
// clear, as in browsers).
func timerID(v lua.LValue) (int, bool) {
	n, ok := v.(lua.LNumber)
	if !ok || float64(n) != math.Trunc(float64(n)) || n < 1 || n > 1<<31-1 {
		return 0, false
	}
	return int(n), true
}

func clearLoopTimer(L *lua.LState, name string) int {
	l := checkLoop(L, name)
	if id, ok := timerID(L.Get(2)); ok {
		l.s.ClearTimer(id)
	}
	return 0
}

// optFunction reads argument n: a function, or nil to remove.
func optFunction(L *lua.LState, n int, fn, name string) *lua.LFunction {
	switch v := L.Get(n).(type) {
	case *lua.LFunction:
		return v
	case *lua.LNilType:
		if L.GetTop() < n {
			argError(L, n, fn, name+" must be a function or nil, got no value")
		}
		return nil
	default:
		argError(L, n, fn, name+" must be a function or nil, got "+describe(v))
	}
	return nil
}

// luaSource is a source a script registered: its ready, run and deadline
// are Lua functions, called as callbacks.
type luaSource struct {
	l                    *luaLoop
	info                 loop.SourceInfo
	ready, run, deadline *lua.LFunction
}

var sourceClasses = map[string]loop.Class{
	"turn": loop.Turn, "batch": loop.Batch, "settle": loop.Settle, "rendering": loop.Rendering,
}

func registerLoopSource(L *lua.LState) int {
	const fn = "register-source"
	l := checkLoop(L, fn)
	o := checkOptions(L, 2, fn, []string{"name", "class", "ready", "run", "deadline"}, nil)
	name, _ := o.str("name", true)
	if name == "" {
		o.fail("name", "a non-empty string")
	}
	cs, _ := o.str("class", true)
	class, ok := sourceClasses[cs]
	if !ok {
		o.fail("class", `"turn", "batch", "settle" or "rendering"`)
	}
	src := &luaSource{l: l, info: loop.SourceInfo{Name: name, Class: class},
		ready: o.function("ready"), run: o.function("run")}
	if o.get("deadline") != lua.LNil {
		src.deadline = o.function("deadline")
	}
	if l.names[name] {
		argError(L, 2, fn, fmt.Sprintf(":name %s is registered already on this loop", describe(lua.LString(name))))
	}
	if l.running {
		raise(L, "%s: the event loop is running; register sources from outside its callbacks", fn)
	}
	var err error
	if src.deadline != nil {
		err = l.s.RegisterSource(&deadlineSource{src})
	} else {
		err = l.s.RegisterSource(src)
	}
	if err != nil {
		raise(L, "%s: %v", fn, err)
	}
	l.names[name] = true
	return 0
}

func (s *luaSource) Info() loop.SourceInfo { return s.info }

func (s *luaSource) Ready() bool {
	return lua.LVAsBool(s.l.call1("source", s.ready, s.info.Name))
}

// Run runs the source's task: run() returning false means it had none.
func (s *luaSource) Run() (bool, error) {
	s.l.traced("source", 0, s.info.Name)
	return s.l.call1("source", s.run, s.info.Name) != lua.LFalse, nil
}

// Settled runs a settle source's run after the empty task it shared.
func (s *luaSource) Settled() {
	s.l.traced("source", 0, s.info.Name)
	s.l.call1("source", s.run, s.info.Name)
}

// deadlineSource is a luaSource with a deadline function.
type deadlineSource struct{ *luaSource }

func (s *deadlineSource) Deadline() (temporal.Duration, bool) {
	v := s.l.call1("source", s.deadline, s.info.Name)
	n, ok := v.(lua.LNumber)
	if !ok {
		if v != lua.LNil {
			s.l.report("source", 0, fmt.Errorf("source %q: deadline must return a loop time in ms or nil, got %s", s.info.Name, describe(v)))
		}
		return 0, false
	}
	f := float64(n)
	switch {
	case math.IsNaN(f):
		return 0, false
	case f >= 9e12:
		return loop.Never - 1, true
	}
	return temporal.Duration(math.Round(max(f, -9e12) * 1e6)), true
}

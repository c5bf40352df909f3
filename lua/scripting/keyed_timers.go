package scripting

import (
	"fmt"
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// Keyed timers on a runtime-scheduler or an app-host scheduler.
// A callback runs as a coroutine from a per-state pool, so that tick:wait
// can suspend it across virtual time; a thread that ended normally is
// reused (a new one costs about 23 us and 112 KB). Every timer of a state
// shares one handler (keyedLua.fire), which finds the generation in the
// timer's Data: a callback that declares no parameter cannot see its tick,
// so it gets none and its Data is the function alone; it is still resumed,
// since s:wait may suspend it, unless it makes no call at all (isLeaf): then
// nothing in it can wait, and it runs as a plain call. What one run of a
// handler needs (its thread, a wait's request) is a pooled handlerRun.

const (
	timerHandleType = "keyed timer"
	completionType  = "keyed timer completion"
	ownerType       = "keyed timer owner"
	tickType        = "metronome.tick"
	keyedKey        = "metronome.keyed"
)

// keyedLua is a state's keyed-timer machinery, shared by its threads.
type keyedLua struct {
	main    *lua.LState
	cbs     *sandbox.Callbacks
	pool    []*lua.LState
	runs    []*handlerRun // free ones
	idle    *lua.LState   // resumes the handlers' threads (resumeOn)
	fire    func(*sched.Step) error
	running int // handlers running (in their callback or a tick:wait)
	wait    *lua.LFunction
	index   *lua.LFunction  // the tick tables' __index
	cur     coroutineRunner // the runner resuming its coroutine now (spawn.go)
	leaf    leafTick        // the tick table of leaf callbacks
	// cleanups are the generations with an on-cancel callback not run
	// yet: a snapshot saves that they have one.
	cleanups map[timerRef]bool
}

// leafTick is the one tick table every leaf callback that takes its tick
// is given (see isLeaf): a leaf runs to its end as a plain call, so no two
// of its ticks overlap, and one table refilled for each, in cache, costs a
// fraction of a table per generation, which a fire of 10,000 keys reaches
// cold. A leaf cannot call tick:wait. The values a table holds are its
// tick's while the callback runs; a leaf that keeps the table sees the
// next tick's afterwards. The two indices, which change at every tick,
// are not stored: the __index function reads them from delivery and
// sched, which saves two table writes per tick.
type leafTick struct {
	tbl                  *lua.LTable
	gen, delivery, sched int64
	skipped              int64
	fence                uint64
}

func keyedOf(L *lua.LState) *keyedLua {
	reg := L.G.Registry
	if ud, ok := reg.RawGetString(keyedKey).(*lua.LUserData); ok {
		return ud.Value.(*keyedLua)
	}
	main := L.G.MainThread
	k := &keyedLua{main: main, cbs: callbacksOf(main), cleanups: map[timerRef]bool{}}
	k.fire = k.start
	k.idle = sandbox.NewThread(main)
	k.wait = L.NewFunction(k.tickWait)
	k.index = L.NewFunction(func(L *lua.LState) int {
		key, ok := L.Get(2).(lua.LString)
		if !ok {
			return 0
		}
		if key == "wait" {
			L.Push(k.wait)
			return 1
		}
		tbl := L.CheckTable(1)
		name := kebab(string(key))
		if tbl == k.leaf.tbl {
			// The leaf table's indices change at every tick: they are
			// read here rather than written into it for each.
			switch name {
			case "delivery-index":
				L.Push(tickIndex(k.leaf.delivery))
				return 1
			case "scheduled-index":
				L.Push(tickIndex(k.leaf.sched))
				return 1
			}
		}
		L.Push(tbl.RawGetString(name))
		return 1
	})
	ud := L.NewUserData()
	ud.Value = k
	reg.RawSetString(keyedKey, ud)
	return k
}

// timerRunner is one generation of a callback that takes its tick: the
// timer's Data.
type timerRunner struct {
	fn      *lua.LFunction
	run     *handlerRun // the handler running, if any
	tick    *lua.LTable // the generation's tick table, refilled for each tick
	skipped int64       // its skipped-ticks
	fence   uint64      // its fence
}

// handlerRun is one run of a keyed handler, from its tick to its end.
type handlerRun struct {
	k   *keyedLua
	s   *sched.Scheduler // where the timer runs: s:wait checks it
	fn  *lua.LFunction
	gen *timerRunner // nil for a callback that takes no tick
	th  *lua.LState  // the thread running the handler
	// tick:wait's request: the callback yielded through tick:wait.
	waitReq bool
	waitFor temporal.Duration
	cont    func(*sched.Step) error
}

// leafCallback is the Data of a callback that declares no parameter and
// makes no call (see isLeaf).
type leafCallback struct{ fn *lua.LFunction }

// leafTickCallback is the Data of a leaf callback that takes its tick, or
// of a Go function: both run as a plain call with the leaf tick table.
// Neither needs a runner, so the fire reads nothing but the function.
type leafTickCallback struct{ fn *lua.LFunction }

// start runs the callback for a new tick on a pooled thread, or, when it
// cannot wait (isLeaf), as a plain call.
func (k *keyedLua) start(t *sched.Step) error {
	d := t.Data
	if l, ok := d.(leafCallback); ok {
		return k.callLeaf(l.fn, nil)
	}
	if l, ok := d.(leafTickCallback); ok {
		return k.callLeaf(l.fn, k.leafTickTable(t))
	}
	r, takesTick := d.(*timerRunner)
	run := k.newRun()
	run.s, run.th = t.Scheduler, k.thread()
	k.running++
	if !takesTick {
		run.fn = d.(*lua.LFunction)
		return run.resume(t, run.fn)
	}
	run.fn, run.gen, r.run = r.fn, r, run
	return run.resume(t, run.fn, k.tickTable(r, t))
}

// tickTable returns the generation's tick table, filled for tick t. The
// handler never runs twice at once, so one table per generation serves
// every tick: refilling its keys allocates nothing.
func (k *keyedLua) tickTable(r *timerRunner, t *sched.Step) *lua.LTable {
	tbl := r.tick
	first := tbl == nil
	if first {
		tbl = k.main.CreateTable(0, 4)
		meta := k.main.CreateTable(0, 2)
		meta.RawSetString("__index", k.index)
		runner := k.main.NewUserData()
		runner.Value = r
		meta.RawSetString("__runner", runner)
		tbl.Metatable = meta
		tbl.RawSetString("generation", lua.LNumber(t.Generation))
		r.tick = tbl
		r.skipped = -1
	}
	// A table write costs a map assignment and a boxed number: write only
	// what changed (on time, skipped-ticks stays 0).
	tbl.RawSetString("delivery-index", tickIndex(t.DeliveryIndex))
	tbl.RawSetString("scheduled-index", tickIndex(t.ScheduledIndex))
	if t.SkippedTicks != r.skipped {
		r.skipped = t.SkippedTicks
		tbl.RawSetString("skipped-ticks", tickIndex(t.SkippedTicks))
	}
	r.setFence(tbl, t.Fence, first)
	return tbl
}

// leafTickTable returns the leaf callbacks' tick table filled for t,
// writing only what differs from the tick it held last.
func (k *keyedLua) leafTickTable(t *sched.Step) *lua.LTable {
	l := &k.leaf
	first := l.tbl == nil
	if first {
		l.tbl = k.main.CreateTable(0, 5)
		meta := k.main.CreateTable(0, 1)
		meta.RawSetString("__index", k.index)
		l.tbl.Metatable = meta
	}
	tbl := l.tbl
	if first || t.Generation != uint64(l.gen) {
		l.gen = int64(t.Generation)
		tbl.RawSetString("generation", lua.LNumber(t.Generation))
	}
	l.delivery, l.sched = t.DeliveryIndex, t.ScheduledIndex
	if first || t.SkippedTicks != l.skipped {
		l.skipped = t.SkippedTicks
		tbl.RawSetString("skipped-ticks", tickIndex(t.SkippedTicks))
	}
	if first || t.Fence != l.fence {
		l.fence = t.Fence
		tbl.RawSetString("fence", lua.LString(strconv.FormatUint(t.Fence, 10)))
	}
	return tbl
}

// newRun returns a free handlerRun.
func (k *keyedLua) newRun() *handlerRun {
	if n := len(k.runs); n > 0 {
		run := k.runs[n-1]
		k.runs = k.runs[:n-1]
		return run
	}
	run := &handlerRun{k: k}
	run.cont = func(t *sched.Step) error { return run.resume(t, nil, newDuration(k.main, t.Waited)) }
	return run
}

// tickIndices are the small tick indices as Lua values, boxed once: a
// number stored in a table is an interface holding a float64, which
// allocates, and a tick table takes two or three at every tick.
var tickIndices = func() (b [4096]lua.LValue) {
	for i := range b {
		b[i] = lua.LNumber(i)
	}
	return b
}()

// tickIndex is n as a Lua number, without an allocation when it is small.
func tickIndex(n int64) lua.LValue {
	if uint64(n) < uint64(len(tickIndices)) {
		return tickIndices[n]
	}
	return lua.LNumber(n)
}

// resume runs the handler's thread up to its next tick:wait or its end,
// under its own callback budget.
func (r *handlerRun) resume(t *sched.Step, fn *lua.LFunction, args ...lua.LValue) error {
	th := r.th
	st, err := r.k.resumeOn(th, r.fn, r, fn, args...)
	switch {
	case err != nil || st == lua.ResumeError:
		r.end(false)
		return err
	case st == lua.ResumeOK:
		r.end(true)
		return nil
	case !r.waitReq:
		where := threadWhere(th)
		r.end(false)
		return &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(where + "coroutine.yield: a keyed timer's callback must not yield; use tick:wait(duration)")}
	}
	r.waitReq = false
	return t.Wait(r.waitFor, r.cont)
}

// thread returns a thread from the pool, or a new one.
func (k *keyedLua) thread() *lua.LState {
	if n := len(k.pool); n > 0 {
		th := k.pool[n-1]
		k.pool = k.pool[:n-1]
		return th
	}
	return sandbox.NewThread(k.main)
}

// resumeOn resumes th with fn(args...) under the callback budget of cb,
// with cur as the coroutine s:wait may suspend.
func (k *keyedLua) resumeOn(th *lua.LState, cb *lua.LFunction, cur coroutineRunner, fn *lua.LFunction, args ...lua.LValue) (lua.ResumeState, error) {
	prevCur := k.cur
	k.cur = cur
	// Resume copies what the thread returns into a new slice as long as
	// the resumer's value stack: from the idle thread, whose stack holds
	// nothing, that is the smallest allocation (16 bytes, not 48 from a
	// drain's frame). th's parent is then the idle thread, which runs no
	// code.
	st, err := k.cbs.Resume(k.idle, th, cb, fn, args...)
	k.cur = prevCur
	return st, err
}

// end ends the run: its thread goes back into the pool when it ended
// normally (a thread left suspended or failed is not reused), and so does
// the run.
func (r *handlerRun) end(reuse bool) {
	k, th := r.k, r.th
	k.running--
	if reuse {
		th.Dead = false
		k.pool = append(k.pool, th)
	}
	if r.gen != nil {
		r.gen.run = nil
	}
	r.fn, r.gen, r.th = nil, nil, nil
	k.runs = append(k.runs, r)
}

// callLeaf runs a leaf callback on the main thread, as a plain job's
// callback runs: it cannot wait, so it needs no coroutine. No runner is
// current meanwhile, so s:wait reached through a metamethod fails as it
// does outside any coroutine.
func (k *keyedLua) callLeaf(fn *lua.LFunction, tick *lua.LTable) error {
	prev := k.cur
	k.cur = nil
	k.main.Push(fn)
	nargs := 0
	if tick != nil {
		k.main.Push(tick)
		nargs = 1
	}
	err := k.cbs.Call(k.main, fn, nargs)
	k.cur = prev
	return err
}

// isLeaf reports whether fn is Lua code that makes no call: no CALL,
// TAILCALL or generic-for iterator call. Such a function cannot reach
// s:wait or tick:wait but through a metamethod, and gopher-lua cannot
// yield from a metamethod either (the coroutine is not resumable after),
// so it runs as a plain call instead of on a coroutine: the resume costs
// more than such a callback's whole body.
func isLeaf(fn *lua.LFunction) bool {
	if fn.IsG {
		return false
	}
	for _, inst := range fn.Proto.Code {
		switch int(inst >> 26) { // the opcode, as gopher-lua encodes it
		case lua.OP_CALL, lua.OP_TAILCALL, lua.OP_TFORLOOP:
			return false
		}
	}
	return true
}

// cannotSeeArgs reports whether fn is a Lua function that declares no
// parameter and no "...": whatever it is passed, it cannot read.
func cannotSeeArgs(fn *lua.LFunction) bool {
	return !fn.IsG && fn.Proto.NumParameters == 0 && fn.Proto.IsVarArg&lua.VarArgIsVarArg == 0
}

// threadWhere is "file:line: " of the Lua code a suspended thread stopped in.
func threadWhere(th *lua.LState) string {
	for level := 0; level < 3; level++ {
		dbg, ok := th.GetStack(level)
		if !ok {
			break
		}
		if _, err := th.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.CurrentLine > 0 {
			return fmt.Sprintf("%s:%d: ", dbg.Source, dbg.CurrentLine)
		}
	}
	return ""
}

// tickWait is tick:wait(d): allowed only in the coroutine running that
// tick's callback; it returns the virtual time the wait took.
func (k *keyedLua) tickWait(L *lua.LState) int {
	var r *timerRunner
	if tbl, ok := L.Get(1).(*lua.LTable); ok {
		if meta, ok := tbl.Metatable.(*lua.LTable); ok {
			if ud, ok := meta.RawGetString("__runner").(*lua.LUserData); ok {
				r, _ = ud.Value.(*timerRunner)
			}
		}
	}
	if r == nil || r.run == nil || r.run.th != L {
		raise(L, "tick:wait: called outside its tick's callback (it keeps the handler running; call it as tick:wait(d) inside the callback)")
	}
	d := checkDurationArg(L, 2, "wait", "")
	if d < 0 {
		argError(L, 2, "wait", "duration must be >= 0, got "+d.String())
	}
	sandbox.RefuseNestedYield(L, "tick:wait")
	r.run.waitReq, r.run.waitFor = true, d
	return L.Yield()
}

// The handle, its completion and owners.

type luaTimer struct {
	h    sched.Handle
	end  *timerEnd
	done *lua.LUserData // the completion, once cancel was called
}

func (*luaTimer) luaTypeName() string { return timerHandleType }

// timerRef names a keyed timer's generation: its scheduler and id.
type timerRef struct {
	s  *sched.Scheduler
	id uint64
}

// onCancel returns a generation's OnCancel: it runs the on-cancel
// callback f, when there is one, with its error kept in end, and marks
// end done (when end is not nil). ref, once set, is the generation, which
// then no longer has a cleanup pending.
func (k *keyedLua) onCancel(f *lua.LFunction, end *timerEnd, ref *timerRef) func() {
	return func() {
		if f != nil {
			if ref != nil {
				delete(k.cleanups, *ref)
			}
			k.main.Push(f)
			err := k.cbs.Call(k.main, f, 0)
			if end != nil {
				end.err = err
			}
		}
		if end != nil {
			end.done = true
		}
	}
}

// timerEnd is a generation's end, which its OnCancel records: done once
// cancelled (or superseded, or dropped) and its running handler returned,
// with the on-cancel callback's error.
type timerEnd struct {
	done bool
	err  error
}

type luaCompletion struct{ c *timerEnd }

func (*luaCompletion) luaTypeName() string { return completionType }

type luaOwner struct {
	o     *sched.Owner
	id    string
	t     target       // where its timers go
	claim ClusterClaim // nil outside a cluster
}

func (*luaOwner) luaTypeName() string { return ownerType }

// registerTimer reads argument 2 of fn as register-timer's option table
// and registers the timer in t under o (nil: t's standing owner).
func registerTimer(L *lua.LState, t target, o *sched.Owner, fn string) {
	opts := checkOptions(L, 2, fn, []string{"key", "interval", "delay", "overrun", "max-catch-up-ticks", "on-cancel", "callback", "label"}, msHint)
	key, ok := opts.get("key").(lua.LString)
	if !ok || key == "" {
		opts.fail("key", "a non-empty string")
	}
	iv := opts.duration("interval", true)
	if iv <= 0 {
		opts.fail("interval", "a Temporal.duration > 0")
	}
	var delay *temporal.Duration
	if opts.has("delay") {
		d := opts.duration("delay", false)
		if d < 0 {
			opts.fail("delay", "a Temporal.duration >= 0")
		}
		delay = &d
	}
	ov := cadence.Overrun{}
	if name, given := opts.str("overrun", false); given {
		p, ok := cadence.ParsePolicy(name)
		if !ok {
			opts.fail("overrun", `"skip-late-ticks", "catch-up-bounded" or "delay-next-tick"`)
		}
		ov.Policy = p
	}
	if n, given := opts.integer("max-catch-up-ticks", false); given {
		if ov.Policy == cadence.CatchUpBounded && (n < 1 || n > cadence.MaxCatchUpTicksLimit) {
			opts.fail("max-catch-up-ticks", fmt.Sprintf("an integer from 1 to %d under catch-up-bounded", cadence.MaxCatchUpTicksLimit))
		}
		if ov.Policy == cadence.CatchUpBounded {
			ov.MaxCatchUpTicks = n
		}
	}
	var onCancelFn *lua.LFunction
	if opts.has("on-cancel") {
		f, ok := opts.get("on-cancel").(*lua.LFunction)
		if !ok {
			opts.fail("on-cancel", "a function")
		}
		onCancelFn = f
	}
	end := &timerEnd{}
	k := keyedOf(L)
	var ref timerRef // set once registered
	onCancel := k.onCancel(onCancelFn, end, &ref)
	cb := opts.function("callback")
	// A callback that declares no parameter cannot read its tick: its
	// generation is the function alone.
	data := timerData(cb)
	jopts := []sched.JobOption{sched.WithLabel(where(L)), sched.WithName(opts.label()), sched.WithData(data)}
	h, err := t.s.RegisterTimer(string(key), sched.TimerOptions{Interval: iv, Delay: delay, Overrun: ov, OnCancel: onCancel, Owner: o}, k.fire, t.with(jopts)...)
	raiseError(L, luaCall{fn, 2, true}, err)
	if onCancelFn != nil {
		ref = timerRef{t.s, h.ID()}
		k.cleanups[ref] = true
	}
	ud := L.NewUserData()
	ud.Value = &luaTimer{h: h, end: end}
	L.SetMetatable(ud, typeMetatable(L, timerHandleType, buildTimerMeta))
	L.Push(ud)
}

// timerMethods are a keyed timer handle's methods; its __index adds the
// fields id, key and generation.
var timerMethods = map[string]lua.LGFunction{
	"cancel": func(L *lua.LState) int { L.Push(timerCompletion(L, checkTimer(L, "cancel"))); return 1 },
	"drop": func(L *lua.LState) int {
		checkTimer(L, "drop").h.Drop() // an observer sees a drop; the completion stays the cancel's
		L.Push(lua.LTrue)
		return 1
	},
	"active?":   func(L *lua.LState) int { L.Push(lua.LBool(checkTimer(L, "active?").h.Active())); return 1 },
	"due":       func(L *lua.LState) int { pushDue(L, checkTimer(L, "due").h); return 1 },
	"remaining": func(L *lua.LState) int { pushRemaining(L, checkTimer(L, "remaining").h); return 1 },
	"reset": func(L *lua.LState) int {
		checkTimer(L, "reset")
		raise(L, "reset: a keyed timer cannot be reset; register its key again (a new generation)")
		return 0
	},
}

func buildTimerMeta(L *lua.LState, mt *lua.LTable) {
	methods := L.NewTable()
	setFuncs(L, methods, timerMethods)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		lt := checkTimer(L, "index")
		switch k, _ := L.Get(2).(lua.LString); k {
		case "id":
			L.Push(lua.LNumber(lt.h.ID()))
		case "key":
			key, _ := lt.h.Key()
			L.Push(lua.LString(key))
		case "generation":
			_, gen := lt.h.Key()
			L.Push(lua.LNumber(gen))
		default:
			if m := methods.RawGet(L.Get(2)); m != lua.LNil {
				L.Push(m)
				break
			}
			noMethod(L, timerHandleType, methods, L.Get(2), "id", "key", "generation")
		}
		return 1
	}))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		lt := checkTimer(L, "tostring")
		key, gen := lt.h.Key()
		L.Push(lua.LString(fmt.Sprintf("keyed timer #%d %q generation %d", lt.h.ID(), key, gen)))
		return 1
	}))
}

func checkTimer(L *lua.LState, fn string) *luaTimer {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if lt, ok := ud.Value.(*luaTimer); ok {
			return lt
		}
	}
	argError(L, 1, fn, "keyed timer expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return nil
}

// timerCompletion cancels the generation and returns its one completion
// object: every caller gets the same userdata.
func timerCompletion(L *lua.LState, lt *luaTimer) *lua.LUserData {
	lt.h.Cancel()
	if lt.done == nil {
		lt.done = L.NewUserData()
		lt.done.Value = &luaCompletion{lt.end}
		L.SetMetatable(lt.done, typeMetatable(L, completionType, buildCompletionMeta))
	}
	return lt.done
}

func buildCompletionMeta(L *lua.LState, mt *lua.LTable) {
	methods := L.NewTable()
	setFuncs(L, methods, map[string]lua.LGFunction{
		"done?": func(L *lua.LState) int { L.Push(lua.LBool(checkCompletion(L, "done?").done)); return 1 },
		"result": func(L *lua.LState) int {
			c := checkCompletion(L, "result")
			if !c.done {
				raise(L, "result: the generation has not ended (its handler is still running); check done? first")
			}
			if c.err == nil {
				L.Push(lua.LTrue)
				return 1
			}
			L.Push(lua.LFalse)
			L.Push(sandbox.ErrorValue(c.err))
			return 2
		},
	})
	strictMethods(L, completionType, methods)
	mt.RawSetString("__index", methods)
}

func checkCompletion(L *lua.LState, fn string) *timerEnd {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if c, ok := ud.Value.(*luaCompletion); ok {
			return c.c
		}
	}
	argError(L, 1, fn, "keyed timer completion expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return nil
}

// newOwner is s:owner{ lease = d, id = "spot-42" }; its timers go to t.
func newOwner(L *lua.LState, fn string, t target) {
	opts := checkOptions(L, 2, fn, []string{"lease", "id"}, nil)
	if n, isNum := opts.get("lease").(lua.LNumber); isNum {
		// An owner is typed-scheduler only: no millisecond spelling to point to.
		example := "Temporal.duration{ seconds = 30 }, for example"
		if f := float64(n); f == math.Trunc(f) && math.Abs(f) < 1e15 {
			example = fmt.Sprintf("Temporal.duration{ milliseconds = %s } or { seconds = %s }", formatNumber(f), formatNumber(f))
		}
		opts.fail("lease", "a Temporal.duration (a number has no unit: write "+example+")")
	}
	lease := opts.duration("lease", true)
	if lease <= 0 {
		opts.fail("lease", "a Temporal.duration > 0")
	}
	id, given := opts.str("id", false)
	if given && id == "" {
		opts.fail("id", "a non-empty string")
	}
	lo, ok := claimOwner(L, fn, id, t)
	if !ok {
		o, err := t.s.NewOwner(sched.OwnerOptions{ID: id, Lease: lease})
		raiseError(L, luaCall{fn, 2, true}, err)
		lo = &luaOwner{o: o, id: id, t: t}
	}
	ud := L.NewUserData()
	ud.Value = lo
	L.SetMetatable(ud, typeMetatable(L, ownerType, buildOwnerMeta))
	L.Push(ud)
}

// ownerMethods are an owner's methods; its __index adds the field id.
var ownerMethods = map[string]lua.LGFunction{
	"register-timer": func(L *lua.LState) int {
		lo := checkLuaOwner(L, "register-timer")
		registerTimer(L, lo.t, lo.o, "register-timer")
		return 1
	},
	"renew": func(L *lua.LState) int {
		raiseError(L, luaCall{fn: "renew"}, checkOwner(L, "renew").Renew())
		L.Push(lua.LTrue)
		return 1
	},
	"transfer": ownerTransfer,
	"owned?":   ownerOwned,
}

func buildOwnerMeta(L *lua.LState, mt *lua.LTable) {
	methods := L.NewTable()
	setFuncs(L, methods, ownerMethods)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		lo := checkLuaOwner(L, "index")
		if k, ok := L.Get(2).(lua.LString); ok && k == "id" {
			if lo.id == "" {
				L.Push(lua.LNil)
			} else {
				L.Push(lua.LString(lo.id))
			}
			return 1
		}
		if m := methods.RawGet(L.Get(2)); m != lua.LNil {
			L.Push(m)
			return 1
		}
		noMethod(L, ownerType, methods, L.Get(2), "id")
		return 1
	}))
}

func checkOwner(L *lua.LState, fn string) *sched.Owner {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if o, ok := ud.Value.(*luaOwner); ok {
			return o.o
		}
	}
	argError(L, 1, fn, "keyed timer owner expected, got "+describe(L.Get(1))+" (call methods with ':')")
	return nil
}

// The methods runtime-scheduler and app-host schedulers gain.

func schedulerRegisterTimer(L *lua.LState) int {
	registerTimer(L, target{s: live(L, "register-timer").s}, nil, "register-timer")
	return 1
}

func schedulerOwner(L *lua.LState) int {
	newOwner(L, "owner", target{s: live(L, "owner").s})
	return 1
}

func hostRegisterTimer(L *lua.LState) int {
	registerTimer(L, hostTarget(checkHost(L, "register-timer")), nil, "register-timer")
	return 1
}

func hostOwner(L *lua.LState) int {
	newOwner(L, "owner", hostTarget(checkHost(L, "owner")))
	return 1
}

// keyedTraceFields adds a keyed tick's fields to a trace entry.
func keyedTraceFields(r *lua.LTable, f sched.Fire) {
	r.RawSetString("key", lua.LString(f.Key))
	r.RawSetString("generation", lua.LNumber(f.Generation))
	r.RawSetString("delivery-index", lua.LNumber(f.DeliveryIndex))
	r.RawSetString("skipped-ticks", lua.LNumber(f.SkippedTicks))
}

// keyedListFields adds a keyed timer's fields to a list() record.
func keyedListFields(L *lua.LState, r *lua.LTable, j sched.JobInfo) {
	r.RawSetString("interval", newDuration(L, j.Interval))
	r.RawSetString("key", lua.LString(j.Key))
	r.RawSetString("generation", lua.LNumber(j.Generation))
}

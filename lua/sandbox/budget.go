package sandbox

import (
	"context"
	"fmt"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// The governor enforces a state's budgets (Options.Budget, DrainBudget,
// MemoryLimit, Context). gopher-lua stops its VM between two instructions
// only through the state's context: with one set it selects on ctx.Done()
// before each instruction. The state's context is a stopCtx the governor
// cancels when a budget runs out, when the heap passes the limit, or when
// Options.Context is done; the VM then raises its error, and the frame that
// owns the budget catches it and gives the state a fresh stopCtx for the
// next call.
//
// Time is counted in epochs, not read per call: a timer bumps the epoch
// every period while Lua runs under a frame, and a frame entered at epoch
// e with a budget of k periods trips once the epoch reaches e+k+1, so never
// early and at most about a period late. Entering and leaving a callback
// costs a few loads and stores of the state's own goroutine; only a change
// of the innermost deadline is published to the timer.
//
// Frames nest: a main chunk (PCall), a drain (advance, update, step...),
// a callback. A frame's deadline is min(its own, its outer frame's), so a
// nested call gets what is left of the outer one, and the error unwinds to
// the outermost frame whose own deadline passed: pcall, xpcall and
// coroutine.resume re-raise it while it stands.

type frameKind uint8

const (
	kindCall     frameKind = iota // a call from Go: main chunk, test body, hook
	kindCallback                  // a job's, timer's or facet's callback
	kindDrain                     // advance, update, step... of a scheduler or host
)

// noDeadline is the deadline of a frame without a budget of its own.
const noDeadline = int64(1<<63 - 1)

type frame struct {
	kind     frameKind
	fn       *lua.LFunction // kindCall, kindCallback: what runs
	name     string         // kindDrain: the call ("advance")
	limit    time.Duration  // its own budget; 0: none
	deadline int64          // its own, in epochs; noDeadline without a limit
	eff      int64          // min(deadline, outer eff)
	fires    int64          // governor.fires at entry
}

type tripKind uint32

const (
	tripNone tripKind = iota
	tripTime
	tripMemory
	tripCancel
)

// governor is a state's budgets. Its fields below mu are shared with the
// timer goroutine and Options.Context's cancellation; the rest belong to
// the goroutine running the state.
type governor struct {
	budget, drain time.Duration
	memLimit      int64
	memBase       uint64 // live heap at NewState
	period        time.Duration
	budgetTicks   int64 // budget in epochs, rounded up, plus the epoch under way
	drainTicks    int64
	main          *lua.LState

	frames    []frame // frames[:depth] are open; the slice only grows, so a
	depth     int     // call moves no pointer (no write barrier)
	fires     int64   // callbacks entered
	owner     int     // index in frames of the trip's owner; -1 none, -2 unknown, -3 all
	published int64   // the last eff stored

	epoch   atomic.Int64  // periods ticked under frames
	eff     atomic.Int64  // effective deadline of the innermost frame; 0: idle
	trip    atomic.Uint32 // a tripKind; tripNone while Lua may run
	ticking atomic.Bool
	timer   *time.Timer

	mu        sync.Mutex
	ctx       *stopCtx // replaced, by the state's goroutine, when a trip is caught
	parent    context.Context
	tripAt    int64
	heapSeen  uint64
	cancelErr error
}

const governorKey = "metronome.governor"

// governorOf returns L's governor, or nil when its state has no budget.
func governorOf(L *lua.LState) *governor {
	if ud, ok := L.G.Registry.RawGetString(governorKey).(*lua.LUserData); ok {
		return ud.Value.(*governor)
	}
	return nil
}

// installBudget gives L a governor when opts asks for a budget, and the
// coroutine library its nesting bound either way.
func installBudget(L *lua.LState, opts Options) {
	var g *governor
	if opts.Budget > 0 || opts.DrainBudget > 0 || opts.MemoryLimit > 0 || opts.Context != nil {
		g = &governor{
			budget: max(opts.Budget.Std(), 0), drain: max(opts.DrainBudget.Std(), 0), memLimit: max(opts.MemoryLimit, 0),
			owner: -2, main: L, parent: opts.Context,
		}
		g.period = tickPeriod
		for _, d := range []time.Duration{g.budget, g.drain} {
			if d > 0 && d/4 < g.period {
				g.period = max(d/4, time.Millisecond)
			}
		}
		g.budgetTicks, g.drainTicks = g.ticks(g.budget), g.ticks(g.drain)
		if g.memLimit > 0 {
			g.memBase = heapLive()
		}
		g.timer = time.AfterFunc(time.Hour, g.tick)
		g.timer.Stop()
		g.ctx = newStopCtx(g)
		ud := L.NewUserData()
		ud.Value = g
		L.G.Registry.RawSetString(governorKey, ud)
		L.SetContext(g.ctx)
		if opts.Context != nil {
			ctx := opts.Context
			context.AfterFunc(ctx, func() { g.cancel(context.Cause(ctx)) })
		}
		base := L.G.Global
		for _, name := range []string{"pcall", "xpcall"} {
			if f, ok := base.RawGetString(name).(*lua.LFunction); ok && f.IsG {
				base.RawSetString(name, L.NewFunction(g.guard(f.GFunction)))
			}
		}
	}
	installCoroutines(L, g)
}

// tickPeriod is how often the timer bumps the epoch and looks at the heap
// while Lua runs under a frame: a runaway stops within its budget plus
// about this.
const tickPeriod = 5 * time.Millisecond

// ticks is limit in epochs: the periods it spans, rounded up, plus one for
// the period already under way when a frame enters. 0 for no limit.
func (g *governor) ticks(limit time.Duration) int64 {
	if limit <= 0 {
		return 0
	}
	return int64((limit+g.period-1)/g.period) + 1
}

// stopCtx is the context of a state's Lua (L.Context()), a plain
// cancelable context: Done is closed once, when a budget runs out, the heap
// passes its limit or Options.Context is done, and Err then returns that
// trip's error, which is context.DeadlineExceeded for a budget and
// context.Canceled otherwise under errors.Is. Contexts derived from it are
// cancelled with it. Once the call whose budget ran out has caught the
// error, the state runs under a new stopCtx. Err is safe from any
// goroutine; the error's text names the frame whose budget ran out, read
// from the state's frames, so it is written on the state's goroutine (the
// VM reads it there first as it raises it).
type stopCtx struct {
	g    *governor
	done chan struct{}

	mu   sync.Mutex
	err  error
	fns  map[int]func()
	next int
}

func newStopCtx(g *governor) *stopCtx { return &stopCtx{g: g, done: make(chan struct{})} }

// Deadline is Options.Context's: a budget is wall time spent running Lua,
// not an instant.
func (c *stopCtx) Deadline() (time.Time, bool) {
	if c.g.parent != nil {
		return c.g.parent.Deadline()
	}
	return time.Time{}, false
}

func (c *stopCtx) Done() <-chan struct{} { return c.done }

func (c *stopCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *stopCtx) Value(key any) any {
	if c.g.parent != nil {
		return c.g.parent.Value(key)
	}
	return nil
}

// AfterFunc lets context.WithCancel and context.AfterFunc wait for c
// without a goroutine each: f runs in a goroutine of its own once c is
// done. Coroutines share c rather than deriving contexts from it (see
// newThread), so nothing registers here per coroutine.
func (c *stopCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		go f()
		return func() bool { return false }
	}
	if c.fns == nil {
		c.fns = map[int]func(){}
	}
	id := c.next
	c.next++
	c.fns[id] = f
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.fns[id]
		delete(c.fns, id)
		return ok
	}
}

// cancel closes c with err; false if it was done already.
func (c *stopCtx) cancel(err error) bool {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return false
	}
	c.err = err
	close(c.done)
	fns := c.fns
	c.fns = nil
	c.mu.Unlock()
	for _, f := range fns {
		go f()
	}
	return true
}

// tripError is a stopCtx's Err: its text is the governor's message,
// rendered when first read, which the VM does on the state's goroutine as
// it raises it.
type tripError struct {
	g     *governor
	kind  tripKind
	cause error // tripCancel: Options.Context's cause
	once  sync.Once
	text  string
}

func (e *tripError) Error() string {
	e.once.Do(func() {
		// gopher-lua's RaiseError treats its argument as a format.
		e.text = strings.ReplaceAll(e.g.message(), "%", "%%")
	})
	return e.text
}

func (e *tripError) Is(target error) bool {
	if e.kind == tripTime {
		return target == context.DeadlineExceeded
	}
	return target == context.Canceled
}

func (e *tripError) Unwrap() error { return e.cause }

// current is the state's current context.
func (g *governor) current() context.Context {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ctx
}

// adopt gives th the state's current context, shared, not derived.
func (g *governor) adopt(th *lua.LState) {
	if th.Context() != context.Context(g.ctx) {
		th.SetContext(g.ctx)
	}
}

// NewThread is L.NewThread sharing the state's context: L.NewThread derives
// one with context.WithCancel, which a thread never cancels, so each
// coroutine would stay registered with its parent until a budget ran out.
// A binding that runs callbacks as coroutines makes their threads here.
func NewThread(L *lua.LState) *lua.LState {
	ctx := L.RemoveContext()
	th, _ := L.NewThread()
	if ctx != nil {
		L.SetContext(ctx)
		th.SetContext(ctx)
	}
	return th
}

// enter pushes a frame, or returns the standing budget error without
// pushing. It writes the frame in place: a frame holds pointers, and
// copying one whole costs a write barrier per word while the GC runs.
func (g *governor) enter(kind frameKind, fn *lua.LFunction, name string, limit time.Duration, ticks int64) error {
	if g.trip.Load() != 0 && g.standing() {
		return &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(g.message())}
	}
	deadline := noDeadline
	if ticks > 0 {
		deadline = g.epoch.Load() + ticks
	}
	eff := deadline
	n := g.depth
	if n > 0 {
		eff = min(eff, g.frames[n-1].eff)
	}
	if kind == kindCallback {
		g.fires++
	}
	if n == len(g.frames) {
		g.frames = append(g.frames, frame{})
	}
	g.depth = n + 1
	f := &g.frames[n]
	f.kind, f.limit, f.deadline, f.eff, f.fires = kind, limit, deadline, eff, g.fires
	if f.fn != fn {
		f.fn = fn
	}
	if kind == kindDrain {
		f.name = name
	}
	g.publish(eff)
	return nil
}

// leave pops the innermost frame, which returned err. The frame that owns
// a standing trip clears it.
func (g *governor) leave(err error) error {
	n := g.depth - 1
	if g.trip.Load() != 0 {
		g.findOwner()
		if g.owner == n || g.owner == -1 {
			g.reset()
		}
	}
	kind := g.frames[n].kind
	g.depth = n
	switch {
	case n == 0:
		g.publish(0)
	case kind == kindCallback && g.frames[n-1].kind == kindDrain:
		// The drain's Go code runs until its next callback, which
		// publishes again, or until it ends: the callback's deadline,
		// no later than the drain's, stands meanwhile. Should it pass,
		// the trip has no owner and the next frame clears it.
	default:
		g.publish(g.frames[n-1].eff)
	}
	return err
}

// publish shows the timer eff, the innermost frame's deadline (0: no
// frame), and starts it ticking.
func (g *governor) publish(eff int64) {
	if eff != g.published {
		g.published = eff
		g.eff.Store(eff)
	}
	if eff != 0 && (eff != noDeadline || g.memLimit > 0) && !g.ticking.Load() && g.ticking.CompareAndSwap(false, true) {
		g.timer.Reset(g.period)
	}
}

func (g *governor) tripped() bool { return g.trip.Load() != 0 }

// standing reports whether a trip stands for the frames now open: one that
// no frame owns any more is cleared.
func (g *governor) standing() bool {
	if !g.tripped() {
		return false
	}
	g.findOwner()
	if g.owner == -1 {
		g.reset()
		return false
	}
	return true
}

// findOwner sets g.owner: for a time trip, the outermost frame whose own
// deadline had passed; for the heap, the outermost frame; for a cancelled
// context, all of them (-3, never cleared).
func (g *governor) findOwner() {
	if g.owner != -2 {
		return
	}
	g.mu.Lock()
	kind, at := tripKind(g.trip.Load()), g.tripAt
	g.mu.Unlock()
	g.owner = -1
	switch kind {
	case tripCancel:
		g.owner = -3
	case tripMemory:
		if g.depth > 0 {
			g.owner = 0
		}
	case tripTime:
		for i, f := range g.frames[:g.depth] {
			if f.deadline <= at {
				g.owner = i
				return
			}
		}
	}
}

// reset gives the state a new, live context after a trip its owner has
// caught; a cancelled Options.Context stays tripped. It runs on the
// state's goroutine: the threads that may run Lua next (the main thread
// and the current thread's chain of resumers) take the new context now,
// the others when resumed.
func (g *governor) reset() {
	g.mu.Lock()
	if g.cancelErr != nil {
		if g.trip.Load() != uint32(tripCancel) {
			g.trip.Store(uint32(tripCancel))
			g.ctx.cancel(&tripError{g: g, kind: tripCancel, cause: g.cancelErr})
		}
		g.owner = -3
		g.mu.Unlock()
		return
	}
	g.owner = -2
	g.ctx = newStopCtx(g)
	g.trip.Store(uint32(tripNone))
	g.mu.Unlock()
	for th := g.main.G.CurrentThread; th != nil; th = th.Parent {
		g.adopt(th)
	}
	g.adopt(g.main)
}

// fire trips the state's context once, for the first trip.
func (g *governor) fire(kind tripKind, at int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.trip.Load() == uint32(tripNone) {
		g.tripAt = at
		g.trip.Store(uint32(kind))
		g.ctx.cancel(&tripError{g: g, kind: kind})
	}
}

func (g *governor) cancel(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cancelErr = err
	if g.trip.Load() == uint32(tripNone) {
		g.trip.Store(uint32(tripCancel))
		g.ctx.cancel(&tripError{g: g, kind: tripCancel, cause: err})
	}
}

// tick runs on the timer's goroutine while a frame is open.
func (g *governor) tick() {
	dl := g.eff.Load()
	if dl == 0 {
		g.ticking.Store(false)
		// enter may have armed a frame after the Load: tick on for it
		// unless it started the timer itself.
		if g.eff.Load() == 0 || !g.ticking.CompareAndSwap(false, true) {
			return
		}
		dl = g.eff.Load()
	}
	if e := g.epoch.Add(1); e >= dl {
		g.fire(tripTime, e)
	} else if g.memLimit > 0 {
		if live := heapLive(); live > g.memBase && int64(live-g.memBase) > g.memLimit {
			g.mu.Lock()
			g.heapSeen = live
			g.mu.Unlock()
			g.fire(tripMemory, e)
		}
	}
	g.timer.Reset(g.period)
}

// message describes the standing trip.
func (g *governor) message() string {
	g.findOwner()
	g.mu.Lock()
	kind, seen, cerr := tripKind(g.trip.Load()), g.heapSeen, g.cancelErr
	g.mu.Unlock()
	switch kind {
	case tripCancel:
		return fmt.Sprintf("interrupted: %v", cerr)
	case tripMemory:
		return fmt.Sprintf("memory limit: the heap grew by %s, past the %s limit", sizeText(int64(seen-g.memBase)), sizeText(g.memLimit))
	}
	if g.owner < 0 {
		return "budget: ran past its budget"
	}
	f := g.frames[g.owner]
	if f.kind == kindDrain {
		fires := g.fires - f.fires
		running := ""
		for i := g.depth - 1; i > g.owner; i-- {
			if g.frames[i].kind == kindCallback {
				running = "; " + callbackLabel(g.frames[i].fn) + " was running"
				break
			}
		}
		return fmt.Sprintf("drain budget: %s ran past its %v budget after %d callbacks%s", f.name, f.limit, fires, running)
	}
	what := funcName(f.fn)
	if f.kind == kindCallback {
		what = callbackLabel(f.fn)
	}
	return fmt.Sprintf("budget: %s ran past its %v budget", what, f.limit)
}

func callbackLabel(fn *lua.LFunction) string { return "callback " + funcName(fn) }

// funcName is "main chunk f.lua", "function <f.lua:12>" or "a Go function".
func funcName(fn *lua.LFunction) string {
	switch {
	case fn == nil || fn.IsG:
		return "a Go function"
	case fn.Proto.LineDefined == 0:
		return "main chunk " + fn.Proto.SourceName
	}
	return fmt.Sprintf("function <%s:%d>", fn.Proto.SourceName, fn.Proto.LineDefined)
}

// sizeText writes n bytes as "256 MiB", "1.5 GiB" or "4096 bytes".
func sizeText(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// heapLive reads the heap in use by objects: what was live at the last
// collection plus what has been allocated since.
func heapLive() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	objects, live := s[0].Value.Uint64(), s[1].Value.Uint64()
	// objects counts garbage not yet swept; up to twice the live heap is
	// what GOGC=100 lets it reach before the next collection.
	return max(live, objects/2)
}

// guard wraps pcall or xpcall: a standing budget error is raised again
// instead of being returned, so that it reaches its owner.
func (g *governor) guard(orig lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		n := orig(L)
		if g.standing() {
			g.reraise(L, n)
		}
		return n
	}
}

// reraise raises the standing budget error in place of the n results of
// pcall, xpcall or coroutine.resume: their error value when it is the
// budget's (it has the position where Lua stopped), else the message.
func (g *governor) reraise(L *lua.LState, n int) {
	msg := g.message()
	if n >= 2 && L.Get(-n) == lua.LFalse {
		if v, ok := L.Get(-n + 1).(lua.LString); ok && strings.Contains(string(v), msg) {
			raiseValue(L, v)
		}
	}
	raise(L, "%s", msg)
}

// maxResumeNesting bounds coroutines resumed inside one another, as Lua
// 5.1 bounds nested C calls: each costs Go stack, and a script recursing
// through coroutines would otherwise exhaust it.
const maxResumeNesting = 200

// installCoroutines wraps coroutine.resume and coroutine.wrap: a nesting
// bound, and under a governor the governor as each coroutine's context and
// the budget error re-raised in the resumer.
func installCoroutines(L *lua.LState, g *governor) {
	co, ok := L.GetGlobal("coroutine").(*lua.LTable)
	if !ok {
		return
	}
	resume, ok1 := co.RawGetString("resume").(*lua.LFunction)
	wrap, ok2 := co.RawGetString("wrap").(*lua.LFunction)
	if !ok1 || !ok2 || !resume.IsG || !wrap.IsG {
		return
	}
	nesting := 0
	run := func(L *lua.LState, th *lua.LState, orig lua.LGFunction) int {
		if nesting >= maxResumeNesting {
			raise(L, "coroutine.resume: more than %d coroutines resumed inside one another", maxResumeNesting)
		}
		if g != nil && th != nil {
			g.adopt(th)
		}
		nesting++
		defer func() { nesting-- }()
		n := orig(L)
		if g != nil && g.standing() {
			g.reraise(L, n)
		}
		return n
	}
	co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
		th, _ := L.Get(1).(*lua.LState)
		return run(L, th, resume.GFunction)
	}))
	if yield, ok := co.RawGetString("yield").(*lua.LFunction); ok && yield.IsG {
		co.RawSetString("yield", L.NewFunction(func(L *lua.LState) int {
			RefuseNestedYield(L, "coroutine.yield")
			return yield.GFunction(L)
		}))
	}
	mk := wrap.GFunction
	if g != nil {
		// Threads take the state's context when resumed (run adopts):
		// made without one, they derive none.
		mk = unshared(wrap.GFunction)
		if c, ok := co.RawGetString("create").(*lua.LFunction); ok && c.IsG {
			co.RawSetString("create", L.NewFunction(unshared(c.GFunction)))
		}
	}
	co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
		n := mk(L)
		wrapped, ok := L.Get(-1).(*lua.LFunction)
		if n != 1 || !ok || len(wrapped.Upvalues) != 1 {
			return n
		}
		th, _ := wrapped.Upvalues[0].Value().(*lua.LState)
		aux := wrapped.GFunction
		L.Pop(1)
		// The same upvalue: gopher-lua's wrapper reads the thread from it.
		L.Push(L.NewClosure(func(L *lua.LState) int { return run(L, th, aux) }, th))
		return 1
	}))
}

// unshared runs orig, which makes a thread, with L's context set aside, so
// that the thread derives none from it (see NewThread).
func unshared(orig lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		ctx := L.RemoveContext()
		if ctx == nil {
			return orig(L)
		}
		defer L.SetContext(ctx)
		return orig(L)
	}
}

// budgetCall runs call, a protected call Go makes into Lua (a main chunk, a
// test body, a hook) with its function and nargs arguments on the stack,
// under L's budget (Options.Budget). Without budgets it is call().
func budgetCall(L *lua.LState, nargs int, call func() error) error {
	g := governorOf(L)
	if g == nil {
		return call()
	}
	fn, _ := L.Get(-nargs - 1).(*lua.LFunction)
	if err := g.enter(kindCall, fn, "", g.budget, g.budgetTicks); err != nil {
		L.Pop(nargs + 1)
		return err
	}
	return g.leave(call())
}

// Drain runs f, a Go call that moves a scheduler or host of L's scripts
// (hostservices.Host.UpdateBy, Runner.Step, sched.Scheduler.Advance), under
// L's drain budget (Options.DrainBudget): the callbacks it runs stop with
// an error naming name once the call has taken that long. Without budgets
// it is f(). The bindings of advance, update, step and the other calls
// that run callbacks do this themselves.
func Drain(L *lua.LState, name string, f func() error) error {
	return protectorOf(L).run(L, func() error { return drain(L, name, f) })
}

// drain is Drain without its guard.
func drain(L *lua.LState, name string, f func() error) error {
	g := governorOf(L)
	if g == nil {
		return f()
	}
	if err := g.enter(kindDrain, nil, name, g.drain, g.drainTicks); err != nil {
		return err
	}
	return g.leave(f())
}

// callbackFrame opens the frame of a callback's protected call; leave
// closes it.
func (g *governor) callbackFrame(fn *lua.LFunction) error {
	return g.enter(kindCallback, fn, "", g.budget, g.budgetTicks)
}

// StopCheck is how Go code that works long for a script (the pattern
// matcher, a recurrence scan) asks whether to stop: it reports true once a
// budget has run out; nil without budgets.
func StopCheck(L *lua.LState) func() bool {
	g := governorOf(L)
	if g == nil {
		return nil
	}
	return g.tripped
}

// CheckBudget raises the error of L's budget, memory limit or
// Options.Context when one has run out: a Go function that works long for
// a script (a deep comparison, a rendering) calls it now and then, as the
// VM checks between two instructions. Without budgets it does nothing.
func CheckBudget(L *lua.LState) {
	if g := governorOf(L); g != nil && g.tripped() {
		raise(L, "%s", g.message())
	}
}

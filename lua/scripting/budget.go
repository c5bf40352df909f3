package scripting

import (
	"context"
	"fmt"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/yuin/gopher-lua"
)

// The governor enforces a state's budgets (Options.Budget, DrainBudget,
// MemoryLimit, Context). gopher-lua stops its VM between two instructions
// only through the state's context: with one set it selects on ctx.Done()
// before each instruction. The governor is that context. Its Done channel is
// closed when a budget runs out (by a timer that ticks only while Lua runs
// under a frame), when the heap passes the limit, or when Options.Context
// is done; the VM then raises ctx.Err(), the governor's message, and the
// frame that owns the budget reopens the channel for the next call.
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
	deadline int64          // its own, in governor time; noDeadline without a limit
	eff      int64          // min(deadline, outer eff)
	fires    int64          // governor.fires at entry
}

type tripKind uint8

const (
	tripNone tripKind = iota
	tripTime
	tripMemory
	tripCancel
)

// governor is a state's budgets. Its fields below mu are shared with the
// timer goroutine; the rest belong to the goroutine running the state.
type governor struct {
	budget, drain time.Duration
	memLimit      int64
	memBase       uint64 // live heap at NewState
	period        time.Duration
	t0            time.Time

	frames []frame
	fires  int64 // callbacks entered
	owner  int   // index in frames of the trip's owner; -1 none, -2 unknown

	ch       chan struct{} // Done; replaced (under mu) only by this goroutine
	deadline atomic.Int64  // effective deadline of the innermost frame; 0: idle
	ticking  atomic.Bool
	timer    *time.Timer

	mu        sync.Mutex
	trip      tripKind
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
			budget: max(opts.Budget, 0), drain: max(opts.DrainBudget, 0), memLimit: max(opts.MemoryLimit, 0),
			t0: time.Now(), owner: -2, ch: make(chan struct{}),
		}
		g.period = tickPeriod
		for _, d := range []time.Duration{g.budget, g.drain} {
			if d > 0 && d/4 < g.period {
				g.period = max(d/4, time.Millisecond)
			}
		}
		if g.memLimit > 0 {
			g.memBase = heapLive()
		}
		g.timer = time.AfterFunc(time.Hour, g.tick)
		g.timer.Stop()
		ud := L.NewUserData()
		ud.Value = g
		L.G.Registry.RawSetString(governorKey, ud)
		L.SetContext(g)
		if opts.Context != nil {
			ctx := opts.Context
			context.AfterFunc(ctx, func() { g.cancel(ctx.Err()) })
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

// tickPeriod is how often the timer looks at the clock and the heap while
// Lua runs under a frame: a runaway stops within its budget plus about this.
const tickPeriod = 5 * time.Millisecond

// The governor is the context.Context of the state and of its coroutines.

func (g *governor) Deadline() (time.Time, bool) { return time.Time{}, false }
func (g *governor) Done() <-chan struct{}       { return g.ch }
func (g *governor) Value(any) any               { return nil }

// Err is what the VM raises once Done is closed.
func (g *governor) Err() error {
	msg := g.message()
	// gopher-lua's RaiseError treats its argument as a format.
	return budgetErr(strings.ReplaceAll(msg, "%", "%%"))
}

// AfterFunc keeps context.WithCancel, which gopher-lua's NewThread calls
// for each coroutine, from starting a goroutine per coroutine: coroutines
// watch the governor itself (installCoroutines sets it on each resume).
func (g *governor) AfterFunc(func()) func() bool { return func() bool { return true } }

type budgetErr string

func (e budgetErr) Error() string { return string(e) }

func (g *governor) now() int64 { return int64(time.Since(g.t0)) }

// enter pushes f, or returns the standing budget error without pushing.
func (g *governor) enter(f frame) error {
	if g.standing() {
		return &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(g.message())}
	}
	f.deadline = noDeadline
	if f.limit > 0 {
		f.deadline = g.now() + int64(f.limit)
	}
	f.eff = f.deadline
	if n := len(g.frames); n > 0 {
		f.eff = min(f.eff, g.frames[n-1].eff)
	}
	if f.kind == kindCallback {
		g.fires++
	}
	f.fires = g.fires
	g.frames = append(g.frames, f)
	g.deadline.Store(f.eff)
	if !g.ticking.Load() && g.ticking.CompareAndSwap(false, true) {
		g.timer.Reset(g.period)
	}
	return nil
}

// leave pops the innermost frame, which returned err. The frame that owns
// a standing trip clears it.
func (g *governor) leave(err error) error {
	n := len(g.frames) - 1
	if g.tripped() {
		g.findOwner()
		if g.owner == n || g.owner == -1 {
			g.reset()
		}
	}
	g.frames = g.frames[:n]
	if n > 0 {
		g.deadline.Store(g.frames[n-1].eff)
	} else {
		g.deadline.Store(0)
	}
	return err
}

func (g *governor) tripped() bool {
	select {
	case <-g.ch:
		return true
	default:
		return false
	}
}

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
	kind, at := g.trip, g.tripAt
	g.mu.Unlock()
	g.owner = -1
	switch kind {
	case tripCancel:
		g.owner = -3
	case tripMemory:
		if len(g.frames) > 0 {
			g.owner = 0
		}
	case tripTime:
		for i, f := range g.frames {
			if f.deadline <= at {
				g.owner = i
				return
			}
		}
	}
}

// reset reopens Done after a trip its owner has caught; a cancelled
// context stays tripped.
func (g *governor) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cancelErr != nil {
		g.trip = tripCancel
		g.owner = -3
		return
	}
	g.trip, g.owner = tripNone, -2
	g.ch = make(chan struct{})
}

// fire closes Done once, for the first trip.
func (g *governor) fire(kind tripKind, at int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.trip == tripNone {
		g.trip, g.tripAt = kind, at
		close(g.ch)
	}
}

func (g *governor) cancel(err error) {
	g.mu.Lock()
	g.cancelErr = err
	if g.trip == tripNone {
		g.trip = tripCancel
		close(g.ch)
	}
	g.mu.Unlock()
}

// tick runs on the timer's goroutine while a frame is open.
func (g *governor) tick() {
	dl := g.deadline.Load()
	if dl == 0 {
		g.ticking.Store(false)
		// enter may have armed a frame after the Load: tick on for it
		// unless it started the timer itself.
		if g.deadline.Load() == 0 || !g.ticking.CompareAndSwap(false, true) {
			return
		}
		dl = g.deadline.Load()
	}
	if now := g.now(); now >= dl {
		g.fire(tripTime, now)
	} else if g.memLimit > 0 {
		if live := heapLive(); live > g.memBase && int64(live-g.memBase) > g.memLimit {
			g.mu.Lock()
			g.heapSeen = live
			g.mu.Unlock()
			g.fire(tripMemory, now)
		}
	}
	g.timer.Reset(g.period)
}

// message describes the standing trip.
func (g *governor) message() string {
	g.findOwner()
	g.mu.Lock()
	kind, seen, cerr := g.trip, g.heapSeen, g.cancelErr
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
		for i := len(g.frames) - 1; i > g.owner; i-- {
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
		if g != nil && th != nil && th.Context() != context.Context(g) {
			th.SetContext(g)
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
			refuseNestedYield(L, "coroutine.yield")
			return yield.GFunction(L)
		}))
	}
	co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
		n := wrap.GFunction(L)
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

// budgetCall runs call, a protected call Go makes into Lua (a main chunk, a
// test body, a hook) with its function and nargs arguments on the stack,
// under L's budget (Options.Budget). Without budgets it is call().
func budgetCall(L *lua.LState, nargs int, call func() error) error {
	g := governorOf(L)
	if g == nil {
		return call()
	}
	fn, _ := L.Get(-nargs - 1).(*lua.LFunction)
	if err := g.enter(frame{kind: kindCall, fn: fn, limit: g.budget}); err != nil {
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
	if err := g.enter(frame{kind: kindDrain, name: name, limit: g.drain}); err != nil {
		return err
	}
	return g.leave(f())
}

// callbackFrame opens the frame of a callback's protected call; leave
// closes it.
func (g *governor) callbackFrame(fn *lua.LFunction) error {
	return g.enter(frame{kind: kindCallback, fn: fn, limit: g.budget})
}

// patternCheck is how the pattern matcher asks whether to stop: nil
// without a governor.
func patternCheck(L *lua.LState) func() bool {
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

// drainHost runs a host's Update or Step under the drain budget.
func drainHost(L *lua.LState, name string, f func(float64) error, deltaMs float64) error {
	return Drain(L, name, func() error { return f(deltaMs) })
}

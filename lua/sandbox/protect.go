package sandbox

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua v1.1.2's PCall recovers every panic of the function it calls,
// a Lua error or a Go one, except one: with a message handler it pushes the
// handler and the error onto the value stack before it resets that stack,
// so an error that left the stack full (a registry overflow) overflows it
// again there, and that panic leaves PCall and ends the process. A PCall
// without a handler resets the stack before anything else, so an outer one
// catches it: PCall below runs the handler's PCall inside one.

// PCall is L.PCall(nargs, nret, errfunc) for a call Go makes into a
// script (a main chunk, a test body, a hook): it runs under the state's
// budget (Options.Budget; a budget error comes back as a *lua.ApiError
// naming the budget and the function), and it returns every error the call
// raises, including the one L.PCall lets
// escape as a Go panic (an error raised while the value stack is full, as a
// registry overflow leaves it, when errfunc is set). That error does not
// reach errfunc: it comes back as gopher-lua raised it, with its position
// and a traceback. A Go panic that gopher-lua recovered (a bug
// in a Go function the script called) comes back as a Lua error whose
// message starts with the position of the innermost Lua code. On error, as
// with L.PCall, the function and its arguments are gone from the stack and
// no results are pushed.
//
// The tracebacks PCall writes (without errfunc, or for an error that
// escapes it) list frames as WalkStack does: at most 40, tail calls as one
// line.
func PCall(L *lua.LState, nargs, nret int, errfunc *lua.LFunction) error {
	return budgetCall(L, nargs, func() error { return protectedCall(L, nargs, nret, errfunc) })
}

// protectedCall is PCall without the budget.
func protectedCall(L *lua.LState, nargs, nret int, errfunc *lua.LFunction) error {
	if errfunc == nil {
		// A PCall without a handler resets the stack before anything
		// else: it is a guard for the callbacks below it.
		p := protectorOf(L)
		p.guarded++
		defer func() { p.guarded-- }()
		L.Insert(p.tracer, L.GetTop()-nargs) // tracer(fn, args...)
		p.nret = nret
		return withPosition(L.PCall(nargs+1, nret, nil))
	}
	return protectorOf(L).pcall(L, nargs, nret, errfunc)
}

// protector runs a state's protected calls with a message handler.
//
// The outer PCall costs about as much as the call it guards, so a callback
// skips it while one is already open below it (guarded > 0): a registry
// overflow that escapes the callback's PCall then unwinds, as a Go panic,
// to that outer PCall, which resets the stack. Every way Metronome enters
// Lua from Go opens one (PCall, Drain, and a callback run outside them), so
// only a state driven through raw L.PCall pays per callback.
type protector struct {
	guard    *lua.LFunction // calls the function with the handler, inside an outer PCall
	tracer   *lua.LFunction // calls the function with tracebacks written by panicTraced
	identity *lua.LFunction // the handler of the sandbox's pcall: returns the error as it is
	runner   *lua.LFunction // calls run's f inside an outer PCall
	guarded  int            // outer PCalls open on this state
	f        func() error   // run's argument

	// The guard's arguments and result. A state runs on one goroutine and
	// the guard reads these before it runs any Lua code, so nested calls
	// cannot mix them up.
	nret    int
	errfunc *lua.LFunction
	err     error
}

const protectorKey = "metronome.protector"

// protectorOf returns the protector of L's state (shared by its threads).
func protectorOf(L *lua.LState) *protector {
	reg := L.G.Registry
	if ud, ok := reg.RawGetString(protectorKey).(*lua.LUserData); ok {
		return ud.Value.(*protector)
	}
	p := &protector{}
	p.guard = L.NewFunction(p.runGuard)
	p.tracer = L.NewFunction(p.runTraced)
	p.runner = L.NewFunction(p.runF)
	p.identity = L.NewFunction(func(L *lua.LState) int { L.Push(L.Get(1)); return 1 })
	ud := L.NewUserData()
	ud.Value = p
	reg.RawSetString(protectorKey, ud)
	return p
}

// pcall is PCall with errfunc set.
func (p *protector) pcall(L *lua.LState, nargs, nret int, errfunc *lua.LFunction) error {
	L.Insert(p.guard, L.GetTop()-nargs) // guard(fn, args...)
	p.nret, p.errfunc, p.err = nret, errfunc, nil
	if err := L.PCall(nargs+1, nret, nil); err != nil {
		p.errfunc = nil
		return withPosition(err) // what escaped the inner PCall
	}
	err := p.err
	p.err = nil
	if err != nil && nret > 0 {
		L.Pop(nret) // the guard returned nothing; the outer PCall padded with nils
	}
	return err
}

// call is L.PCall(nargs, nret, errfunc) with a guard below it: the
// callback's own, or the one already open.
func (p *protector) call(L *lua.LState, nargs, nret int, errfunc *lua.LFunction) error {
	if p.guarded > 0 {
		return L.PCall(nargs, nret, errfunc)
	}
	return p.pcall(L, nargs, nret, errfunc)
}

// run runs f, Go code that may run callbacks (a host's frame), with a guard
// open below them.
func (p *protector) run(L *lua.LState, f func() error) error {
	if p.guarded > 0 {
		return f()
	}
	p.f = f
	L.Push(p.runner)
	if err := L.PCall(0, 0, nil); err != nil {
		p.f = nil
		return withPosition(err) // what escaped a callback's PCall
	}
	err := p.err
	p.err = nil
	return err
}

func (p *protector) runF(L *lua.LState) int {
	f := p.f
	p.f = nil
	p.guarded++
	prev := L.Panic
	L.Panic = panicTraced // for what escapes a callback's PCall (see runGuard)
	defer func() { p.guarded--; L.Panic = prev }()
	p.err = f()
	return 0
}

// runGuard calls its first argument with the rest under the handler, and
// returns its results; an error it leaves in p.err.
func (p *protector) runGuard(L *lua.LState) int {
	nret, errfunc := p.nret, p.errfunc
	p.errfunc = nil
	p.guarded++
	// L.PCall raises what escapes it (the overflow above) through the
	// L.Panic it found: this one gives it a bounded traceback, so that the
	// outer PCall does not write gopher-lua's own.
	prev := L.Panic
	L.Panic = panicTraced
	defer func() { p.guarded--; L.Panic = prev }()
	if err := L.PCall(L.GetTop()-1, nret, errfunc); err != nil {
		p.err = err
		return 0
	}
	return L.GetTop()
}

// runTraced calls its first argument with the rest and returns its
// results. An error raised under it (through L.Panic, as RaiseError,
// error and the VM raise) carries the traceback panicTraced writes, so
// that PCall does not write gopher-lua's own: one line per tail call, the
// whole list made before it is cut.
// A Go panic under it gets the same traceback here, while its frames
// still exist.
func (p *protector) runTraced(L *lua.LState) int {
	nret := p.nret
	prev := L.Panic
	L.Panic = panicTraced
	defer func() {
		L.Panic = prev
		if r := recover(); r != nil {
			if _, ok := r.(*lua.ApiError); ok {
				panic(r)
			}
			panic(&lua.ApiError{Type: lua.ApiErrorPanic, Object: lua.LString(fmt.Sprint(r)), StackTrace: stackTraceback(L)})
		}
	}()
	L.Call(L.GetTop()-1, nret)
	return L.GetTop()
}

// panicTraced is L.Panic with the traceback of a main chunk's error.
func panicTraced(L *lua.LState) {
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: L.Get(-1), StackTrace: stackTraceback(L)})
}

// stackTraceback describes L's frames from the innermost outwards, as
// WalkStack lists them.
func stackTraceback(L *lua.LState) string {
	var b strings.Builder
	b.WriteString(TracebackHeading)
	if WalkStack(L, 0, func(f StackFrame) bool { traceLine(&b, f, f.What()); return true }) {
		b.WriteString("\n\t...")
	}
	return b.String()
}

// withPosition gives the message of a Go panic that PCall recovered the
// position of the innermost Lua code, read from the traceback PCall took
// while the frames still existed.
func withPosition(err error) error {
	api, ok := err.(*lua.ApiError)
	if !ok || api.Type != lua.ApiErrorPanic {
		return err
	}
	msg, ok := api.Object.(lua.LString)
	if !ok {
		return err
	}
	for _, line := range strings.Split(api.StackTrace, "\n") {
		where, _, found := strings.Cut(strings.TrimPrefix(line, "\t"), " in ")
		if found && strings.HasSuffix(where, ":") && !strings.HasPrefix(where, "[G]") {
			api.Object = lua.LString(where + " " + string(msg))
			break
		}
	}
	return err
}

// safeXPCall is xpcall(f, handler) run through PCall, so that an error
// that fills the value stack is caught as pcall catches it.
func safeXPCall(L *lua.LState) int {
	fn := L.CheckFunction(1)
	handler := L.CheckFunction(2)
	top := L.GetTop()
	L.Push(fn)
	if err := protectedCall(L, 0, lua.MultRet, handler); err != nil {
		L.Push(lua.LFalse)
		L.Push(ErrorValue(err))
		return 2
	}
	L.Insert(lua.LTrue, top+1)
	return L.GetTop() - top
}

// ErrorValue is the Lua value pcall and xpcall return for err: a
// *lua.ApiError's object, else err's text.
func ErrorValue(err error) lua.LValue {
	if api, ok := err.(*lua.ApiError); ok {
		return api.Object
	}
	return lua.LString(err.Error())
}

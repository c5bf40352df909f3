package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Callbacks runs a state's callbacks, the Lua functions its bindings call
// when a job, timer, facet or handler fires: each call is protected by a
// message handler that records the traceback of the callback's frames while
// they still exist, and runs under the callback budget (Options.Budget). It
// is the one way a binding calls Lua.
//
// Callbacks belongs to the goroutine of its state.
type Callbacks struct {
	gov     *governor // nil without budgets
	handler *lua.LFunction
	fn      *lua.LFunction // the callback running now (innermost)

	// The last message with a traceback NoteRaised recorded, and the
	// length of its message: a callback that lets it through continues
	// that traceback rather than adding one.
	raised    string
	raisedMsg int
	p         *protector
	lookup    *lua.LFunction // looks up a table callback's method (see method)
	method    string         // the method lookup is looking up
}

const callbacksKey = "metronome.callbacks"

// CallbacksOf returns the callback runner of L's state, shared by its
// threads.
func CallbacksOf(L *lua.LState) *Callbacks {
	reg := L.G.Registry
	if ud, ok := reg.RawGetString(callbacksKey).(*lua.LUserData); ok {
		return ud.Value.(*Callbacks)
	}
	c := &Callbacks{p: protectorOf(L), gov: governorOf(L)}
	c.handler = L.NewFunction(c.handle)
	ud := L.NewUserData()
	ud.Value = c
	reg.RawSetString(callbacksKey, ud)
	return c
}

// Call calls f, pushed on L's stack with nargs arguments above it, in
// protected mode; an error comes back as a *lua.ApiError whose StackTrace
// describes the callback's frames, from where the error was raised out to
// f, without a last line naming what ran f.
func (c *Callbacks) Call(L *lua.LState, f *lua.LFunction, nargs int) error {
	return c.CallN(L, f, nargs, 0)
}

// CallN is Call leaving nret results on the stack (none on error).
func (c *Callbacks) CallN(L *lua.LState, f *lua.LFunction, nargs, nret int) error {
	if c.gov != nil {
		if err := c.gov.callbackFrame(f); err != nil {
			L.Pop(nargs + 1)
			return err
		}
	}
	prev := c.fn
	c.fn = f
	done := false
	defer func() {
		if !done { // a registry overflow escaping to the guard below
			c.fn = prev
			if c.gov != nil {
				c.gov.leave(nil)
			}
		}
	}()
	err := c.p.call(L, nargs, nret, c.handler)
	done = true
	c.fn = prev
	if c.gov != nil {
		err = c.gov.leave(err)
	}
	if err == nil {
		return nil
	}
	return c.unwrap(err)
}

// unwrap gives the error of a call made with c.handler the value and
// traceback the handler recorded.
func (c *Callbacks) unwrap(err error) error {
	var api *lua.ApiError
	if errors.As(err, &api) {
		if ud, ok := api.Object.(*lua.LUserData); ok {
			if r, ok := ud.Value.(*raised); ok {
				c.setTraceback(api, r.value, r.traceback)
			}
		}
	}
	return err
}

// setTraceback gives api the value v a callback raised and traceback, its
// frames. A nested callback's error, raised by the advance this callback
// called, keeps its own traceback, which goes on with this callback's
// frames under one heading.
func (c *Callbacks) setTraceback(api *lua.ApiError, v lua.LValue, traceback string) {
	api.Object, api.StackTrace = v, traceback
	if s, ok := v.(lua.LString); ok && c.raised != "" && string(s) == c.raised {
		api.Object = lua.LString(c.raised[:c.raisedMsg])
		api.StackTrace = c.raised[c.raisedMsg+1:] + strings.TrimPrefix(traceback, TracebackHeading)
	}
}

// TracebackHeading is the first line of every traceback a state writes.
const TracebackHeading = "stack traceback:"

// NoteRaised records text, an error message of msgLen bytes followed by a
// newline and the traceback of a callback's error, as the value a binding
// is about to raise: a callback that lets it through then continues that
// traceback instead of starting a second one.
func (c *Callbacks) NoteRaised(text string, msgLen int) {
	c.raised, c.raisedMsg = text, msgLen
}

// Resume resumes the coroutine th with fn(args...) from the thread from,
// whose value stack should be empty (Resume copies th's results into a
// slice as long as it), as the callback cb: under cb's callback budget,
// with th under the state's context, and with an error that kills th given
// the traceback of th's frames out to cb, as Call gives one. The current
// thread is the same afterwards.
func (c *Callbacks) Resume(from, th *lua.LState, cb, fn *lua.LFunction, args ...lua.LValue) (lua.ResumeState, error) {
	if g := c.gov; g != nil {
		g.adopt(th)
		if err := g.callbackFrame(cb); err != nil {
			return lua.ResumeError, err
		}
	}
	prev := c.fn
	c.fn = cb
	G := from.G
	current := G.CurrentThread
	st, err, _ := from.Resume(th, fn, args...)
	G.CurrentThread = current
	c.fn = prev
	if err != nil {
		if api, ok := err.(*lua.ApiError); ok && th.Dead && api.StackTrace == "" {
			c.setTraceback(api, api.Object, deadTraceback(th, cb, api.Object))
		}
	}
	if g := c.gov; g != nil {
		err = g.leave(err)
	}
	return st, err
}

// Standing reports whether an error of the state's budgets stands for the
// calls now open: a callback's error may then be that budget's, and the
// call whose budget ran out must end. False without budgets.
func (c *Callbacks) Standing() bool { return c.gov != nil && c.gov.standing() }

// Context is the state's current context, done when one of its budgets
// runs out or Options.Context is done; nil without budgets.
func (c *Callbacks) Context() context.Context {
	if c.gov == nil {
		return nil
	}
	return c.gov.current()
}

// raised carries an error and its traceback from the message handler to
// call.
type raised struct {
	value     lua.LValue
	traceback string
}

// handle is the message handler: it describes the frames from the one that
// raised the error out to the callback (the innermost call of c.fn made by a
// Go function), and returns the error with them.
func (c *Callbacks) handle(L *lua.LState) int {
	var b strings.Builder
	b.WriteString(TracebackHeading)
	more := WalkStack(L, 1, func(f StackFrame) bool {
		fn := f.Fn
		switch {
		case fn != nil && fn == c.fn && fn == c.lookup:
			fmt.Fprintf(&b, "\n\t[G]: in the lookup of method '%s'", c.method)
			return false
		case fn != nil && !fn.IsG && fn == c.fn && !calledFromLua(L, f.Level+1+f.TailCalls):
			traceLine(&b, f, fmt.Sprintf("function <%s:%d>", f.Debug.Source, f.Debug.LineDefined))
			return false
		}
		traceLine(&b, f, f.What())
		return true
	})
	if more {
		b.WriteString("\n\t...")
	}
	ud := L.NewUserData()
	ud.Value = &raised{value: L.Get(1), traceback: b.String()}
	L.Push(ud)
	return 1
}

// calledFromLua reports whether the frame at level is a Lua function's.
func calledFromLua(L *lua.LState, level int) bool {
	dbg, ok := L.GetStack(level)
	if !ok {
		return false
	}
	fv, err := L.GetInfo("f", dbg, lua.LNil)
	if err != nil {
		return false
	}
	fn, ok := fv.(*lua.LFunction)
	return ok && !fn.IsG
}

// frameName is how a traceback names a frame's function, as gopher-lua's
// own tracebacks do.
func frameName(name string) string {
	switch {
	case name == "":
		return "function <?>"
	case name == "main chunk":
		return name
	case name[0] == '(' || name[0] == '<':
		return "function " + name
	}
	return "function '" + name + "'"
}

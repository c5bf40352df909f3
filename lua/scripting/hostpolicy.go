package scripting

import (
	"errors"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/sched"
)

// hostOnError is hs:on_error(fn): the host's error policy. With fn, a
// job's or facet's error goes to fn(message, info) and the frame goes on
// (hostservices.Host.SetErrorHandler); on_error(nil) restores the default,
// where the error stops the frame and update or step raises it.
func hostOnError(L *lua.LState) int {
	h := checkHost(L, "on-error")
	switch fn := L.Get(2).(type) {
	case *lua.LFunction:
		h.SetErrorHandler(luaErrorHandler(L, fn))
	case *lua.LNilType:
		if L.GetTop() < 2 {
			argError(L, 2, "on-error", "handler must be a function or nil, got no value")
		}
		h.SetErrorHandler(nil)
	default:
		argError(L, 2, "on-error", "handler must be a function or nil, got "+describe(fn))
	}
	L.Push(lua.LTrue)
	return 1
}

// luaErrorHandler adapts fn to a host error handler. fn runs on the main
// thread as a callback does, and gets the error as update would raise it (a
// message with its one traceback, or an error object as it is) and a table
// { kind = "job", job = "every #3 scheduled at f.lua:12" } or
// { kind = "facet", facet = name }. Raising the message or object it was
// given (error(msg, 0)) stops the frame with the original error; any other
// error stops it with fn's own, whose traceback names the handler.
func luaErrorHandler(L *lua.LState, fn *lua.LFunction) func(error) error {
	main := L.G.MainThread // the handler outlives the thread that set it
	cbs := callbacksOf(main)
	label := where(L)
	return func(err error) error {
		v := reportedValue(err)
		main.Push(fn)
		main.Push(v)
		main.Push(errorInfo(main, err))
		herr := cbs.Call(main, fn, 2)
		if herr == nil {
			return nil
		}
		var api *lua.ApiError
		if errors.As(herr, &api) && api.Object == v {
			return err // raised again as it came: the default for this error
		}
		return &handlerError{label: label, err: herr}
	}
}

// reportedValue is the Lua value update would raise for err.
func reportedValue(err error) lua.LValue {
	if isScriptError(err) {
		v, _ := callbackErrorValue(err)
		return v
	}
	return lua.LString(err.Error())
}

// errorInfo says what failed: { kind = "job", job = name } or
// { kind = "facet", facet = name }.
func errorInfo(L *lua.LState, err error) *lua.LTable {
	t := L.CreateTable(0, 2)
	var (
		je *sched.JobError
		fe *hostservices.FacetError
	)
	switch {
	case errors.As(err, &je):
		t.RawSetString("kind", lua.LString("job"))
		t.RawSetString("job", lua.LString(je.Job.String()))
	case errors.As(err, &fe):
		t.RawSetString("kind", lua.LString("facet"))
		t.RawSetString("facet", lua.LString(fe.Name))
	}
	return t
}

// handlerError is the error of an on_error handler: it stops the frame.
type handlerError struct {
	label string // where on_error was called
	err   error
}

func (e *handlerError) Error() string { return e.err.Error() }
func (e *handlerError) Unwrap() error { return e.err }

package scripting

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/sandbox"
)

// The bindings raise their errors through the sandbox, which raises
// without closing every frame's upvalues.

func raise(L *lua.LState, format string, args ...any) { sandbox.Raise(L, format, args...) }

func raiseValue(L *lua.LState, v lua.LValue) { sandbox.RaiseValue(L, v) }

// callbacksOf returns the callback runner of L's state: the one way a
// binding calls Lua.
func callbacksOf(L *lua.LState) *sandbox.Callbacks { return sandbox.CallbacksOf(L) }

// PCall runs a function Go calls into a script (a main chunk, a test
// body, a hook) as sandbox.PCall does: under the state's budget, returning
// every error the call raises, including the ones L.PCall lets escape as a
// Go panic. Use it, not L.PCall.
func PCall(L *lua.LState, nargs, nret int, errfunc *lua.LFunction) error {
	return sandbox.PCall(L, nargs, nret, errfunc)
}

// Drain runs f, a Go call that moves a scheduler or host of L's scripts
// (hostservices.Host.UpdateBy, Runner.Step), as sandbox.Drain does: under
// L's drain budget (Options.DrainBudget), with a guard open below the
// callbacks it runs.
func Drain(L *lua.LState, name string, f func() error) error { return sandbox.Drain(L, name, f) }

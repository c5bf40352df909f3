package sandbox

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua v1.1.2 raises an error with closeAllUpvalues unless a message
// handler is active: it closes the open upvalues of every frame up to the
// main chunk, not only of the frames the error unwinds
// (yuin/gopher-lua#448). A script that catches the error then finds its
// closures cut off from the locals they share with their enclosing
// function: `local n = 0; f = function() n = n + 1 end` stops changing the n
// the chunk reads. Metronome's bindings raise through L.Panic instead, which
// is what RaiseError does after closing, and the sandbox's pcall runs with a
// message handler, as xpcall already does.

// raise is L.RaiseError without closeAllUpvalues: the message gets the
// position of the Lua code that called the current Go function.
func raise(L *lua.LState, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if w := luaWhere(L, 0); w != "" {
		msg = w + " " + msg
	}
	raiseValue(L, lua.LString(msg))
}

// raiseValue raises v as it is (a string gets no position).
func raiseValue(L *lua.LState, v lua.LValue) {
	L.Push(v)
	L.Panic(L)
}

// luaWhere returns "file:line:" of the first Lua function at or above
// level, as gopher-lua's own error positions do, or "".
func luaWhere(L *lua.LState, level int) string {
	for ; ; level++ {
		w := L.Where(level)
		if w == "" || !strings.HasPrefix(w, "[G]") {
			return w
		}
	}
}

// safePCall is pcall with a message handler that returns the error as it
// is, so raising it does not close every frame's upvalues.
func safePCall(L *lua.LState) int {
	if L.GetTop() < 1 {
		raise(L, "bad argument #1 to 'pcall' (value expected)")
	}
	v := L.Get(1)
	if v.Type() != lua.LTFunction && L.GetMetaField(v, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	p := protectorOf(L)
	if err := p.pcall(L, L.GetTop()-1, lua.MultRet, p.identity); err != nil {
		L.Push(lua.LFalse)
		L.Push(ErrorValue(err))
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// safeError is error(obj, level) raised without closeAllUpvalues.
func safeError(L *lua.LState) int {
	if L.GetTop() < 1 {
		raise(L, "bad argument #1 to 'error' (value expected)")
	}
	obj := L.Get(1)
	level := 1
	if n, ok := L.Get(2).(lua.LNumber); ok {
		level = int(n)
	}
	// As in Lua 5.1, the position is that of the function at level, and
	// none when that function is a Go one (pcall(error, "e") gives "e").
	if s, ok := obj.(lua.LString); ok && level > 0 {
		if w := L.Where(level); w != "" && !strings.HasPrefix(w, "[G]") {
			obj = lua.LString(w + " " + string(s))
		}
	}
	raiseValue(L, obj)
	return 0
}

// Raise raises the Lua error format (with args, as fmt.Sprintf) at the
// position of the Lua code that called the current Go function, as
// L.RaiseError does, but without closing every frame's upvalues (see
// above). It does not return.
func Raise(L *lua.LState, format string, args ...any) { raise(L, format, args...) }

// RaiseValue raises v as it is: a string gets no position.
func RaiseValue(L *lua.LState, v lua.LValue) { raiseValue(L, v) }

// ArgError raises "bad argument #n to 'fn' (msg)", the form Lua's own
// library errors take.
func ArgError(L *lua.LState, n int, fn, msg string) {
	raise(L, "bad argument #%d to '%s' (%s)", n, fn, msg)
}

func argError(L *lua.LState, n int, fn, msg string) { ArgError(L, n, fn, msg) }

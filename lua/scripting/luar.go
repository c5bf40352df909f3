package scripting

import (
	"fmt"
	"reflect"

	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// Expose makes v, a Go value of the embedding host (a game-state struct,
// say), a module of L: require(name) returns it as gopher-luar converts it.
// Like every module it is preloaded, never global.
//
// Scripts see exported fields and methods only, under their Go name and
// with the first letter lowercased (Score and score); unexported ones read
// as nil and cannot be set or called. A field tagged `luar:"-"` is hidden;
// `luar:"name"` renames it. Through a pointer, scripts can also set
// exported fields. Numbers cross as float64, so integers beyond 2^53 lose
// precision: expose times as Temporal values, not nanosecond counts.
//
// This is the cold path: a gopher-luar method call costs about ten times a
// hand-written LGFunction. Use it for host state a script reads now and
// then, not for per-frame callbacks.
//
// Expose panics if name is empty.
func Expose(L *lua.LState, name string, v any) {
	if name == "" {
		panic("scripting.Expose: empty module name")
	}
	preload, ok := L.GetField(L.GetGlobal("package"), "preload").(*lua.LTable)
	if !ok {
		panic(fmt.Sprintf("scripting.Expose(%q): the state has no package.preload table", name))
	}
	preload.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
		L.Push(luar.New(L, v))
		return 1
	}))
}

// Func is fn, a plain Go function, as a Lua function: gopher-luar converts
// its arguments from Lua and its results back, so a host hands scripts a Go
// function without writing an lua.LGFunction. A final error result is not
// returned: a non-nil one is raised as a Lua error, at the script's call.
// Set the function where scripts find it, in a module table or a field of
// an exposed value. Like Expose, it is the cold path; Func panics if fn is
// not a function.
func Func(L *lua.LState, fn any) lua.LValue {
	t := reflect.TypeOf(fn)
	if fn == nil || t.Kind() != reflect.Func {
		panic(fmt.Sprintf("scripting.Func: want a Go function, got %T", fn))
	}
	f := luar.New(L, fn)
	if t.NumOut() == 0 || t.Out(t.NumOut()-1) != reflect.TypeFor[error]() {
		return f
	}
	return L.NewFunction(func(L *lua.LState) int {
		L.Insert(f, 1)
		L.Call(L.GetTop()-1, lua.MultRet)
		n := L.GetTop()
		if ud, ok := L.Get(n).(*lua.LUserData); ok {
			if err, ok := ud.Value.(error); ok {
				L.RaiseError("%s", err.Error())
			}
		}
		L.Pop(1) // the nil error
		return n - 1
	})
}

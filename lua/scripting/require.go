package scripting

import (
	"slices"
	"strings"

	"github.com/metronome-rt/metronome/internal/nearest"
	lua "github.com/yuin/gopher-lua"
)

// requireModule is require as gopher-lua's, with two differences: a module
// that no loader finds is an error that names the nearest preloaded modules
// and ends where its last reason ends, and it raises without closing every
// frame's upvalues.
func requireModule(L *lua.LState) int {
	name := L.CheckString(1)
	reg := L.Get(lua.RegistryIndex)
	loaded := L.GetField(reg, "_LOADED")
	if lv := L.GetField(loaded, name); lua.LVAsBool(lv) {
		if lv == loadingSentinel(L) {
			raise(L, "loop or previous error loading module: %s", name)
		}
		L.Push(lv)
		return 1
	}
	loaders, ok := L.GetField(reg, "_LOADERS").(*lua.LTable)
	if !ok {
		raise(L, "package.loaders must be a table")
	}
	var messages []string
	var load lua.LValue
	for i := 1; load == nil; i++ {
		f := loaders.RawGetInt(i)
		if f == lua.LNil {
			raise(L, "%s", moduleNotFound(L, name, messages))
		}
		L.Push(f)
		L.Push(lua.LString(name))
		L.Call(1, 1)
		ret := L.Get(-1)
		L.Pop(1)
		switch ret := ret.(type) {
		case *lua.LFunction:
			load = ret
		case lua.LString:
			messages = append(messages, string(ret))
		}
	}
	L.SetField(loaded, name, loadingSentinel(L))
	L.Push(load)
	L.Push(lua.LString(name))
	L.Call(1, 1)
	ret := L.Get(-1)
	L.Pop(1)
	switch modv := L.GetField(loaded, name); {
	case modv != loadingSentinel(L):
		L.Push(modv)
	case ret != lua.LNil:
		L.SetField(loaded, name, ret)
		L.Push(ret)
	default:
		L.SetField(loaded, name, lua.LTrue)
		L.Push(lua.LTrue)
	}
	return 1
}

// loadingSentinel marks a module in package.loaded while its loader runs.
func loadingSentinel(L *lua.LState) lua.LValue {
	const key = "metronome.require.loading"
	reg := L.Get(lua.RegistryIndex).(*lua.LTable)
	if v := reg.RawGetString(key); v != lua.LNil {
		return v
	}
	v := L.NewUserData()
	reg.RawSetString(key, v)
	return v
}

// moduleNotFound is require's error for name, which no loader found for
// the reasons in messages.
func moduleNotFound(L *lua.LState, name string, messages []string) string {
	var names []string
	if pkg, ok := L.GetGlobal("package").(*lua.LTable); ok {
		if preload, ok := pkg.RawGetString("preload").(*lua.LTable); ok {
			preload.ForEach(func(k, _ lua.LValue) {
				if s, ok := k.(lua.LString); ok {
					names = append(names, string(s))
				}
			})
		}
	}
	slices.Sort(names)
	msg := "module '" + name + "' not found"
	if near := nearest.Names(name, names, 3); len(near) > 0 {
		if strings.Contains(name, "_") && !strings.Contains(name, "-") {
			for i, n := range near {
				near[i] = strings.ReplaceAll(n, "-", "_") // the script's spelling
			}
		}
		msg += nearest.Phrase(near)
	} else {
		msg += ":"
	}
	if len(messages) > 0 {
		msg += "\n\t" + strings.Join(messages, "\n\t")
	}
	return msg
}

// snakeModule returns a loader for name read as the snake_case spelling of
// a preloaded module ("runtime_scheduler" for runtime-scheduler), or nil.
// The loader requires the kebab-case name, so both spellings share one
// module value.
func snakeModule(L *lua.LState, preload *lua.LTable, name string) lua.LValue {
	alt := strings.ReplaceAll(name, "_", "-")
	if alt == name || preload.RawGetString(alt) == lua.LNil {
		return nil
	}
	return L.NewFunction(func(L *lua.LState) int {
		L.Push(L.NewFunction(requireModule))
		L.Push(lua.LString(alt))
		L.Call(1, 1)
		return 1
	})
}

package scripting

import (
	"slices"
	"strings"

	"github.com/metronome-rt/metronome/internal/nearest"
	lua "github.com/yuin/gopher-lua"
)

// strictMethods makes a failed lookup in methods, the __index table of the
// type kind, an error naming kind, the name and the nearest methods (and
// fields), instead of a nil that fails later as "attempt to call a
// non-function object". A hit is a plain raw table read: the check runs only
// on a miss.
func strictMethods(L *lua.LState, kind string, methods *lua.LTable, fields ...string) {
	mt := L.CreateTable(0, 1)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		noMethod(L, kind, methods, L.Get(2), fields...)
		return 0
	}))
	methods.Metatable = mt
}

// noMethod raises "<kind> has no method '<key>'; did you mean '<m>'?" for
// a string key; any other key reads as nil.
func noMethod(L *lua.LState, kind string, methods *lua.LTable, key lua.LValue, fields ...string) {
	name, ok := key.(lua.LString)
	if !ok {
		L.Push(lua.LNil)
		return
	}
	raise(L, "%s", noNameText(kind, "method", methods, string(name), fields))
}

// strictModule makes reading a name the module table mod (required as
// name) lacks an error naming the module and its nearest names.
func strictModule(L *lua.LState, name string, mod *lua.LTable) {
	mt := L.CreateTable(0, 1)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		k, ok := L.Get(2).(lua.LString)
		if !ok {
			return 0
		}
		raise(L, "%s", noNameText("module '"+name+"'", "field", mod, string(k), nil))
		return 0
	}))
	mod.Metatable = mt
}

func noNameText(kind, noun string, methods *lua.LTable, name string, fields []string) string {
	// Offer the spelling the script uses: kebab-case names for a name with
	// '-' or '?', snake_case ones otherwise.
	kebabStyle := strings.ContainsAny(name, "-?")
	var all, styled []string
	methods.ForEach(func(k, _ lua.LValue) {
		s, ok := k.(lua.LString)
		if !ok {
			return
		}
		canonical := !strings.Contains(string(s), "_")
		if canonical {
			all = append(all, string(s))
		}
		if kebabStyle && canonical || !kebabStyle && !strings.ContainsAny(string(s), "-?") {
			styled = append(styled, string(s))
		}
	})
	styled = append(styled, fields...)
	slices.Sort(styled)
	slices.Sort(all)
	msg := kind + " has no " + noun + " '" + name + "'"
	if near := nearest.Names(name, styled, 3); len(near) > 0 {
		return msg + nearest.Phrase(near)
	}
	return msg + " (" + noun + "s: " + strings.Join(all, ", ") + ")"
}

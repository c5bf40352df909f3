package scripting

import (
	lua "github.com/yuin/gopher-lua"
)

// Operators Temporal values do not have, given metamethods so the error
// names both operands instead of gopher-lua's "__len undefined" or "cannot
// perform concat operation between userdata and string".
//
// A comparison of a Temporal value with a value of another Lua type
// (d < 5) stays gopher-lua's "attempt to compare userdata with number":
// its VM raises that before looking for __lt or __le, so no metamethod can
// name the operands. Between two userdata the shared __lt and __le do.

// temporalMisuse returns the metamethods every Temporal metatable gets;
// lt and le are the shared comparison functions (gopher-lua calls __lt only
// when both operands have the same one).
func temporalMisuse(L *lua.LState, lt, le *lua.LFunction) map[string]lua.LValue {
	return map[string]lua.LValue{
		"__len":    L.NewFunction(temporalLen),
		"__concat": L.NewFunction(temporalConcat),
		"__lt":     lt,
		"__le":     le,
	}
}

func temporalLen(L *lua.LState) int {
	v := L.Get(1)
	hint := "a Temporal value has no length"
	if _, ok := toDuration(v); ok {
		hint = "a duration has no length: use d:total_ms() or tostring(d)"
	} else if _, ok := toInstant(v); ok {
		hint = "an instant has no length: use tostring(t)"
	}
	raise(L, "bad operand to '#' (%s; %s)", describe(v), hint)
	return 0
}

func temporalConcat(L *lua.LState) int {
	badOperands(L, "..", L.Get(1), L.Get(2), "use tostring(...) to join a Temporal value to text")
	return 0
}

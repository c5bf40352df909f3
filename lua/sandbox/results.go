package sandbox

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// A state's value stack (gopher-lua's registry) holds lua.RegistrySize
// values, 5120 by default, shared by every frame of its thread. The
// builtins below push as many values as their arguments ask for; filling
// the stack raises "registry overflow" from deep inside gopher-lua. They
// refuse up front to push more than maxResults, with an argument error
// that says how many were asked for: unpack and unpack's sizes, string.byte
// and a pattern's captures (string.find, match, gmatch and gsub). The rest
// of the stack is left to the frames already on it. A call within the limit
// from deep enough frames can still overflow; that is a Lua error like any
// other (see PCall).

// maxResults is how many values a builtin may push at once.
func maxResults() int { return lua.RegistrySize - lua.RegistrySize/5 }

// installResultLimits replaces unpack and wraps string.byte with the
// limit; installPatterns' functions check a pattern's captures themselves.
func installResultLimits(L *lua.LState) {
	limit := maxResults()
	L.G.Global.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int { return checkedUnpack(L, limit) }))
	str, ok := L.GetGlobal("string").(*lua.LTable)
	if !ok {
		return
	}
	if orig, ok := str.RawGetString("byte").(*lua.LFunction); ok && orig.IsG {
		str.RawSetString("byte", L.NewFunction(func(L *lua.LState) int {
			checkByteSlice(L, limit)
			return orig.GFunction(L)
		}))
	}
}

// checkedUnpack is unpack(list [, i [, j]]) as gopher-lua has it (i and j
// truncated to integers, j defaulting to #list), refusing more than limit
// results.
func checkedUnpack(L *lua.LState, limit int) int {
	tb := L.CheckTable(1)
	start := L.OptInt(2, 1)
	end := L.OptInt(3, tb.Len())
	if end < start {
		return 0
	}
	if n := uint64(end) - uint64(start) + 1; n == 0 || n > uint64(limit) {
		argError(L, 1, "unpack", fmt.Sprintf("too many results to unpack: %s, at most %d", countText(n), limit))
	}
	for i := start; i <= end; i++ {
		L.Push(tb.RawGetInt(i))
	}
	return end - start + 1
}

// countText writes n, where 0 stands for 2^64 (every int64 from i to j).
func countText(n uint64) string {
	if n == 0 {
		return "18446744073709551616"
	}
	return fmt.Sprint(n)
}

// checkByteSlice refuses string.byte(s, i, j) whose slice, bounded as
// string.byte bounds it, has more than limit bytes.
func checkByteSlice(L *lua.LState, limit int) {
	if L.GetTop() < 3 {
		return // string.byte(s [, i]) returns at most one value
	}
	s := L.CheckString(1)
	start := L.OptInt(2, 1) - 1
	end := L.OptInt(3, -1)
	l := len(s)
	if start < 0 {
		start = l + start + 1
	}
	if end < 0 {
		end = l + end + 1
	}
	start, end = max(start, 0), min(end, l)
	if end-start > limit {
		argError(L, 3, "byte", fmt.Sprintf("string slice too long: %d bytes, at most %d", end-start, limit))
	}
}

package sandbox

import (
	"runtime"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua runs a metamethod, a pcall'd function, a library's callback
// (table.sort's comparator, gsub's replacement...) as a nested run of its
// VM, inside the Go call that needs the result. A coroutine that yields
// there cannot be resumed where it stopped: the nested run returns to its
// Go caller as if the function had returned, and the next resume
// dereferences a frame that is gone (a Go nil-pointer panic, caught and
// turned into a confusing error). Lua 5.1 refuses such a yield outright;
// RefuseNestedYield does the same before coroutine.yield, s:wait or
// tick:wait yields.

const (
	vmLoop        = "github.com/yuin/gopher-lua.mainLoop"
	vmLoopWithCtx = "github.com/yuin/gopher-lua.mainLoopWithContext"
	vmThreadRun   = "github.com/yuin/gopher-lua.threadRun"
)

// yieldCrossesGo reports whether the running coroutine's VM loop is nested
// in a Go call: more than one VM loop on the Go stack above the resume
// that started this run of the coroutine.
func yieldCrossesGo() bool {
	var pcs [96]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	loops := 0
	for {
		f, more := frames.Next()
		switch f.Function {
		case vmLoop, vmLoopWithCtx:
			loops++
		case vmThreadRun:
			return loops > 1
		}
		if !more {
			// No resume within reach: a stack this deep holds nested
			// Go calls, or the caller is not in a coroutine at all (and
			// the yield fails anyway).
			return loops > 1
		}
	}
}

// RefuseNestedYield raises "fn: attempt to yield across a metamethod or
// C-call boundary ..." when a yield of the running coroutine would cross a
// Go call of the VM (a metamethod, pcall, a library's callback): a binding
// that yields calls it first, as coroutine.yield does.
func RefuseNestedYield(L *lua.LState, fn string) {
	if yieldCrossesGo() {
		raise(L, "%s: attempt to yield across a metamethod or C-call boundary (from inside a metamethod, pcall, or a function a library calls back)", fn)
	}
}

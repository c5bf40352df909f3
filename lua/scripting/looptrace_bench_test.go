package scripting

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// benchLoopTaskTraced is BenchmarkLoopTask with a sink that counts.
func benchLoopTaskTraced(b *testing.B) {
	b.Run("on", func(b *testing.B) {
		n := 0
		L, step := benchChunk(b, func(L *lua.LState) { SetLoopTrace(L, func(LoopEvent) { n++ }) }, loopTaskScript)
		defer L.Close()
		runSteps(b, L, step, 10_000)
	})
}

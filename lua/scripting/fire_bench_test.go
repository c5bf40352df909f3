package scripting

import (
	"testing"

	"github.com/yuin/gopher-lua"
)

// BenchmarkLuaCallbackBoundary measures the Go-to-Lua crossing a fire costs:
// a protected call per job against an unprotected call inside one protected
// call per drain (the batch the runtime-scheduler uses).
func BenchmarkLuaCallbackBoundary(b *testing.B) {
	L := NewState(Options{})
	defer L.Close()
	if err := L.DoString(`function noop() end`); err != nil {
		b.Fatal(err)
	}
	f := L.GetGlobal("noop").(*lua.LFunction)
	b.Run("pcall-per-job", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			L.Push(f)
			if err := L.PCall(0, 0, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("call-in-batch", func(b *testing.B) {
		b.ReportAllocs()
		batch := L.NewFunction(func(L *lua.LState) int {
			for b.Loop() {
				L.Push(f)
				L.Call(0, 0)
			}
			return 0
		})
		L.Push(batch)
		if err := L.PCall(0, 0, nil); err != nil {
			b.Fatal(err)
		}
	})
}

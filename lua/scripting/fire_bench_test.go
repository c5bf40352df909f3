package scripting

import (
	"context"
	"testing"

	"github.com/metronome-rt/metronome/temporal"
	lua "github.com/yuin/gopher-lua"
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

// BenchmarkBudgetFire is one callback's fire through the callback runner
// with budgets off, on (the governor: a frame per fire and a context check
// per instruction), and with a plain context.WithCancel on the state
// instead of the governor (std-ctx, no frames).
func BenchmarkBudgetFire(b *testing.B) {
	for _, mode := range []string{"off", "on", "std-ctx"} {
		b.Run(mode, func(b *testing.B) {
			opts := Options{}
			if mode == "on" {
				opts = Options{Budget: temporal.Hour, DrainBudget: temporal.Hour}
			}
			L := NewState(opts)
			defer L.Close()
			if mode == "std-ctx" {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				L.SetContext(ctx)
			}
			if err := L.DoString(`n = 0 function cb() n = n + 1 end`); err != nil {
				b.Fatal(err)
			}
			f := L.GetGlobal("cb").(*lua.LFunction)
			cbs := callbacksOf(L)
			b.ReportAllocs()
			for b.Loop() {
				L.Push(f)
				if err := cbs.Call(L, f, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

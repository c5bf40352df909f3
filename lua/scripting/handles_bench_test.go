package scripting

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// BenchmarkLuaSchedule is the cost of scheduling from Lua: one
// schedule_once (no options beyond delay and callback) or schedule_every
// per op, the handle included, then a clear every 1,000 jobs.
func BenchmarkLuaSchedule(b *testing.B) {
	for _, call := range []string{"schedule_once{ delay = d, callback = f }", "schedule_every{ interval = d, callback = f }"} {
		b.Run(call[:14], func(b *testing.B) {
			L := NewState(Options{})
			defer L.Close()
			if err := L.DoString(`
				local T = require "temporal"
				local s = require("runtime-scheduler").create{ clock = T.clock.fixed(T.instant.parse("2000-01-01T00:00:00Z")) }
				local d, f = T.duration{ seconds = 1 }, function() end
				function run(n)
					for i = 1, n do
						s:` + call + `
						if i % 1000 == 0 then s:clear() end
					end
					s:clear()
				end`); err != nil {
				b.Fatal(err)
			}
			run := L.GetGlobal("run")
			b.ReportAllocs()
			b.ResetTimer()
			if err := L.CallByParam(lua.P{Fn: run, NRet: 0, Protect: true}, lua.LNumber(b.N)); err != nil {
				b.Fatal(err)
			}
		})
	}
}

package bench

import (
	"context"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

// withStdContext gives a state a plain context.WithCancel, the alternative
// to the governor: its Done is an atomic load and a type assertion per
// instruction.
func withStdContext(L *lua.LState) (done func()) {
	ctx, cancel := context.WithCancel(context.Background())
	L.SetContext(ctx)
	return cancel
}

// BenchmarkIntervalsBudget is the intervals scene's Lua peers with budgets off,
// on (the governor as the state's context, a frame per callback), and with a
// plain context.WithCancel on the state instead (std-ctx): the cost of the
// context check per instruction and of the governor's frames.
func BenchmarkIntervalsBudget(b *testing.B) {
	const n, hours = 10_000, 1.0
	on := scripting.Options{Budget: temporal.Hour, DrainBudget: temporal.Hour, MemoryLimit: 1 << 40}
	for _, peer := range []struct {
		name   string
		script []byte
		file   string
	}{{"metronome-lua", IntervalsScript, "w1.lua"}, {"metronome-lua-noop", IntervalsNoopScript, "w1_noop.lua"}, {"metronome-event-loop", IntervalsEventLoopScript, "w1_eventloop.lua"}} {
		for _, mode := range []struct {
			name  string
			opts  scripting.Options
			setup func(*lua.LState) func()
		}{{"off", scripting.Options{}, nil}, {"on", on, nil}, {"std-ctx", scripting.Options{}, withStdContext}} {
			b.Run(peer.name+"/budget-"+mode.name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					fires, err := runIntervalsLua(peer.script, peer.file, n, hours, mode.opts, mode.setup)
					if err != nil {
						b.Fatal(err)
					}
					if fires != IntervalsFires10000x1 {
						b.Fatalf("%d fires, want %d", fires, IntervalsFires10000x1)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/IntervalsFires10000x1, "ns/fire")
			})
		}
	}
}

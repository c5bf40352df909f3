package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/scripting"
)

// runW1LuaWith is RunW1Lua on a state made with opts, its main chunk run
// under the budget as metronome run runs it.
func runW1LuaWith(script []byte, chunkname string, n int, hours float64, opts scripting.Options, stdCtx bool) (int64, error) {
	var out bytes.Buffer
	opts.Stdout = &out
	L := scripting.NewState(opts)
	defer L.Close()
	if stdCtx {
		// The alternative to the governor: a context.WithCancel, whose Done
		// is an atomic load and a type assertion per instruction.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		L.SetContext(ctx)
	}
	fn, err := L.Load(bytes.NewReader(script), chunkname)
	if err != nil {
		return 0, err
	}
	L.Push(fn)
	L.Push(lua.LString(fmt.Sprint(n)))
	L.Push(lua.LString(fmt.Sprint(hours)))
	if err := scripting.PCall(L, 2, 0, nil); err != nil {
		return 0, err
	}
	var res struct {
		Fires *int64 `json:"fires"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Fires == nil {
		return 0, fmt.Errorf("%s printed %q", chunkname, out.String())
	}
	return *res.Fires, nil
}

// BenchmarkW1Budget is W1's Lua peers with budgets off, on (the governor
// as the state's context, a frame per callback), and with a plain
// context.WithCancel on the state instead (std-ctx): the cost of the
// context check per instruction and of the governor's frames.
func BenchmarkW1Budget(b *testing.B) {
	const n, hours = 10_000, 1.0
	on := scripting.Options{Budget: time.Hour, DrainBudget: time.Hour, MemoryLimit: 1 << 40}
	for _, peer := range []struct {
		name   string
		script []byte
		file   string
	}{{"metronome-lua", W1Script, "w1.lua"}, {"metronome-lua-noop", W1NoopScript, "w1_noop.lua"}} {
		for _, mode := range []struct {
			name   string
			opts   scripting.Options
			stdCtx bool
		}{{"off", scripting.Options{}, false}, {"on", on, false}, {"std-ctx", scripting.Options{}, true}} {
			b.Run(peer.name+"/budget-"+mode.name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					fires, err := runW1LuaWith(peer.script, peer.file, n, hours, mode.opts, mode.stdCtx)
					if err != nil {
						b.Fatal(err)
					}
					if fires != W1Fires10000x1 {
						b.Fatalf("%d fires, want %d", fires, W1Fires10000x1)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/W1Fires10000x1, "ns/fire")
			})
		}
	}
}

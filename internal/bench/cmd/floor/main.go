// Command floor prints, for the intervals scenes, what a fire costs at the
// least: the runtime's Go side with Go callbacks (the typed scheduler's
// intervals, its keyed timers, the event loop) and the Lua side as bare
// gopher-lua calls of the scenes' callbacks (bench.LuaCallFloor), plus
// what the scenes' own statements cost in bare gopher-lua, spread over their
// fires (bench.LuaSetupFloor). A Lua scene cannot be faster than its Go
// side, its bare calls and its own statements, so the sum bounds the ratio
// its goal asks for; make bench-gate prints that bound beside each ratio.
//
// Output, one JSON object, ns per fire or per call:
//
//	{"go_every":..,"go_keyed":..,"go_loop":..,"lua_leaf":..,"lua_calling":..,"lua_resumed":..,
//	 "lua_setup":..,"lua_setup_loop":..}
//
// Usage:
//
//	go run ./internal/bench/cmd/floor [-n 10000] [-h 1]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/metronome-rt/metronome/internal/bench"
)

func main() {
	n := flag.Int("n", 10000, "intervals")
	h := flag.Float64("h", 1, "hours of virtual time")
	flag.Parse()
	if err := run(*n, *h); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(n int, h float64) error {
	want := bench.IntervalsExpectedFires(n, h)
	if want == 0 {
		return fmt.Errorf("the scene N=%d H=%v fires nothing", n, h)
	}
	out := map[string]float64{}
	for _, s := range []struct {
		name string
		run  func(int, float64) (int64, error)
	}{
		{"go_every", bench.RunIntervalsMetronomeGo},
		{"go_keyed", bench.RunIntervalsMetronomeGoKeyed},
		{"go_loop", bench.RunIntervalsEventLoopGo},
	} {
		start := time.Now()
		fires, err := s.run(n, h)
		took := time.Since(start)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if fires != want {
			return fmt.Errorf("%s: %d fires, want %d", s.name, fires, want)
		}
		out[s.name] = float64(took.Nanoseconds()) / float64(fires)
	}
	leaf, calling, resumed, err := bench.LuaCallFloor(int(want))
	if err != nil {
		return err
	}
	out["lua_leaf"], out["lua_calling"], out["lua_resumed"] = leaf, calling, resumed
	for _, s := range []struct {
		name      string
		eventLoop bool
	}{{"lua_setup", false}, {"lua_setup_loop", true}} {
		took, err := bench.LuaSetupFloor(n, s.eventLoop)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		out[s.name] = float64(took.Nanoseconds()) / float64(want)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	return nil
}

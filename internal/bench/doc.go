// Package bench holds the peers Metronome is measured against and the
// reference scenes they all run. It is test and tooling support: nothing
// in Metronome imports it.
//
// # The intervals scene
//
// The intervals scene is the reference workload for the typed scheduler
// (see w1.lua, a byte-identical copy of the shared scene
// ../shared/bench/w1.lua, kept here so the benchmarks run where that
// folder is absent):
//
//	N intervals; for each, from a MINSTD generator x starting at 42
//	(x = x * 48271 % 2147483647, r = x / 2147483647):
//	  period = 1000 + floor(r * 59000) ms, phase = floor(r * period) ms
//	a one-shot at the phase fires once and creates the interval;
//	one advance of H hours runs everything due at or before H hours.
//
// For N = 10000 and H = 1 that is 2,560,973 fires
// ([IntervalsFires10000x1]). Each peer runs the same scene and returns its
// fire count, which the benchmarks check (a correctness check, not a
// timing):
//
//	metronome-lua       w1.lua through lua.NewState and runtime-scheduler
//	metronome-go        the scene on sched.Scheduler with Go callbacks
//	pure-lua-heap       w1_pure_lua.lua: a binary-heap scheduler in Lua,
//	                    same scene, run in gopher-lua
//	go-container-heap   the scene on [HeapScheduler] (container/heap)
//	afterfunc-synctest  time.AfterFunc in a testing/synctest bubble
//
// # Figures
//
// BenchmarkIntervals (in this package), the benchmarks in
// runtime/sched/bench_test.go and runtime/internal/timerq/heap_bench_test.go,
// and the program cmd/synctestpeers (for what needs a synctest bubble,
// which a benchmark cannot open) print `go test -bench` lines;
// cmd/benchreport turns them into the markdown report that scripts/bench.sh
// prints. docs/benchmarks.md describes each figure.
package bench

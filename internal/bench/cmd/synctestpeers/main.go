// Command synctestpeers measures the time.AfterFunc peer where it must
// fire: in a testing/synctest bubble, whose fake clock jumps to the next
// deadline, so nothing waits on the wall clock. synctest.Test needs a
// *testing.T, which a benchmark does not have, so this program runs the
// measurements as tests through testing.Main and prints each figure as a
// `go test -bench` line, under the name the other implementations use:
//
//	BenchmarkScheduleFire/afterfunc/pending=N   one timer due in 1ns, fired, with N pending
//	BenchmarkDrain1M/afterfunc                  1M timers drained by one sleep (ns/fire)
//	BenchmarkIntervals/afterfunc-synctest       the intervals scene, N=10000, H=1 (ns/fire)
//
// Time is read from the wall clock through bench.RealClock (time.Now is
// fake inside a bubble); allocations come from runtime.MemStats.
//
// Usage:
//
//	go run ./internal/bench/cmd/synctestpeers [-bench REGEXP] [-benchtime 1s] [-count 1]
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/metronome-rt/metronome/internal/bench"
)

var (
	benchRE   = flag.String("bench", ".", "run only the benchmarks whose names match this regexp")
	benchtime = flag.Duration("benchtime", time.Second, "target time of each ScheduleFire measurement")
	count     = flag.Int("count", 1, "run each benchmark this many times")
)

func main() {
	flag.Parse()
	re, err := regexp.Compile(*benchRE)
	if err != nil {
		fmt.Fprintln(os.Stderr, "synctestpeers: -bench:", err)
		os.Exit(2)
	}
	if *count < 1 || *benchtime <= 0 {
		fmt.Fprintln(os.Stderr, "synctestpeers: -count and -benchtime must be > 0")
		os.Exit(2)
	}
	fmt.Printf("goos: %s\ngoarch: %s\npkg: github.com/metronome-rt/metronome/internal/bench/cmd/synctestpeers\n", runtime.GOOS, runtime.GOARCH)
	tests := []testing.InternalTest{{Name: "SynctestPeers", F: func(t *testing.T) { runAll(t, re) }}}
	// testing.Main parses no flags here (flag.Parse already ran) and exits.
	testing.Main(func(string, string) (bool, error) { return true, nil }, tests, nil, nil)
}

const drainSize = 1_000_000

var sizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"100k", 100_000}, {"1M", 1_000_000}}

func runAll(t *testing.T, re *regexp.Regexp) {
	clock := bench.StartRealClock()
	defer clock.Stop()

	for _, size := range sizes {
		name := "BenchmarkScheduleFire/afterfunc/pending=" + size.name
		if !re.MatchString(name) {
			continue
		}
		for range *count {
			var rounds []bench.Measured
			synctest.Test(t, func(*testing.T) {
				rounds = bench.AfterFuncScheduleFire(clock, size.n, planRounds)
			})
			report(name, rounds[len(rounds)-1], 1, "")
		}
	}

	if name := "BenchmarkDrain1M/afterfunc"; re.MatchString(name) {
		for range *count {
			var m bench.Measured
			var fires int64
			synctest.Test(t, func(*testing.T) { m, fires = bench.AfterFuncDrain(clock, drainSize) })
			if fires != drainSize {
				t.Fatalf("%s: %d fires, want %d", name, fires, drainSize)
			}
			report(name, m, drainSize, "ns/fire")
		}
	}

	if name := "BenchmarkIntervals/afterfunc-synctest"; re.MatchString(name) {
		for range *count {
			var m bench.Measured
			var fires int64
			synctest.Test(t, func(*testing.T) {
				m = measureIntervals(clock, func() { fires = bench.RunIntervalsAfterFunc(10_000, 1) })
			})
			if fires != bench.IntervalsFires10000x1 {
				t.Fatalf("%s: %d fires, want %d", name, fires, bench.IntervalsFires10000x1)
			}
			report(name, m, bench.IntervalsFires10000x1, "ns/fire")
		}
	}
}

// planRounds sizes timing rounds as testing.B does: 100 operations, then
// enough to pass -benchtime by the last round's rate, at most 100 times
// more per step; the last round is the one reported.
func planRounds(done []bench.Measured) int {
	if len(done) == 0 {
		return 100
	}
	last := done[len(done)-1]
	if last.Elapsed >= *benchtime || len(done) >= 6 {
		return 0
	}
	per := max(last.Elapsed.Nanoseconds()/int64(last.Ops), 1)
	return int(min(int64(*benchtime)*12/10/per, 100*int64(last.Ops), 50_000_000))
}

// measureIntervals times the whole scene, as BenchmarkIntervals does for the
// other peers.
func measureIntervals(clock *bench.RealClock, scene func()) bench.Measured {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := clock.Now()
	scene()
	t1 := clock.Now()
	runtime.ReadMemStats(&m1)
	return bench.Measured{Ops: 1, Elapsed: t1.Sub(t0), Allocs: m1.Mallocs - m0.Mallocs, Bytes: m1.TotalAlloc - m0.TotalAlloc}
}

// report prints m as a benchmark line: m.Ops iterations; with perUnit, an
// extra metric of ns per each of the perUnit units one iteration holds
// (fires per drain or scene).
func report(name string, m bench.Measured, perOp int, perUnit string) {
	if p := runtime.GOMAXPROCS(0); p > 1 {
		name = fmt.Sprintf("%s-%d", name, p)
	}
	ops := float64(m.Ops)
	line := fmt.Sprintf("%s\t%8d\t%12.1f ns/op", name, m.Ops, float64(m.Elapsed.Nanoseconds())/ops)
	if perUnit != "" {
		line += fmt.Sprintf("\t%10.1f %s", float64(m.Elapsed.Nanoseconds())/ops/float64(perOp), perUnit)
	}
	line += fmt.Sprintf("\t%8.0f B/op\t%8.0f allocs/op", float64(m.Bytes)/ops, float64(m.Allocs)/ops)
	fmt.Println(line)
}

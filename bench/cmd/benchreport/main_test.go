package main

import (
	"os"
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/metronome-rt/metronome/runtime
cpu: Test CPU
BenchmarkScheduleCancel/metronome/pending=1k-2         	 3444895	        20.00 ns/op	       0 B/op	       0 allocs/op
BenchmarkScheduleCancel/metronome/pending=1k-2         	 3444895	        24.00 ns/op	       0 B/op	       0 allocs/op
BenchmarkScheduleCancel/metronome/pending=1k-2         	 3444895	        90.00 ns/op	       0 B/op	       0 allocs/op
BenchmarkScheduleCancel/container-heap/pending=1k-2    	 2630703	       96.00 ns/op	      48 B/op	       1 allocs/op
--- SKIP: BenchmarkScheduleCancel/afterfunc/pending=1k
    bench_test.go:1: skipped
BenchmarkScheduleCancel/metronome/pending=1M-2         	 3406610	       131.6 ns/op	       0 B/op	       0 allocs/op
BenchmarkRandomCancel/metronome/pending=100k-2         	  434401	      1000 ns/op	       0 B/op	       0 allocs/op
BenchmarkRandomCancel/container-heap/pending=100k-2    	  477292	      1500 ns/op	      48 B/op	       1 allocs/op
BenchmarkW1/metronome-go-2	       1	300000000 ns/op	       117.1 ns/fire	 1000 B/op	 10 allocs/op
BenchmarkW1/go-container-heap-2	       1	300000000 ns/op	       151.0 ns/fire	 1000 B/op	 10 allocs/op
BenchmarkSomethingElse-2	       10	  12.5 ns/op	       3.0 widgets/op
PASS
`

// report renders in as the report of 2000-01-01; min selects -stat min.
func report(t *testing.T, in string, min bool) (string, *run) {
	t.Helper()
	r := newRun()
	r.min = min
	if err := r.parse(strings.NewReader(in), "input"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	render(&b, r, "2000-01-01", tables)
	return b.String(), r
}

func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q:\n%s", w, out)
		}
	}
}

func TestReport(t *testing.T) {
	out, _ := report(t, sample, false)
	wantLines(t, out,
		"2000-01-01 · ",
		"cpu: Test CPU",
		"medians of 3 runs",
		// Three runs bound no 95% interval: the header says why.
		"Each figure compared is a median ± its 95% confidence interval, as benchstat computes them (need >= 6 samples for confidence interval at level 0.95).",
		// median 24 of 20, 24, 90; ratio 96/24; one run has no interval
		"| pending=1k | 24.0 ±∞ | 0 | 96.0 | 1 | 4.00× | skipped | — | — | met |",
		"| pending=1M | 132 | 0 | — | — | — | — | — | — | **missed** |",
		// 1500/1000 < 2
		"| pending=100k | 1,000 | 0 | 1,500 | 1 | 1.50× | — | — | — | **missed** |",
		// ns/fire is read as written, not tidied into sec/fire
		"| — | 117 | 10 | 151 | 10 | 1.29× |",
		"| BenchmarkSomethingElse | 12.5 | — | — | 3.00 widgets/op |",
	)
	if strings.Contains(out, "timerq") {
		t.Errorf("a table with no figures was printed:\n%s", out)
	}
}

// testdata/count6.txt is a real run of two of the scheduler benchmarks,
// 6 times each (the fewest that bound a 95% interval): `go test -run '^$'
// -bench '^Benchmark(ScheduleCancel|RandomCancel)$' -benchtime 50ms
// -count 6 ./runtime/sched` on a busy 2-core machine.
func TestReportOfCapturedRun(t *testing.T) {
	in, err := os.ReadFile("testdata/count6.txt")
	if err != nil {
		t.Fatal(err)
	}
	out, r := report(t, string(in), false)
	if len(r.warnings) != 0 {
		t.Errorf("warnings: %q", r.warnings)
	}
	wantLines(t, out,
		"medians of 6 runs",
		"Each figure compared is a median ± its 95% confidence interval, as benchstat computes them.\n",
		"| case | metronome ns/op | allocs/op | container-heap ns/op | allocs/op | container-heap / ours | afterfunc ns/op | allocs/op | afterfunc / ours | target |",
		// metronome: 12.85 25.42 28.15 28.22 30.42 32.09, median 28.185; six runs bound
		// the median by the extremes at 96.9%: 1 - 12.85/28.185 = 54%.
		// container-heap: 237.5 252.8 264.3 280.3 292.7 319.7, median 272.3,
		// 319.7/272.3 - 1 = 17%; ratio 272.3/28.185 = 9.66.
		"| pending=1k | 28.2 ±54% | 0 | 272 ±17% | 1 | 9.66× | 483 ±33% | 1 | 17.15× | met |",
		"| pending=100k | 938 ±95% | 0 | 1,092 ±239% | 1 | 1.16× | 1,237 ±18% | 1 | 1.32× | **missed** |",
	)
	if strings.Contains(out, "±∞") || strings.Contains(out, "Other results") {
		t.Errorf("an unbounded interval or an unclaimed benchmark:\n%s", out)
	}
}

func TestStatMin(t *testing.T) {
	out, _ := report(t, sample, true)
	wantLines(t, out,
		"minimum of 3 runs",
		// minimum 20 of 20, 24, 90, with no interval; ratio 96/20
		"| pending=1k | 20.0 | 0 | 96.0 | 1 | 4.80× | skipped | — | — | met |",
	)
	if strings.Contains(out, "±") || strings.Contains(out, "confidence") {
		t.Errorf("-stat min shows an interval:\n%s", out)
	}
}

// A unit declared exact summarises to its mode, its interval to the
// range, as in benchstat.
func TestUnitMetadata(t *testing.T) {
	in := "Unit B/pending assume=exact\n" + strings.Repeat(
		"BenchmarkMemoryPerPendingOnce/metronome/pending=1M-2 1 0 ns/op 40.00 B/pending 69 allocs/op\n", 3) +
		"BenchmarkMemoryPerPendingOnce/metronome/pending=1M-2 1 0 ns/op 44.00 B/pending 69 allocs/op\n"
	out, _ := report(t, in, false)
	wantLines(t, out,
		"| pending=1M | 40.0 ±10% | 69 |",
		"(exact distribution expected, but values range from 40 to 44)",
	)
}

func TestUnreadableLinesAreLeftOut(t *testing.T) {
	in := "BenchmarkHeap/fire/1k-2 100 12.5 ns/op\nBenchmarkHeap/fire/1M-2 many 13 ns/op\nBenchmarkHeap/fire/1M-2 100 13 ns/op x\n"
	out, r := report(t, in, false)
	if len(r.warnings) != 2 || !strings.Contains(r.warnings[0], "input:2: parsing iteration count") ||
		!strings.Contains(r.warnings[1], "input:3: parsing measurement") {
		t.Errorf("warnings: %q", r.warnings)
	}
	wantLines(t, out, "| fire/1k | 12.5 | — | — | — | — |")
	if strings.Contains(out, "fire/1M") {
		t.Errorf("an unreadable line made a row:\n%s", out)
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1.254: "1.25", 23.44: "23.4", 151.4: "151", 7950: "7,950", 2560973: "2,560,973", -1234: "-1,234"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}

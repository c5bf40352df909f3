package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/bench-scaling.golden.svg")

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
BenchmarkIntervals/metronome-go-2	       1	300000000 ns/op	       117.1 ns/fire	 1000 B/op	 10 allocs/op
BenchmarkIntervals/go-container-heap-2	       1	300000000 ns/op	       151.0 ns/fire	 1000 B/op	 10 allocs/op
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

// chartOf draws the scaling chart of in under a fixed note.
func chartOf(t *testing.T, in string) (string, error) {
	t.Helper()
	r := newRun()
	if err := r.parse(strings.NewReader(in), "input"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	err := writeSVG(&b, r, scaling, "2000-01-01 · test")
	return b.String(), err
}

// wellFormed fails t unless svg parses as XML.
func wellFormed(t *testing.T, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
	}
}

// testdata/insertcancel.txt holds every implementation at 1k and 1M, two
// at 10k, both shapes, g1 and g2, and a series with a single figure
// (afterfunc, cancel-readd, 1M). Run with -update after a deliberate
// change and look at the picture (rsvg-convert -o x.png FILE).
func TestScalingChartGolden(t *testing.T) {
	in, err := os.ReadFile("testdata/insertcancel.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := chartOf(t, string(in))
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, got)
	golden := filepath.Join("testdata", "bench-scaling.golden.svg")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the chart differs from %s (go test -update rewrites it):\n%s", golden, got)
	}
}

func TestScalingChartLeavesOutWhatIsMissing(t *testing.T) {
	in := `BenchmarkInsertCancel/heap/schedule-cancel/1k/g1-2 100 20 ns/op
BenchmarkInsertCancel/heap/schedule-cancel/1M/g1-2 100 24 ns/op
BenchmarkInsertCancel/quantum/schedule-cancel/1k/g1-2 100 1 ns/op
BenchmarkInsertCancel/heap/sideways/1k/g1-2 100 99 ns/op
BenchmarkInsertCancel/heap/schedule-cancel/g1-2 100 99 ns/op
BenchmarkInsertCancel/wheel/schedule-cancel/1k/g1-2 100 12 ns/op
BenchmarkScheduleCancel/metronome/pending=1k-2 100 13 ns/op
`
	got, err := chartOf(t, in)
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, got)
	wantLines(t, got,
		"schedule-cancel: insert a timer, then cancel it",
		">4-ary heap<", ">wheel<",
		"BenchmarkInsertCancel/heap/schedule-cancel/1M/g1: 24.0 ns/op",
		// one figure: a mark and no line
		`<title>BenchmarkInsertCancel/wheel/schedule-cancel/1k/g1: 12.0 ns/op</title>`,
		// the axis spans the decades of the sizes drawn
		">1k<", ">10k<", ">100k<", ">1M<",
	)
	for _, absent := range []string{"cancel-readd", "sharded", "AfterFunc", "goroutine", "quantum", "sideways", "99.0", "ScheduleCancel"} {
		if strings.Contains(got, absent) {
			t.Errorf("the chart shows %q:\n%s", absent, got)
		}
	}
	if n := strings.Count(got, "<polyline"); n != 1 {
		t.Errorf("%d lines drawn, want 1 (the heap's):\n%s", n, got)
	}
}

func TestScalingChartWithNothingToDraw(t *testing.T) {
	in := "BenchmarkScheduleCancel/metronome/pending=1k-2 100 13 ns/op\nBenchmarkInsertCancel/heap/schedule-cancel/1k/g1-2 100 0 ns/op\n"
	got, err := chartOf(t, in)
	if !errors.Is(err, errNothingToDraw) || got != "" {
		t.Fatalf("writeSVG = %q, %v; want nothing written and errNothingToDraw", got, err)
	}

	// -svg keeps the file of an earlier run rather than blanking it.
	file := filepath.Join(t.TempDir(), "chart.svg")
	if err := os.WriteFile(file, []byte("earlier"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRun()
	if err := r.parse(strings.NewReader(in), "input"); err != nil {
		t.Fatal(err)
	}
	var note strings.Builder
	writeChart(file, r, "note", &note)
	if b, _ := os.ReadFile(file); string(b) != "earlier" {
		t.Errorf("the file now holds %q", b)
	}
	if want := "benchreport: -svg " + file + ": BenchmarkInsertCancel: no figures to draw; the file is left as it was\n"; note.String() != want {
		t.Errorf("note %q, want %q", note.String(), want)
	}
	r.parse(strings.NewReader("BenchmarkInsertCancel/heap/schedule-cancel/1k/g1-2 100 20 ns/op\n"), "more")
	writeChart(file, r, "note", io.Discard)
	if b, _ := os.ReadFile(file); !bytes.HasPrefix(b, []byte("<svg")) {
		t.Errorf("the file now holds %q", b)
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]float64{"1k": 1e3, "10k": 1e4, "100k": 1e5, "1M": 1e6, "pending=1k": 1e3, "250": 250} {
		if got, ok := parseSize(s); !ok || got != want {
			t.Errorf("parseSize(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "g1", "k", "1G", "0", "schedule-cancel", "1.5k"} {
		if got, ok := parseSize(s); ok {
			t.Errorf("parseSize(%q) = %v, want no size", s, got)
		}
	}
	for n, want := range map[float64]string{1e3: "1k", 1e4: "10k", 1e6: "1M", 1e7: "10M", 100: "100"} {
		if got := sizeLabel(n); got != want {
			t.Errorf("sizeLabel(%v) = %q, want %q", n, got, want)
		}
	}
}

func TestLogTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi, wantLo, wantHi float64
		ticks                  string
	}{
		{12, 700, 10, 1000, "[10 20 50 100 200 500 1000]"},
		{20, 50, 20, 50, "[20 50]"},
		{30, 30, 20, 50, "[20 50]"},
		{3, 40000, 2, 50000, "[10 100 1000 10000]"},
		{0.3, 4, 0.2, 5, "[0.2 0.5 1 2 5]"},
	} {
		lo, hi, ticks := steps125(c.lo, c.hi)
		if lo != c.wantLo || hi != c.wantHi || fmt.Sprint(ticks) != c.ticks {
			t.Errorf("steps125(%v, %v) = %v, %v, %v; want %v, %v, %v", c.lo, c.hi, lo, hi, ticks, c.wantLo, c.wantHi, c.ticks)
		}
	}
}

// Six runs bound a median: the chart draws its interval as a whisker.
// Fewer, or -stat min, draw the mark alone.
func TestScalingChartIntervals(t *testing.T) {
	var in strings.Builder
	for _, v := range []string{"20", "21", "22", "23", "24", "40"} {
		in.WriteString("BenchmarkInsertCancel/heap/schedule-cancel/1k/g1-2 100 " + v + " ns/op\n")
	}
	in.WriteString("BenchmarkInsertCancel/heap/schedule-cancel/1M/g1-2 100 30 ns/op\n")
	got, err := chartOf(t, in.String())
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, `stroke-width="1.5"`); n != 2 {
		t.Errorf("%d whiskers, want 2 (the 1k median's and the legend's):\n%s", n, got)
	}
	wantLines(t, got, "BenchmarkInsertCancel/heap/schedule-cancel/1k/g1: 22.5 ns/op", ">bar: 95% interval of the median<")
}

// BenchmarkVirtualDay exists in timerq and in sched: each package's lines
// land in its own table, not summarised together.
func TestVirtualDayByPackage(t *testing.T) {
	in := `pkg: github.com/metronome-rt/metronome/runtime/internal/timerq
BenchmarkVirtualDay/heap-2	1	9000000000 ns/op	58105332 fires	150.0 ns/fire
BenchmarkVirtualDay/wheel-2	1	6000000000 ns/op	58105332 fires	100.0 ns/fire
pkg: github.com/metronome-rt/metronome/runtime/sched
BenchmarkVirtualDay/heap-2	1	12000000000 ns/op	58105332 fires	200.0 ns/fire
BenchmarkVirtualDay/wheel-2	1	10000000000 ns/op	58105332 fires	180.0 ns/fire
`
	out, _ := report(t, in, false)
	wantLines(t, out,
		"## Virtual day: the typed scheduler on the wheel vs on the heap",
		"| — | 180 | — | 200 | — | 1.11× |",
		"## Virtual day: timerq wheel vs heap",
		"| — | 100 | — | 150 | — | 1.50× |",
	)
	if strings.Contains(out, "Other results") {
		t.Errorf("a virtual-day line was left unclaimed:\n%s", out)
	}
	for _, c := range [][3]string{
		{"BenchmarkVirtualDay/wheel", "example.com/x/runtime/sched", "BenchmarkVirtualDay[sched]/wheel"},
		{"BenchmarkVirtualDay", "example.com/timerq", "BenchmarkVirtualDay[timerq]"},
		{"BenchmarkVirtualDay/heap", "", "BenchmarkVirtualDay/heap"},
		{"BenchmarkIntervals/metronome-go", "example.com/bench", "BenchmarkIntervals/metronome-go"},
	} {
		if got := qualified(c[0], c[1]); got != c[2] {
			t.Errorf("qualified(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

package main

import (
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

func TestReport(t *testing.T) {
	r := newRun()
	if err := r.parse(strings.NewReader(sample)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	render(&b, r, "2000-01-01", tables)
	out := b.String()
	for _, want := range []string{
		"2000-01-01 · ",
		"cpu: Test CPU",
		"medians of 3 runs",
		// median 24 of 20, 24, 90; ratio 96/24
		"| pending=1k | 24.0 | 0 | 96.0 | 1 | 4.00× | skipped | — | — | met |",
		"| pending=1M | 132 | 0 | — | — | — | — | — | — | **missed** |",
		// 1500/1000 < 2
		"| pending=100k | 1,000 | 0 | 1,500 | 1 | 1.50× | — | — | — | **missed** |",
		"| — | 117 | 10 | 151 | 10 | 1.29× |",
		"| BenchmarkSomethingElse | 12.5 | — | — | 3.00 widgets/op |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "timerq") {
		t.Errorf("a table with no figures was printed:\n%s", out)
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1.254: "1.25", 23.44: "23.4", 151.4: "151", 7950: "7,950", 2560973: "2,560,973", -1234: "-1,234"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}

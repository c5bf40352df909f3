// Command benchreport turns `go test -bench` output into the markdown
// report `make bench` prints: for each scenario a table with Metronome,
// each peer, and the ratio peer / ours from the same run, with the
// targets each figure is held to.
//
// Usage:
//
//	benchreport [-date YYYY-MM-DD] [-stat median|min] [-confidence 0.95] [-svg FILE.svg] [FILE...]   (standard input without FILE)
//
// The input is read with golang.org/x/perf/benchfmt, so it may hold any
// unit (ns/fire, B/pending) and "Unit" metadata lines, as benchstat reads
// them. Benchmarks pair by name: BenchmarkScheduleCancel/metronome/pending=1k
// and BenchmarkScheduleCancel/container-heap/pending=1k are one row. Lines
// of a benchmark run several times (-count) are summarised as benchstat
// does (golang.org/x/perf/benchmath): the median, with its confidence
// interval as ± a percentage of it; a unit declared "assume=exact" takes
// its mode instead. With -stat min they reduce to their minimum, with no
// interval (on a machine shared with other work, the minimum is the run
// least disturbed). Ratios are of these figures, peer / ours.
// Benchmarks no table claims are listed at the end. The program reads
// only its input: it needs no network.
//
// With -svg FILE it also draws, from the same figures, how the cost of
// one operation grows with the number of pending timers: ns/op of
// BenchmarkInsertCancel/<impl>/<shape>/<N>/g<G> against N on log scales,
// a panel per shape, a line per implementation (solid for one goroutine,
// dashed for two), a bar through a mark for a median's interval, under
// the report's date and machine line. Sizes, implementations and
// goroutine counts without a figure are left out; a run with none of
// these benchmarks leaves FILE as it was.
//
// This directory is a module of its own, so that x/perf stays out of
// Metronome's dependencies; run it with `go run .` from here.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

func main() {
	date := flag.String("date", "", "the run's date for the header (default: today, UTC)")
	stat := flag.String("stat", "median", "how to summarise several runs of a benchmark: median (with its confidence interval) or min")
	confidence := flag.Float64("confidence", 0.95, "the confidence level of the intervals around medians, in (0, 1)")
	svgOut := flag.String("svg", "", "also draw ns/op against pending timers (BenchmarkInsertCancel) as an SVG chart into this file")
	flag.Parse()
	run := newRun()
	switch *stat {
	case "median":
	case "min":
		run.min = true
	default:
		fail(fmt.Errorf("-stat %q: want median or min", *stat))
	}
	if !(*confidence > 0 && *confidence < 1) {
		fail(fmt.Errorf("-confidence %v: want a level in (0, 1), such as 0.95", *confidence))
	}
	run.confidence = *confidence
	if flag.NArg() == 0 {
		if err := run.parse(os.Stdin, "<stdin>"); err != nil {
			fail(err)
		}
	}
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fail(err)
		}
		err = run.parse(f, name)
		f.Close()
		if err != nil {
			fail(err)
		}
	}
	for _, w := range run.warnings {
		fmt.Fprintln(os.Stderr, "benchreport: line left out:", w)
	}
	if len(run.order) == 0 {
		fail(fmt.Errorf("no benchmark lines in the input"))
	}
	if *date == "" {
		*date = time.Now().UTC().Format("2006-01-02")
	}
	w := bufio.NewWriter(os.Stdout)
	render(w, run, *date, tables)
	if err := w.Flush(); err != nil {
		fail(err)
	}
	if *svgOut != "" {
		writeChart(*svgOut, run, header(run, *date), os.Stderr)
	}
}

// writeChart draws the scaling chart into file. A run without its
// benchmarks leaves file as it was, with a note to stderr.
func writeChart(file string, r *run, note string, stderr io.Writer) {
	var b bytes.Buffer
	err := writeSVG(&b, r, scaling, note)
	if errors.Is(err, errNothingToDraw) {
		fmt.Fprintf(stderr, "benchreport: -svg %s: %v; the file is left as it was\n", file, err)
		return
	}
	if err == nil {
		err = os.WriteFile(file, b.Bytes(), 0o644)
	}
	if err != nil {
		fail(fmt.Errorf("-svg %s: %w", file, err))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchreport:", err)
	os.Exit(1)
}

// ---- parsing ----

// run is everything read from the input.
type run struct {
	reader     benchfmt.Reader                 // one for all inputs: unit metadata carries across files
	meta       map[string]string               // goos, goarch, cpu, ...
	samples    map[string]map[string][]float64 // name -> unit -> one value per line
	units      map[string][]string             // name -> its units in input order
	skipped    map[string]bool
	order      []string // names in order of first appearance
	procs      int      // the -P suffix of the names, when any
	warnings   []string // lines benchfmt could not read
	min        bool     // reduce several runs to the minimum, not the median
	confidence float64  // of the intervals around medians
}

func newRun() *run {
	return &run{
		meta:       map[string]string{},
		samples:    map[string]map[string][]float64{},
		units:      map[string][]string{},
		skipped:    map[string]bool{},
		confidence: 0.95,
	}
}

// parse reads one input; file names it in messages. A line benchfmt
// cannot read is kept in r.warnings and left out, as benchstat does.
func (r *run) parse(in io.Reader, file string) error {
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	// benchfmt ignores the skip notes of `go test -v`; a skipped peer
	// reads "skipped" in its table rather than "—".
	for line := range bytes.Lines(data) {
		if name, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "--- SKIP: "); ok {
			if f := strings.Fields(name); len(f) > 0 {
				name, _ := fullName(benchfmt.Name(strings.TrimPrefix(f[0], "Benchmark")))
				r.skipped[name] = true
			}
		}
	}
	r.reader.Reset(bytes.NewReader(data), file)
	for r.reader.Scan() {
		switch rec := r.reader.Result().(type) {
		case *benchfmt.Result:
			r.add(rec)
		case *benchfmt.SyntaxError:
			r.warnings = append(r.warnings, rec.Error())
		}
	}
	return r.reader.Err()
}

// inTwoPackages lists the benchmarks that exist under one name in more
// than one package: add keys their lines by package too, so that tables
// tell them apart (see qualified).
var inTwoPackages = map[string]bool{"BenchmarkVirtualDay": true}

// qualified is name with its package's last element after the benchmark's
// base, for a benchmark of inTwoPackages from a known package:
// BenchmarkVirtualDay/wheel of .../runtime/sched is
// BenchmarkVirtualDay[sched]/wheel. Other names are returned as they are.
func qualified(name, pkg string) string {
	base, rest, _ := strings.Cut(name, "/")
	if !inTwoPackages[base] || pkg == "" {
		return name
	}
	q := base + "[" + pkg[strings.LastIndex(pkg, "/")+1:] + "]"
	if rest != "" {
		q += "/" + rest
	}
	return q
}

// add records one benchmark line, under its full name less the -P suffix
// (qualified by its package where that name is in two).
func (r *run) add(res *benchfmt.Result) {
	for _, k := range []string{"goos", "goarch", "cpu"} {
		if v := res.GetConfig(k); v != "" {
			r.meta[k] = v
		}
	}
	name, procs := fullName(res.Name)
	name = qualified(name, res.GetConfig("pkg"))
	if procs > 0 {
		r.procs = procs
	}
	if _, seen := r.samples[name]; !seen {
		r.order = append(r.order, name)
		r.samples[name] = map[string][]float64{}
	}
	for _, v := range res.Values {
		// benchfmt tidies ns/op into sec/op; the report keeps the input's units.
		unit, val := v.Unit, v.Value
		if v.OrigUnit != "" {
			unit, val = v.OrigUnit, v.OrigValue
		}
		if _, seen := r.samples[name][unit]; !seen {
			r.units[name] = append(r.units[name], unit)
		}
		r.samples[name][unit] = append(r.samples[name][unit], val)
	}
}

// fullName is a benchmark's name as `go test` prints it, less the -P
// suffix, and P (0 without one). benchfmt drops the "Benchmark" prefix.
func fullName(n benchfmt.Name) (name string, procs int) {
	base, parts := n.Parts()
	name = "Benchmark" + string(base)
	for _, p := range parts {
		if s, ok := strings.CutPrefix(string(p), "-"); ok {
			procs, _ = strconv.Atoi(s)
			continue
		}
		name += string(p)
	}
	return name, procs
}

// summary is the figure of unit over the lines of name: the median with
// its confidence interval (benchmath.AssumeNothing, or the mode if the
// unit is declared exact), or with -stat min the minimum, Lo = Hi = it.
// n is the number of lines.
func (r *run) summary(name, unit string) (s benchmath.Summary, n int, ok bool) {
	vs := slices.Clone(r.samples[name][unit])
	if len(vs) == 0 {
		return s, 0, false
	}
	if r.min {
		m := slices.Min(vs)
		return benchmath.Summary{Center: m, Lo: m, Hi: m, Confidence: 1}, len(vs), true
	}
	sample := benchmath.NewSample(vs, &benchmath.DefaultThresholds)
	return r.reader.Units().GetAssumption(unit).Summary(sample, r.confidence), len(vs), true
}

// value is the central figure of unit over the lines of name.
func (r *run) value(name, unit string) (float64, bool) {
	s, _, ok := r.summary(name, unit)
	return s.Center, ok
}

func (r *run) maxCount() int {
	n := 0
	for _, units := range r.samples {
		for _, vs := range units {
			n = max(n, len(vs))
		}
	}
	return n
}

// ---- tables ----

// impl is one column group: a label and the name prefix of its benchmarks.
type impl struct {
	label, prefix string
}

// table is one scenario: ours and the peers, paired by the rest of the
// name after each prefix (the case, e.g. "pending=1k").
type table struct {
	title  string
	about  string
	metric string // the unit compared: ns/op, ns/fire, B/pending
	ours   impl
	peers  []impl
	target string                    // the target, in words; "" for none
	check  func(c cell) (bool, bool) // (applies, met) for one row
	note   string
}

// cell is one row's figures, for the target checks.
type cell struct {
	name   string // the case
	ours   float64
	allocs float64
	hasOK  bool
	ratios map[string]float64 // peer label -> peer/ours
}

func at(limit float64) func(c cell) (bool, bool) {
	return func(c cell) (bool, bool) { return c.hasOK, c.ours <= limit }
}

var tables = []table{
	{
		title:  "Schedule + cancel",
		about:  "Schedule one Go callback and cancel it, with N others pending.",
		metric: "ns/op",
		ours:   impl{"metronome", "BenchmarkScheduleCancel/metronome"},
		peers: []impl{
			{"container-heap", "BenchmarkScheduleCancel/container-heap"},
			{"afterfunc", "BenchmarkScheduleCancel/afterfunc"},
		},
		target: "≤ 30 ns and 0 allocs/op",
		check:  func(c cell) (bool, bool) { return c.hasOK, c.ours <= 30 && c.allocs == 0 },
	},
	{
		title:  "Random cancel + replace",
		about:  "Cancel a random one of N pending one-shots and schedule a replacement.",
		metric: "ns/op",
		ours:   impl{"metronome", "BenchmarkRandomCancel/metronome"},
		peers: []impl{
			{"container-heap", "BenchmarkRandomCancel/container-heap"},
			{"afterfunc", "BenchmarkRandomCancel/afterfunc"},
		},
		target: "≤ 40 ns at 1k; container-heap / ours ≥ 2 at 100k and 1M",
		check: func(c cell) (bool, bool) {
			if c.name == "pending=1k" {
				return c.hasOK, c.ours <= 40
			}
			r, ok := c.ratios["container-heap"]
			return ok, r >= 2
		},
	},
	{
		title:  "Schedule + fire",
		about:  "Schedule one Go callback due at the next ns and fire it through Advance(1ns), with N pending later.",
		metric: "ns/op",
		ours:   impl{"metronome", "BenchmarkScheduleFire/metronome"},
		peers: []impl{
			{"container-heap", "BenchmarkScheduleFire/container-heap"},
			{"afterfunc", "BenchmarkScheduleFire/afterfunc"},
		},
		target: "≤ 100 ns per fire",
		check:  at(100),
		note:   "afterfunc: fired in a testing/synctest bubble (internal/bench/cmd/synctestpeers): the cost includes the goroutine each callback runs on.",
	},
	{
		title:  "Drain 1M",
		about:  "1M due one-shots (random deadlines) drained by one Advance; ns per fire.",
		metric: "ns/fire",
		ours:   impl{"metronome", "BenchmarkDrain1M/metronome"},
		peers: []impl{
			{"container-heap", "BenchmarkDrain1M/container-heap"},
			{"afterfunc", "BenchmarkDrain1M/afterfunc"},
		},
		target: "≤ 100 ns per fire",
		check:  at(100),
		note:   "afterfunc: one sleep in a testing/synctest bubble (internal/bench/cmd/synctestpeers).",
	},
	{
		title:  "Memory per pending one-shot",
		about:  "Live heap per pending one-shot after GC, callback (one shared func value) and handle excluded.",
		metric: "B/pending",
		ours:   impl{"metronome", "BenchmarkMemoryPerPendingOnce/metronome"},
		peers: []impl{
			{"container-heap", "BenchmarkMemoryPerPendingOnce/container-heap"},
			{"afterfunc", "BenchmarkMemoryPerPendingOnce/afterfunc"},
		},
		target: "≤ 48 B per pending one-shot",
		check:  at(48),
	},
	{
		title:  "Intervals scene, Lua callbacks",
		about:  "The intervals scene (N=10000, H=1: 2,560,973 fires), whole scene per fire.",
		metric: "ns/fire",
		ours:   impl{"metronome-lua", "BenchmarkIntervals/metronome-lua"},
		peers: []impl{
			{"pure-lua-heap", "BenchmarkIntervals/pure-lua-heap"},
			{"fake-timers-node", "BenchmarkIntervals/fake-timers-node"},
		},
		note: "fake-timers-node: @sinonjs/fake-timers on Node with JS callbacks (internal/bench/node; left out when node is not installed).",
	},
	{
		title:  "Intervals scene on the event loop",
		about:  "The intervals scene written with the event-loop module's set_timeout and set_interval (internal/bench/w1_eventloop.lua), whole scene per fire.",
		metric: "ns/fire",
		ours:   impl{"metronome-event-loop", "BenchmarkIntervals/metronome-event-loop"},
		peers: []impl{
			{"fake-timers-node", "BenchmarkIntervals/fake-timers-node"},
			{"metronome-lua", "BenchmarkIntervals/metronome-lua"},
		},
		note: "Targets: fake-timers-node / ours ≥ 2.5; metronome-lua (runtime-scheduler) / ours ≥ 0.67 (the loop at most 1.5x its fire).",
	},
	{
		title:  "Intervals scene on keyed timers",
		about:  "The intervals scene with register_timer in place of schedule_every (internal/bench/w1_keyed.lua; -tick: callbacks that take their tick, internal/bench/w1_keyed_tick.lua), whole scene per fire.",
		metric: "ns/fire",
		ours:   impl{"metronome-lua-keyed", "BenchmarkIntervals/metronome-lua-keyed"},
		peers: []impl{
			{"metronome-lua", "BenchmarkIntervals/metronome-lua"},
			{"metronome-lua-keyed-tick", "BenchmarkIntervals/metronome-lua-keyed-tick"},
		},
		note: "Target: metronome-lua (schedule_every) / ours ≥ 0.67 (a keyed fire at most 1.5x an interval's).",
	},
	{
		title:  "Intervals scene, no-op Lua callbacks",
		about:  "The intervals scene with empty interval callbacks (internal/bench/w1_noop.lua): the scheduler plus one Go-to-Lua call per fire.",
		metric: "ns/fire",
		ours:   impl{"metronome-lua-noop", "BenchmarkIntervals/metronome-lua-noop"},
		peers: []impl{
			{"pure-lua-heap", "BenchmarkIntervals/pure-lua-heap"},
			{"fake-timers-node", "BenchmarkIntervals/fake-timers-node"},
		},
		target: "≤ 250 ns per no-op Lua callback",
		check:  at(250),
	},
	{
		title:  "Intervals scene, Go callbacks",
		about:  "The intervals scene (N=10000, H=1: 2,560,973 fires), whole scene per fire.",
		metric: "ns/fire",
		ours:   impl{"metronome-go", "BenchmarkIntervals/metronome-go"},
		peers: []impl{
			{"go-container-heap", "BenchmarkIntervals/go-container-heap"},
			{"afterfunc-synctest", "BenchmarkIntervals/afterfunc-synctest"},
			{"metronome-go-keyed", "BenchmarkIntervals/metronome-go-keyed"},
			{"metronome-go-event-loop", "BenchmarkIntervals/metronome-go-event-loop"},
			{"metronome-lua", "BenchmarkIntervals/metronome-lua"},
		},
		note: "metronome-go-keyed: the same scene on keyed timers (RegisterTimer); metronome-go-event-loop: on the event loop (SetTimer). metronome-lua is listed here to show what a Lua callback costs over a Go one.",
	},
	{
		title:  "timerq: sharded wheel, insert+cancel",
		about:  "Insert and cancel with N pending, from one goroutine (g1) or two at once (g2; ns/op is wall time over both); the heap behind a mutex for g2 (runtime/internal/timerq/wheel_bench_test.go).",
		metric: "ns/op",
		ours:   impl{"sharded", "BenchmarkInsertCancel/sharded"},
		peers: []impl{
			{"heap", "BenchmarkInsertCancel/heap"},
			{"afterfunc", "BenchmarkInsertCancel/afterfunc"},
		},
	},
	{
		title:  "timerq: wheel vs heap, one owner",
		about:  "Insert and cancel with N pending, one goroutine, no lock.",
		metric: "ns/op",
		ours:   impl{"wheel", "BenchmarkInsertCancel/wheel"},
		peers:  []impl{{"heap", "BenchmarkInsertCancel/heap"}},
	},
	{
		title:  "Virtual day: the typed scheduler on the wheel vs on the heap",
		about:  "10,000 intervals of 1 to 60 s advanced a second at a time for 24 h (58,105,332 fires), the whole day per fire, on the scheduler's timer wheel and its heap; the two fire the same trace (runtime/sched/virtualday_test.go).",
		metric: "ns/fire",
		ours:   impl{"sched-wheel", "BenchmarkVirtualDay[sched]/wheel"},
		peers:  []impl{{"sched-heap", "BenchmarkVirtualDay[sched]/heap"}},
	},
	{
		title:  "Virtual day: timerq wheel vs heap",
		about:  "The same day at the queue's level, without the scheduler: the heap re-keys in place, the wheel pops and pushes (runtime/internal/timerq/wheel_bench_test.go).",
		metric: "ns/fire",
		ours:   impl{"wheel", "BenchmarkVirtualDay[timerq]/wheel"},
		peers:  []impl{{"heap", "BenchmarkVirtualDay[timerq]/heap"}},
	},
	{
		title:  "timerq: 4-ary heap vs container/heap",
		about:  "The deadline queue alone (runtime/internal/timerq/heap_bench_test.go).",
		metric: "ns/op",
		ours:   impl{"timerq.Heap", "BenchmarkHeap"},
		peers:  []impl{{"container/heap", "BenchmarkContainerHeap"}},
	},
}

// caseOf returns the rest of name after prefix ("" for the name itself),
// and whether name belongs to prefix.
func caseOf(name, prefix string) (string, bool) {
	if name == prefix {
		return "", true
	}
	rest, ok := strings.CutPrefix(name, prefix+"/")
	return rest, ok
}

// ---- rendering ----

// notes gathers, in order and once each, what the summaries warn of
// (an interval too few runs cannot bound, say), for the report's header.
type notes struct {
	list []string
	seen map[string]bool
}

func (n *notes) add(errs []error) {
	for _, err := range errs {
		if s := err.Error(); !n.seen[s] {
			if n.seen == nil {
				n.seen = map[string]bool{}
			}
			n.seen[s] = true
			n.list = append(n.list, s)
		}
	}
}

func render(w io.Writer, r *run, date string, tables []table) {
	// The tables go first into a buffer: the header says what their
	// intervals warned of.
	var body bytes.Buffer
	var warned notes
	used := map[string]bool{}
	for _, t := range tables {
		renderTable(&body, r, t, used, &warned)
	}
	var rest []string
	for _, name := range r.order {
		if !used[name] {
			rest = append(rest, name)
		}
	}
	if len(rest) > 0 {
		fmt.Fprintf(&body, "\n## Other results\n\n| benchmark | ns/op | B/op | allocs/op | other |\n| --- | ---: | ---: | ---: | --- |\n")
		for _, name := range rest {
			var other []string
			for _, unit := range r.units[name] {
				if unit != "ns/op" && unit != "B/op" && unit != "allocs/op" {
					other = append(other, figure(r, name, unit, &warned)+" "+unit)
				}
			}
			slices.Sort(other)
			fmt.Fprintf(&body, "| %s | %s | %s | %s | %s |\n", name, figure(r, name, "ns/op", &warned), get(r, name, "B/op"),
				get(r, name, "allocs/op"), strings.Join(other, ", "))
		}
	}

	fmt.Fprintf(w, "# Metronome benchmark report\n\n")
	fmt.Fprintf(w, "%s.\n\n", header(r, date))
	n := r.maxCount()
	if n > 1 && !r.min {
		fmt.Fprintf(w, "Each figure compared is a median ± its %s confidence interval, as benchstat computes them", pct(r.confidence))
		if len(warned.list) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(warned.list, "; "))
		}
		fmt.Fprintf(w, ".\n")
	}
	fmt.Fprintf(w, "Ratios are peer / ours from this run: above 1 means ours is faster (or smaller).\n")
	w.Write(body.Bytes())
}

// header is the run's date, Go, machine and how figures were reduced:
// the line under the report's title and the chart's.
func header(r *run, date string) string {
	cores := fmt.Sprintf("%d CPUs", runtime.NumCPU())
	if r.procs > 0 {
		cores += fmt.Sprintf(", GOMAXPROCS %d", r.procs)
	}
	h := []string{date, runtime.Version()}
	if r.meta["goos"] != "" {
		h = append(h, r.meta["goos"]+"/"+r.meta["goarch"])
	}
	if r.meta["cpu"] != "" {
		h = append(h, "cpu: "+strings.TrimSpace(r.meta["cpu"]))
	}
	h = append(h, cores)
	n := r.maxCount()
	if n > 1 && r.min {
		h = append(h, fmt.Sprintf("minimum of %d runs", n))
	} else if n > 1 {
		h = append(h, fmt.Sprintf("medians of %d runs", n))
	}
	return strings.Join(h, " · ")
}

func renderTable(w io.Writer, r *run, t table, used map[string]bool, warned *notes) {
	// Cases in order of first appearance, ours or peers.
	var cases []string
	seen := map[string]bool{}
	all := append([]impl{t.ours}, t.peers...)
	for _, name := range r.order {
		for _, im := range all {
			if c, ok := caseOf(name, im.prefix); ok && !seen[c] {
				seen[c] = true
				cases = append(cases, c)
			}
		}
	}
	for name := range r.skipped {
		for _, im := range all {
			if c, ok := caseOf(name, im.prefix); ok && !seen[c] {
				seen[c] = true
				cases = append(cases, c)
			}
		}
	}
	if len(cases) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## %s\n\n%s", t.title, t.about)
	if t.target != "" {
		fmt.Fprintf(w, " Target: %s.", t.target)
	}
	fmt.Fprintf(w, "\n\n")

	head := []string{"case", t.ours.label + " " + t.metric, "allocs/op"}
	align := []string{"---", "---:", "---:"}
	for _, p := range t.peers {
		head = append(head, p.label+" "+t.metric, "allocs/op", p.label+" / ours")
		align = append(align, "---:", "---:", "---:")
	}
	if t.check != nil {
		head = append(head, "target")
		align = append(align, "---")
	}
	fmt.Fprintf(w, "| %s |\n| %s |\n", strings.Join(head, " | "), strings.Join(align, " | "))

	for _, c := range cases {
		label := c
		if label == "" {
			label = "—"
		}
		oursName := join(t.ours.prefix, c)
		used[oursName] = true
		ov, hasOurs := r.value(oursName, t.metric)
		oa, _ := r.value(oursName, "allocs/op")
		row := []string{label, figure(r, oursName, t.metric, warned), get(r, oursName, "allocs/op")}
		cl := cell{name: c, ours: ov, allocs: oa, hasOK: hasOurs, ratios: map[string]float64{}}
		for _, p := range t.peers {
			name := join(p.prefix, c)
			used[name] = true
			ratio := "—"
			if pv, ok := r.value(name, t.metric); ok && hasOurs && ov > 0 {
				cl.ratios[p.label] = pv / ov
				ratio = fmt.Sprintf("%.2f×", pv/ov)
			}
			row = append(row, figure(r, name, t.metric, warned), get(r, name, "allocs/op"), ratio)
		}
		if t.check != nil {
			verdict := "—"
			if applies, met := t.check(cl); applies && met {
				verdict = "met"
			} else if applies {
				verdict = "**missed**"
			}
			row = append(row, verdict)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	if t.note != "" {
		fmt.Fprintf(w, "\n%s\n", t.note)
	}
}

func join(prefix, c string) string {
	if c == "" {
		return prefix
	}
	return prefix + "/" + c
}

// figure is a benchmark's value of unit with its interval, "13.3 ±2%"
// ("±∞" when too few runs bound it; no interval for one run or with
// -stat min), or "skipped" or "—". What the summary warns of goes to
// warned.
func figure(r *run, name, unit string, warned *notes) string {
	s, n, ok := r.summary(name, unit)
	switch {
	case !ok && r.skipped[name]:
		return "skipped"
	case !ok:
		return "—"
	case n == 1 || r.min:
		return num(s.Center)
	}
	warned.add(s.Warnings)
	return num(s.Center) + " ±" + s.PctRangeString()
}

// get is a benchmark's value of unit, or "—". Counts (B/op, allocs/op)
// that are whole print without decimals.
func get(r *run, name, unit string) string {
	v, ok := r.value(name, unit)
	switch {
	case !ok:
		return "—"
	case (unit == "allocs/op" || unit == "B/op") && v == math.Trunc(v):
		return whole(v)
	}
	return num(v)
}

// pct prints a confidence level as a percentage: 0.95 is "95%".
func pct(level float64) string {
	return strconv.FormatFloat(100*level, 'f', -1, 64) + "%"
}

// whole prints an integral v with thousands separated.
func whole(v float64) string {
	if math.Abs(v) >= 1000 {
		return num(v)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// num prints v with three or four significant digits, thousands
// separated: 7,950 / 151 / 23.4 / 1.25.
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 1000:
		s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		var b strings.Builder
		for i, ch := range s {
			if i > 0 && (len(s)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(ch)
		}
		if neg {
			return "-" + b.String()
		}
		return b.String()
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// svgLane is a lane as the SVG shows it: its attributes and the counts of
// its marks.
type svgLane struct {
	kind, label string
	count, jobs int
	marks       int            // mark elements
	markCount   int            // the sum of their data-count
	events      map[string]int // the data-count of its cancel, drop, fail and skip marks, by class
}

// svgDoc is what the structural tests look at.
type svgDoc struct {
	lanes          []svgLane
	pauses, breaks int
	more           string // the "+N more" row's text
	texts          []string
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// parseSVG checks that b is well-formed XML with an svg root and collects
// the lanes, marks, pauses and breaks.
func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	d := xml.NewDecoder(bytes.NewReader(b))
	var cur *svgLane
	depth, laneDepth, root := 0, 0, ""
	var text *strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			if root == "" {
				root = tok.Name.Local
			}
			class := attr(tok, "class")
			switch {
			case tok.Name.Local == "g" && class == "lane":
				n, _ := strconv.Atoi(attr(tok, "data-count"))
				j, _ := strconv.Atoi(attr(tok, "data-jobs"))
				doc.lanes = append(doc.lanes, svgLane{kind: attr(tok, "data-kind"), label: attr(tok, "data-label"), count: n, jobs: j, events: map[string]int{}})
				cur, laneDepth = &doc.lanes[len(doc.lanes)-1], depth
			case class == "mark":
				if cur == nil {
					t.Fatal("a mark outside a lane")
				}
				n, err := strconv.Atoi(attr(tok, "data-count"))
				if err != nil || n < 1 {
					t.Fatalf("mark with data-count %q", attr(tok, "data-count"))
				}
				cur.marks++
				cur.markCount += n
			case cur != nil && (class == "cancel" || class == "drop" || class == "fail" || class == "skip"):
				n, err := strconv.Atoi(attr(tok, "data-count"))
				if err != nil || n < 1 {
					t.Fatalf("%s mark with data-count %q", class, attr(tok, "data-count"))
				}
				cur.events[class] += n
			case class == "pause":
				doc.pauses++
			case class == "break":
				doc.breaks++
			}
			if tok.Name.Local == "text" {
				text = &strings.Builder{}
			}
		case xml.CharData:
			if text != nil {
				text.Write(tok)
			}
		case xml.EndElement:
			if tok.Name.Local == "text" && text != nil {
				doc.texts = append(doc.texts, text.String())
				if strings.HasPrefix(text.String(), "+") && strings.Contains(text.String(), " more jobs") {
					doc.more = text.String()
				}
				text = nil
			}
			if cur != nil && depth == laneDepth {
				cur = nil
			}
			depth--
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	for _, l := range doc.lanes {
		if l.markCount != l.count {
			t.Errorf("lane %q: marks count %d firings, the lane says %d", l.label, l.markCount, l.count)
		}
	}
	return doc
}

func (d svgDoc) hasText(s string) bool {
	for _, t := range d.texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

func TestTimelineOfQuickstart(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "q.svg")
	code, _, errOut := cli(t, t.Context(), "run", "--trace=all", "--timeline", svg, "../../examples/quickstart.lua")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b)

	// Every traced job fire is a mark in its job's lane, and every job
	// traced as cancelled has a lane (debounced once jobs that never fired
	// among them); every traced frame
	// or step that ran physics is one in the physics lane.
	jobs, fires, frames := map[string]int{}, 0, 0
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		f := strings.Split(line, "  ")
		switch {
		case len(f) >= 4 && (f[1] == "once" || f[1] == "every" || f[1] == "recurrence"):
			jobs[f[1]+" "+f[2]+"  "+f[3]]++
			fires++
		case len(f) == 5 && (f[1] == "cancel" || f[1] == "drop"):
			jobs[f[4]+" "+f[2]+"  "+f[3]] += 0 // a lane that ends with a mark, fired or not
		case len(f) == 4 && (f[1] == "frame" || f[1] == "step") && strings.Contains(f[3], "physics"):
			frames++
		}
	}
	var gotJobs int
	for _, l := range doc.lanes {
		switch l.kind {
		case "job":
			if jobs[l.label] != l.count {
				t.Errorf("lane %q shows %d fires, the trace has %d", l.label, l.count, jobs[l.label])
			}
			gotJobs++
		case "facet":
			if l.label != "facet physics" || l.count != frames {
				t.Errorf("facet lane %q shows %d frames; the trace has %d for physics", l.label, l.count, frames)
			}
		}
	}
	if gotJobs != len(jobs) || len(doc.lanes) != len(jobs)+1 {
		t.Errorf("%d lanes (%d of jobs); the trace has %d jobs and one facet", len(doc.lanes), gotJobs, len(jobs))
	}
	// One pause (the main chunk's), two idle gaps cut out (to the reward at
	// 8h, to closing time at 22h).
	if doc.pauses != 1 || doc.breaks != 2 {
		t.Errorf("%d pauses, %d breaks; want 1 and 2", doc.pauses, doc.breaks)
	}
	for _, want := range []string{
		"metronome run ../../examples/quickstart.lua",
		"virtual time from 2000-01-01T00:00:00Z · ran 79200s (22h) · " + strconv.Itoa(fires) + " job fires in " + strconv.Itoa(len(jobs)) + " jobs",
		"ended: host.quit()",
		"28800s", "79200s", "0s", "2s", "10s", // axis labels: exact decimal seconds
		"idle 7h59m50s", "idle 14h",
		"every #1  ../../examples/quickstart.lua:57",
	} {
		if !doc.hasText(want) {
			t.Errorf("no text contains %q", want)
		}
	}
}

// writeScript writes a Lua script into a temporary folder.
func writeScript(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTimelineCapsLanes(t *testing.T) {
	// 100 one-shots from 100 different lines: 100 lanes, more than fit.
	var src strings.Builder
	src.WriteString("local D = require('temporal').duration; local hs = require('app-host').scheduler\n")
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&src, "hs:schedule_once{ delay = D{ milliseconds = %d }, callback = function() end }\n", i*10)
	}
	script := writeScript(t, "many.lua", src.String())
	svg := filepath.Join(t.TempDir(), "many.svg")
	if code, _, errOut := cli(t, t.Context(), "run", "--timeline", svg, script); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(svg)
	doc := parseSVG(t, b)
	if len(doc.lanes) != maxLanes-1 || doc.more != "+61 more jobs (61 fires)" {
		t.Errorf("%d lanes and %q; want %d and \"+61 more jobs (61 fires)\"", len(doc.lanes), doc.more, maxLanes-1)
	}
}

func TestTimelineGroupsJobsOfOneLine(t *testing.T) {
	// A spawner's 300 one-shots come from one line: past the lane cap they
	// share a lane; the facet keeps its own.
	script := writeScript(t, "spawn.lua", `local D = require('temporal').duration
local hs = require('app-host').scheduler
for i = 1, 300 do hs:schedule_once{ delay = D{ milliseconds = i * 7 }, callback = function() end } end
hs:schedule_every{ interval = D{ milliseconds = 1 }, callback = function() end }
hs:register("render", function() end)
hs:schedule_once{ delay = D{ seconds = 3 }, callback = function() require('app-host').quit() end }
`)
	svg := filepath.Join(t.TempDir(), "spawn.svg")
	if code, _, errOut := cli(t, t.Context(), "run", "--timeline", svg, script); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(svg)
	doc := parseSVG(t, b)
	var labels []string
	for _, l := range doc.lanes {
		labels = append(labels, fmt.Sprintf("%s=%d/%d", l.label, l.count, l.jobs))
	}
	got := strings.Join(labels, "; ")
	// Lanes in order of first fire: the interval at 1ms, the spawns from 7ms.
	want := "every #301  " + script + ":4=3000/1; once ×300 jobs  " + script + ":3=300/300; once #302  " + script + ":6=1/1; facet render=180/0"
	if got != want {
		t.Errorf("lanes:\n%s\nwant:\n%s", got, want)
	}
	// 3000 fires a millisecond apart draw as one bar, not 3000 ticks.
	for _, l := range doc.lanes {
		if strings.HasPrefix(l.label, "every") && l.marks != 1 {
			t.Errorf("the 1ms interval has %d marks, want one bar", l.marks)
		}
	}
}

// A long run of dense fires renders in bounded size: marks are placed per
// pixel, not per fire.
func TestTimelineDenseRunIsBounded(t *testing.T) {
	r := newRecorder(traceOff, nil, false, true)
	const n = 100_000_000 // every 1ms for about 28 hours
	r.jobs = []*jobLane{{ID: 1, Kind: sched.KindEvery, Label: "x.lua:1", Count: n,
		Runs: []fireRun{{First: temporal.Millisecond, Step: temporal.Millisecond, Count: n}}}}
	r.fires = n
	var b bytes.Buffer
	if err := renderTimeline(&b, r, timelineInfo{Script: "x.lua", End: n * temporal.Millisecond, Clock: "virtual time", Ended: "nothing pending"}); err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b.Bytes())
	if len(doc.lanes) != 1 || doc.lanes[0].count != n || doc.lanes[0].marks != 1 {
		t.Errorf("lanes %+v", doc.lanes)
	}
	if b.Len() > 50_000 {
		t.Errorf("SVG is %d bytes", b.Len())
	}
	// Sparse fires of a run are each a tick.
	r.jobs[0].Runs[0] = fireRun{First: temporal.Hour, Step: temporal.Hour, Count: 27}
	r.jobs[0].Count, r.fires = 27, 27
	b.Reset()
	if err := renderTimeline(&b, r, timelineInfo{Script: "x.lua", End: 28 * temporal.Hour, Clock: "virtual time", Ended: "nothing pending"}); err != nil {
		t.Fatal(err)
	}
	if doc := parseSVG(t, b.Bytes()); doc.lanes[0].marks != 27 {
		t.Errorf("27 hourly fires drew %d marks", doc.lanes[0].marks)
	}
}

func TestTimelineOfAnEmptyRun(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "empty.svg")
	if code, _, errOut := cli(t, t.Context(), "run", "--timeline", svg, "testdata/args.lua"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(svg)
	doc := parseSVG(t, b)
	if len(doc.lanes) != 0 || !doc.hasText("nothing fired") || !doc.hasText("ran 0s · 0 job fires in 0 jobs · ended: nothing pending") {
		t.Errorf("lanes %v, texts %q", doc.lanes, doc.texts)
	}
}

func TestTimelineIsWrittenOnError(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "err.svg")
	code, _, _ := cli(t, t.Context(), "run", "--timeline", svg, "testdata/job_error.lua")
	b, err := os.ReadFile(svg)
	if code != 1 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	if doc := parseSVG(t, b); !doc.hasText("ended: error: testdata/job_error.lua:6: boom: from a job") || len(doc.lanes) != 1 {
		t.Errorf("texts %q", doc.texts)
	}
	code, _, errOut := cli(t, t.Context(), "run", "--timeline", filepath.Join(t.TempDir(), "no", "dir.svg"), "testdata/quit.lua")
	if code != 1 || !strings.HasPrefix(errOut, "metronome run: timeline: open ") {
		t.Errorf("unwritable: exit %d, stderr %q", code, errOut)
	}
}

func TestTimelineAxisAndLabels(t *testing.T) {
	for _, tc := range []struct {
		d    temporal.Duration
		want string
	}{
		{0, "0s"}, {1500 * temporal.Millisecond, "1.5s"}, {90 * temporal.Second, "1m30s"},
		{26*temporal.Hour + 5*temporal.Minute, "1d2h5m"}, {temporal.Hour + 500*temporal.Millisecond, "1h0.5s"},
	} {
		if got := humanDuration(tc.d); got != tc.want {
			t.Errorf("humanDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	long := "every #12  " + strings.Repeat("dir/", 20) + "game.lua:14"
	if got := laneLabel(long); len([]rune(got)) != labelChars || !strings.HasPrefix(got, "every #12  …") || !strings.HasSuffix(got, "game.lua:14") {
		t.Errorf("laneLabel = %q", got)
	}
	if got := laneLabel("once #1  a.lua:1"); got != "once #1  a.lua:1" {
		t.Errorf("short label changed: %q", got)
	}
	// Gaps: a burst, then a long idle stretch, then one fire: the stretch is cut.
	a := buildAxis([]span{{0, 10 * temporal.Second}, {8 * temporal.Hour, 8 * temporal.Hour}}, 8*temporal.Hour)
	if len(a.segs) != 2 || len(a.breaks) != 1 || a.breaks[0].gap != 8*temporal.Hour-10*temporal.Second {
		t.Errorf("axis %+v", a)
	}
	if x0, x1 := a.x(0), a.x(10*temporal.Second); x1-x0 < 500 {
		t.Errorf("the burst gets %v px, want most of the plot", x1-x0)
	}
	// Evenly spread activity is not cut.
	var even []span
	for i := range 11 {
		t := temporal.Duration(i) * temporal.Second
		even = append(even, span{t, t})
	}
	if a := buildAxis(even, 10*temporal.Second); len(a.breaks) != 0 {
		t.Errorf("even activity got %d breaks", len(a.breaks))
	}
	// Two instants only: not cut (there would be nothing left to show).
	if a := buildAxis([]span{{0, 0}, {5 * temporal.Second, 5 * temporal.Second}}, 5*temporal.Second); len(a.breaks) != 0 {
		t.Errorf("two instants got %d breaks", len(a.breaks))
	}
}

// golden compares got with testdata/timeline/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "timeline", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\ngot:  %s\nwant: %s\n(go test -run Golden -update rewrites it)", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: %d lines, want %d (go test -run Golden -update rewrites it)", path, len(gl), len(wl))
	}
}

// The pictures of whole runs stay byte for byte what they were.
func TestTimelineGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"trace.svg", []string{"--until", "48h", "testdata/trace.lua"}, 0},
		{"spawn.svg", []string{"testdata/timeline/spawn.lua"}, 0},
		{"many.svg", []string{"testdata/timeline/many.lua"}, 0},
		{"gap.svg", []string{"testdata/timeline/gap.lua"}, 0},
		{"paused.svg", []string{"testdata/paused.lua"}, 0},
		{"frames.svg", []string{"testdata/frames.lua"}, 0},
		{"error.svg", []string{"testdata/job_error.lua"}, 1},
		{"empty.svg", []string{"testdata/args.lua"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svg := filepath.Join(t.TempDir(), tc.name)
			args := append([]string{"run", "--timeline", svg}, tc.args...)
			if code, _, errOut := cli(t, t.Context(), args...); code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errOut)
			}
			b, err := os.ReadFile(svg)
			if err != nil {
				t.Fatal(err)
			}
			parseSVG(t, b)
			golden(t, tc.name, b)
		})
	}
}

// hostile is a record whose every label needs escaping in XML.
func hostile() (*recorder, timelineInfo) {
	r := newRecorder(traceOff, nil, false, true)
	epoch := temporal.FromUnixNano(0)
	for i, label := range []string{`a<b>&"c'.lua:1`, "", "]]></text><script>x</script>:2"} {
		r.fire(temporal.Duration(i+1)*temporal.Second, sched.Fire{At: epoch, ID: uint64(i + 1), Kind: sched.KindOnce, Label: label})
	}
	r.frame("frame", 0, 16*temporal.Millisecond, []string{`<"&'>`})
	r.paused(2*temporal.Second, false, true)
	r.paused(3*temporal.Second, true, false)
	r.end(4*temporal.Second, false)
	return r, timelineInfo{Script: `<x & "y">.lua`, End: 4 * temporal.Second, Clock: "virtual time", Ended: `error: <x>.lua:1: "&'`}
}

// Labels, facet names, the script's path and the end reason are the
// script's text: each comes out escaped, so the SVG stays well-formed XML and
// reads back as it went in.
func TestTimelineEscapesLabels(t *testing.T) {
	r, info := hostile()
	var b bytes.Buffer
	if err := renderTimeline(&b, r, info); err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b.Bytes())
	var labels []string
	for _, l := range doc.lanes {
		labels = append(labels, l.label)
	}
	want := []string{`once #1  a<b>&"c'.lua:1`, "once #2", "once #3  ]]></text><script>x</script>:2", `facet <"&'>`}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Errorf("data-label: %q, want %q", labels, want)
	}
	for _, s := range append(want, `metronome run <x & "y">.lua`, `ended: error: <x>.lua:1: "&'`) {
		if !doc.hasText(s) {
			t.Errorf("no text contains %q", s)
		}
	}
	for _, raw := range []string{"<b>", "<script>", `"y"`, "& "} {
		if bytes.Contains(b.Bytes(), []byte(raw)) {
			t.Errorf("%q is in the SVG unescaped", raw)
		}
	}
	golden(t, "escape.svg", b.Bytes())
}

// Every kind of job has a colour and a legend entry, and the legend lists
// only what the picture shows.
func TestTimelineLegendListsWhatOccurred(t *testing.T) {
	for k := sched.Kind(0); k.String() != "unknown"; k++ {
		if kindColor[k] == "" || kindLegend[k] == "" {
			t.Errorf("kind %s has colour %q, legend %q", k, kindColor[k], kindLegend[k])
		}
	}
	script := writeScript(t, "spawned.lua", `local D = require("temporal").duration
local hs = require("app-host").scheduler
hs:spawn(function() hs:wait(D{ milliseconds = 5 }); hs:wait(D{ milliseconds = 5 }) end)
hs:schedule_once{ delay = D{ milliseconds = 2 }, callback = function() end }
`)
	svg := filepath.Join(t.TempDir(), "s.svg")
	if code, _, errOut := cli(t, t.Context(), "run", "--timeline", svg, script); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `fill=""`) {
		t.Errorf("a mark has no colour:\n%s", b)
	}
	doc := parseSVG(t, b)
	for _, want := range []string{"once", "spawned task", "end of run"} {
		if !doc.hasText(want) {
			t.Errorf("the legend has no %q: %q", want, doc.texts)
		}
	}
	for _, absent := range []string{"every", "recurrence", "keyed timer", "host paused", "idle gap cut out", "facet frames / dense fires (bar)"} {
		for _, tx := range doc.texts {
			if tx == absent {
				t.Errorf("the legend lists %q, which did not occur", absent)
			}
		}
	}
}

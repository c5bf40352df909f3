package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A keyed tick's trace line names its key, generation and the three
// indices; the tick after the 25 ms handler reports the skipped one, and
// the clear at the end cancels the generation.
func TestRunTraceKeyedTicks(t *testing.T) {
	exact(t, []string{"run", "--trace", "testdata/trace_keyed.lua"}, 0, "",
		`0.01s  timer  #1  testdata/trace_keyed.lua:4  key "regen"  generation 1  delivery 1  scheduled 1  skipped 0
0.035s  timer  #1  testdata/trace_keyed.lua:4  key "regen"  generation 1  delivery 2  scheduled 3  skipped 1
0.04s  timer  #1  testdata/trace_keyed.lua:4  key "regen"  generation 1  delivery 3  scheduled 4  skipped 0
0.04s  cancel  #1  testdata/trace_keyed.lua:4  timer  key "regen"  generation 1
`)
}

// --trace writes a line for each pending job a cancel, a clear or a drop
// stops, at the time it did: the event where a fire has the kind, and the
// kind after the label.
func TestRunTraceCancelsAndDrops(t *testing.T) {
	code, _, errOut := cli(t, t.Context(), "run", "--trace", "testdata/trace/ends.lua")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the failing job)", code)
	}
	for _, want := range []string{
		"0.04s  cancel  #17  testdata/trace/ends.lua:14  once\n", // the debouncer re-arms
		"0.3s  drop  #2  testdata/trace/ends.lua:12  once\n",     // gone:drop()
		"0.5s  every  #1  testdata/trace/ends.lua:11\n" + // its fifth fire
			"0.5s  cancel  #1  testdata/trace/ends.lua:11  every\n", // cancels itself
		"0.7s  cancel  #14  testdata/trace/ends.lua:16  timer  key \"regen\"  generation 1\n",
		"0.75s  timer  #27  testdata/trace/ends.lua:19  key \"regen\"  generation 2  delivery 1  scheduled 1  skipped 0\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the trace has no %q:\n%s", want, errOut)
		}
	}
}

// A script's event loop: --trace shows each task it runs (queued tasks,
// microtasks, timers, frames, a source's runs) with the host's elapsed
// time, the loop's number and the loop's own time.
func TestRunTraceEventLoop(t *testing.T) {
	exact(t, []string{"run", "--trace", "testdata/trace/loop.lua"}, 0, "",
		`1s  once  #1  testdata/trace/loop.lua:21
1s  loop  task  -  testdata/trace/loop.lua:18  loop 1  at 0s
1s  loop  timeout  #2  testdata/trace/loop.lua:14  loop 1  at 0.003s
1s  loop  microtask  -  testdata/trace/loop.lua:15  loop 1  at 0.003s
1s  loop  interval  #1  testdata/trace/loop.lua:10  loop 1  at 0.005s
1s  loop  source  -  net  loop 1  at 0.005s
1s  loop  interval  #1  testdata/trace/loop.lua:10  loop 1  at 0.01s
1s  loop  frame  #1  testdata/trace/loop.lua:16  loop 1  at 0.016s
`)
	// Without --trace the loop runs the same, untraced; --timeline alone
	// draws the host's jobs only.
	exact(t, []string{"run", "testdata/trace/loop.lua"}, 0, "", "")
	svg := filepath.Join(t.TempDir(), "loop.svg")
	exact(t, []string{"run", "--timeline", svg, "testdata/trace/loop.lua"}, 0, "", "")
	if b, err := os.ReadFile(svg); err != nil || len(parseSVG(t, b).lanes) != 1 {
		t.Errorf("timeline: %v", err)
	}
}

// The timeline of ends.lua: a lane per job and one for the key "regen"
// (both generations), crosses where jobs were cancelled, a boxed cross for
// the drop, a triangle over the tick that skipped one, a ring on the job
// that failed, and the legend for each of them.
func TestTimelineMarksEndsFailuresAndSkips(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "ends.svg")
	if code, _, errOut := cli(t, t.Context(), "run", "--timeline", svg, "testdata/trace/ends.lua"); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errOut)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b)
	lane := func(label string) *svgLane {
		for i := range doc.lanes {
			if doc.lanes[i].label == label {
				return &doc.lanes[i]
			}
		}
		t.Fatalf("no lane %q in %v", label, doc.lanes)
		return nil
	}
	regen := lane(`timer "regen" (2 generations)  testdata/trace/ends.lua:16`)
	if regen.count != 18 || regen.events["skip"] != 1 || regen.events["cancel"] != 1 {
		t.Errorf("regen lane: %+v", *regen)
	}
	if l := lane("every #1  testdata/trace/ends.lua:11"); l.count != 5 || l.events["cancel"] != 1 {
		t.Errorf("every lane: %+v", *l)
	}
	if l := lane("once #2  testdata/trace/ends.lua:12"); l.count != 0 || l.events["drop"] != 1 {
		t.Errorf("dropped lane: %+v", *l)
	}
	if l := lane("once #16  testdata/trace/ends.lua:20"); l.count != 1 || l.events["fail"] != 1 {
		t.Errorf("failed lane: %+v", *l)
	}
	for _, want := range []string{"keyed timer", "cancelled", "dropped", "failed", "ticks skipped"} {
		if !doc.hasText(want) {
			t.Errorf("the legend has no %q", want)
		}
	}
	golden(t, "ends.svg", b)
}

// Under hs:on_error the run goes on past a job's error; the timeline rings
// each fire that failed.
func TestTimelineRingsTheFailuresOnErrorTook(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "on_error.svg")
	exact(t, []string{"run", "--timeline", svg, "testdata/trace/on_error.lua"}, 0, "", "")
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b)
	if len(doc.lanes) != 1 || doc.lanes[0].count != 4 || doc.lanes[0].events["fail"] != 2 || doc.lanes[0].events["cancel"] != 1 {
		t.Errorf("lanes %+v", doc.lanes)
	}
}

// A job's label option ends its trace lines and titles its timeline lane,
// beside where it was scheduled.
func TestRunTraceAndTimelineShowLabels(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "labels.svg")
	exact(t, []string{"run", "--trace", "--until", "30ms", "--timeline", svg, "testdata/trace/labels.lua"}, 0, "",
		`0.01s  every  #1  testdata/trace/labels.lua:6  label "regen"
0.015s  timer  #2  testdata/trace/labels.lua:7  key "save"  generation 1  delivery 1  scheduled 1  skipped 0  label "autosave"
0.02s  every  #1  testdata/trace/labels.lua:6  label "regen"
0.02s  once  #3  testdata/trace/labels.lua:8
0.02s  cancel  #1  testdata/trace/labels.lua:6  every  label "regen"
0.03s  timer  #2  testdata/trace/labels.lua:7  key "save"  generation 1  delivery 2  scheduled 2  skipped 0  label "autosave"
metronome run: stopped at --until 30ms (0.03s of virtual time) with 1 job pending and 0 facets registered; the next is timer #2 'autosave' scheduled at testdata/trace/labels.lua:7, due at 2000-01-01T00:00:00.045Z (in 0.015s)
`)
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"every #1 &#39;regen&#39;  testdata/trace/labels.lua:6", "timer &#34;save&#34; &#39;autosave&#39;  testdata/trace/labels.lua:7"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the timeline has no lane titled %q", want)
		}
	}
}

// maxTraceLine is the longest a trace line can be: a keyed tick's, with a
// key and a label option of maxTraceText bytes that each quote to 4
// characters a byte, a location as long, and every number at its widest.
const maxTraceLine = 2100

// A script's names of a megabyte each (a label, a key, a facet, a chunk
// name, every millisecond) give trace lines that show their first 200
// bytes and their length: each line stays under maxTraceLine bytes.
func TestRunTraceCutsLongNames(t *testing.T) {
	code, _, errOut := cli(t, t.Context(), "run", "--trace=all", "--until", "3ms", "testdata/trace/long_names.lua")
	if code != 0 {
		t.Fatalf("exit %d: %.300s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	kinds := map[string]int{}
	for _, line := range lines[:len(lines)-1] { // the last: where --until stopped
		if len(line) > maxTraceLine {
			t.Errorf("a trace line of %d bytes: %.120q", len(line), line)
		}
		if !strings.Contains(line, "…(10485") || !strings.Contains(line, " bytes)") {
			t.Errorf("a trace line without the long name's length: %.120q", line)
		}
		kinds[strings.Fields(line)[1]]++
	}
	for _, k := range []string{"every", "timer", "loop", "frame"} {
		if kinds[k] == 0 {
			t.Errorf("no %s line in the trace: %v", k, kinds)
		}
	}
	want := `key "` + strings.Repeat(`\x01`, maxTraceText) + `"…(1048576 bytes)`
	if !strings.Contains(errOut, want) {
		t.Errorf("the key's field is not its first %d bytes and its length", maxTraceText)
	}
}

// docs/trace-format.md lists every kind of line --trace=all writes, and
// writes none it does not list; testdata/trace_kinds.lua writes one of
// each but ownership, which needs --cluster.
func TestTraceFormatDocListsEveryKind(t *testing.T) {
	doc, err := os.ReadFile("../../docs/trace-format.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) < 3 {
			continue
		}
		for _, k := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(strings.TrimPrefix(cells[0], "| "), -1) {
			documented[k[1]] = true
		}
	}
	code, _, errOut := cli(t, t.Context(), "run", "--trace=all", "testdata/trace_kinds.lua")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	written := map[string]bool{"ownership": true}
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if f := strings.Split(line, "  "); len(f) > 1 {
			written[f[1]] = true
		}
	}
	for k := range written {
		if !documented[k] {
			t.Errorf("--trace writes %q lines; docs/trace-format.md does not list them", k)
		}
	}
	for k := range documented {
		if !written[k] {
			t.Errorf("docs/trace-format.md lists %q lines; testdata/trace_kinds.lua writes none", k)
		}
	}
}

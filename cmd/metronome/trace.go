package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// recorder sees what the run's host does: each fired job (through the
// scheduler's observer), each frame that ran facets, pauses and resumes,
// quit. It writes the --trace lines as they happen and keeps what
// --timeline draws, compressed so memory grows with the shape of the run,
// not its length: an interval's fires are one arithmetic run, consecutive
// frames one span.
//
// The trace format is documented in docs/trace-format.md and is stable:
//
//	12.345s  every  #3  examples/game.lua:14
//	86400s  recurrence  #5  examples/game.lua:30  occurrence 2
//	0.016667s  frame  0.016667s  physics,ai          (--trace=all)
//	3s  step  0.5s  physics                          (--trace=all)
//	2.5s  pause                                      (--trace=all)
type recorder struct {
	out       *bufio.Writer // nil: no trace
	flushEach bool          // flush after every line (a terminal's stderr)
	all       bool
	keep      bool // keep fires and frames for the timeline

	jobs     []*jobLane
	byID     map[uint64]*jobLane
	byKey    map[string]*jobLane // keyed timers' lanes
	facets   []*facetLane
	byFacet  map[string]*facetLane
	pauses   []span
	pausedAt temporal.Duration // start of the open pause; valid while inPause
	inPause  bool
	fires    int
	endAt    temporal.Duration // elapsed time when the run ended
	err      error             // the first write error
}

// span is [From, To] of elapsed time.
type span struct{ From, To temporal.Duration }

// jobLane is one job's fires as arithmetic runs, and how it ended: a keyed
// timer's lane holds every generation of its key.
type jobLane struct {
	ID    uint64 // the first job's (a key's first generation's)
	Kind  sched.Kind
	Label string // where the script scheduled it (file:line)
	Name  string // its label option
	Key   string // a keyed timer's key
	First temporal.Duration
	Runs  []fireRun
	Count int

	Cancels, Drops []fireRun // when a job (a generation) was cancelled or dropped
	Fails          []fireRun // when a callback failed
	Skips          []skipRun // ticks that reported skipped ones
	Gens           uint64    // the highest generation seen
}

// fireRun is Count fires at First, First+Step, ...
type fireRun struct {
	First, Step temporal.Duration
	Count       int
}

func (r fireRun) last() temporal.Duration { return r.First + r.Step*temporal.Duration(r.Count-1) }

// addRun adds an event at at to runs, extending the last arithmetic run
// when at continues it.
func addRun(runs []fireRun, at temporal.Duration) []fireRun {
	if n := len(runs); n > 0 {
		run := &runs[n-1]
		switch {
		case run.Count == 1:
			run.Step, run.Count = at-run.First, 2
			return runs
		case at == run.First+run.Step*temporal.Duration(run.Count):
			run.Count++
			return runs
		}
	}
	return append(runs, fireRun{First: at, Count: 1})
}

// skipRun is ticks at the times of Run that each reported N skipped ticks.
type skipRun struct {
	Run fireRun
	N   int64
}

// facetLane is the frames in which one facet ran, as spans of consecutive
// frames.
type facetLane struct {
	Name   string
	Spans  []span
	Frames []int // frames per span
	Count  int
}

func newRecorder(mode traceMode, out io.Writer, flushEach, keep bool) *recorder {
	r := &recorder{all: mode == traceAll, keep: keep, byID: map[uint64]*jobLane{}, byKey: map[string]*jobLane{}, byFacet: map[string]*facetLane{}}
	if mode != traceOff && out != nil {
		r.out, r.flushEach = bufio.NewWriter(out), flushEach
	}
	return r
}

// line writes one trace line: the fields joined by two spaces.
func (r *recorder) line(fields ...string) {
	if r.out == nil || r.err != nil {
		return
	}
	r.out.WriteString(strings.Join(fields, "  "))
	err := r.out.WriteByte('\n')
	if err == nil && r.flushEach {
		err = r.out.Flush()
	}
	if err != nil {
		r.err = err
	}
}

// fire records what the scheduler's observer reported: a fire, or a job
// (a keyed generation) cancelled or dropped.
func (r *recorder) fire(at temporal.Duration, f sched.Fire) {
	if f.Event == sched.EventFire {
		r.fires++
	}
	if r.out != nil {
		r.line(jobTraceFields(at, f)...)
	}
	if !r.keep {
		return
	}
	l := r.lane(at, f)
	switch f.Event {
	case sched.EventCancel:
		l.Cancels = addRun(l.Cancels, at)
		return
	case sched.EventDrop:
		l.Drops = addRun(l.Drops, at)
		return
	}
	l.Count++
	l.Runs = addRun(l.Runs, at)
	if f.SkippedTicks > 0 {
		l.Skips = addSkip(l.Skips, at, f.SkippedTicks)
	}
}

// addSkip adds a tick at at that reported n skipped ones, extending the
// last run when it has the same n and at continues it.
func addSkip(skips []skipRun, at temporal.Duration, n int64) []skipRun {
	if k := len(skips); k > 0 && skips[k-1].N == n {
		run := &skips[k-1].Run
		switch {
		case run.Count == 1:
			run.Step, run.Count = at-run.First, 2
			return skips
		case at == run.First+run.Step*temporal.Duration(run.Count):
			run.Count++
			return skips
		}
	}
	return append(skips, skipRun{Run: fireRun{First: at, Count: 1}, N: n})
}

// lane returns the lane of f's job, made at at if it is new: one per job,
// one per key for keyed timers (whatever the generation).
func (r *recorder) lane(at temporal.Duration, f sched.Fire) *jobLane {
	l := r.byID[f.ID]
	if l == nil && f.Kind == sched.KindTimer {
		l = r.byKey[f.Key]
		if l != nil {
			r.byID[f.ID] = l
		}
	}
	if l == nil {
		l = &jobLane{ID: f.ID, Kind: f.Kind, Label: f.Label, Name: f.Name, Key: f.Key, First: at}
		r.byID[f.ID] = l
		if f.Kind == sched.KindTimer {
			r.byKey[f.Key] = l
		}
		r.jobs = append(r.jobs, l)
	}
	l.Gens = max(l.Gens, f.Generation)
	return l
}

// failed records that job id's callback failed at at, when the job has a
// lane (it fired, so it has one).
func (r *recorder) failed(at temporal.Duration, id uint64) {
	if l := r.byID[id]; l != nil && r.keep {
		l.Fails = addRun(l.Fails, at)
	}
}

// frame records a frame of kind "frame" or "step" from..to that ran facets.
func (r *recorder) frame(kind string, from, to temporal.Duration, facets []string) {
	if len(facets) == 0 && kind == "frame" {
		return
	}
	if r.all {
		names := traceText(strings.Join(facets, ","))
		if names == "" {
			names = "-"
		}
		r.line(to.DecimalSeconds(), kind, (to - from).DecimalSeconds(), names)
	}
	if !r.keep {
		return
	}
	for _, name := range facets {
		l := r.byFacet[name]
		if l == nil {
			l = &facetLane{Name: name}
			r.byFacet[name] = l
			r.facets = append(r.facets, l)
		}
		l.Count++
		if n := len(l.Spans); n > 0 && l.Spans[n-1].To == from {
			l.Spans[n-1].To = to
			l.Frames[n-1]++
			continue
		}
		l.Spans = append(l.Spans, span{from, to})
		l.Frames = append(l.Frames, 1)
	}
}

// paused records a set-paused call that changed was into now.
func (r *recorder) paused(at temporal.Duration, was, now bool) {
	switch {
	case now && !was:
		r.event(at, "pause")
		r.inPause, r.pausedAt = true, at
	case was && !now:
		r.event(at, "resume")
		if r.inPause {
			r.pauses = append(r.pauses, span{r.pausedAt, at})
			r.inPause = false
		}
	}
}

// event writes a --trace=all line with no more fields than the kind.
func (r *recorder) event(at temporal.Duration, kind string) {
	if r.all {
		r.line(at.DecimalSeconds(), kind)
	}
}

// end closes the record at the run's final elapsed time.
func (r *recorder) end(at temporal.Duration, paused bool) {
	r.endAt = at
	if r.inPause || paused {
		from := at
		if r.inPause {
			from = r.pausedAt
		}
		r.pauses = append(r.pauses, span{from, at})
		r.inPause = false
	}
}

func (r *recorder) flush() error {
	if r.out == nil {
		return nil
	}
	if err := r.out.Flush(); err != nil && r.err == nil {
		r.err = err
	}
	if r.err != nil {
		return fmt.Errorf("trace: %w", r.err)
	}
	return nil
}

package main

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// The timeline's lanes: one per fired job or facet, grouped past the lane
// cap, and the marks drawn on them.

type lane struct {
	label string
	color string
	count int // fires (or frames)
	marks []mark
	facet bool
	key   string // kind and label: lanes with one key can be merged
	jobs  int    // jobs in the lane

	// Beside the fires: cancels, drops, failed callbacks, ticks that
	// reported skipped ones (mark.extra: how many they skipped).
	cancels, drops, fails, skips []mark
}

// groupLanes merges the job lanes that share a kind and a label (jobs
// scheduled by the same line) into one lane each, in the order of their
// first lane.
func groupLanes(lanes []lane) []lane {
	var out []lane
	at := map[string]int{}
	for _, l := range lanes {
		i, ok := at[l.key]
		if !ok || l.key == "" {
			at[l.key] = len(out)
			out = append(out, l)
			continue
		}
		g := &out[i]
		g.jobs++
		g.count += l.count
		g.marks = mergeMarks(append(g.marks, l.marks...))
		g.cancels = mergeMarks(append(g.cancels, l.cancels...))
		g.drops = mergeMarks(append(g.drops, l.drops...))
		g.fails = mergeMarks(append(g.fails, l.fails...))
		g.skips = mergeMarks(append(g.skips, l.skips...))
		kind, label, _ := strings.Cut(g.key, "  ")
		g.label = fmt.Sprintf("%s ×%d jobs", kind, g.jobs)
		if label != "" {
			g.label += "  " + label
		}
	}
	return out
}

// mergeMarks sorts marks by position and joins those closer than
// markMinPx.
func mergeMarks(ms []mark) []mark {
	slices.SortFunc(ms, func(a, b mark) int { return cmp.Compare(a.x0, b.x0) })
	out := ms[:0]
	for _, m := range ms {
		if n := len(out); n > 0 && m.x0-out[n-1].x1 < markMinPx {
			p := &out[n-1]
			p.x1, p.count, p.extra = max(p.x1, m.x1), p.count+m.count, p.extra+m.extra
			p.from, p.to = min(p.from, m.from), max(p.to, m.to)
			continue
		}
		out = append(out, m)
	}
	return out
}

type mark struct {
	x0, x1 float64 // x1 > x0: a bar
	count  int
	extra  int64 // skip marks: the ticks skipped
	from   temporal.Duration
	to     temporal.Duration
}

// jobMarks places a job's fires, or other events kept as runs: ticks,
// merged when closer than markMinPx.
func jobMarks(a *axis, runs []fireRun) []mark {
	var ms []mark
	add := func(t temporal.Duration, x float64) {
		if n := len(ms); n > 0 && x-ms[n-1].x1 < markMinPx {
			ms[n-1].x1, ms[n-1].count, ms[n-1].to = max(ms[n-1].x1, x), ms[n-1].count+1, t
			return
		}
		ms = append(ms, mark{x0: x, x1: x, count: 1, from: t, to: t})
	}
	for _, run := range runs {
		last := run.last()
		for _, s := range a.segs {
			lo, hi := max(run.First, s.from), min(last, s.to)
			if lo > hi {
				continue
			}
			if run.Count == 1 {
				add(run.First, a.x(run.First))
				continue
			}
			// Fires i with First+i*Step in [lo, hi].
			i0 := ceilDiv(int64(lo-run.First), int64(run.Step))
			i1 := int64(hi-run.First) / int64(run.Step)
			if i0 > i1 {
				continue
			}
			if float64(run.Step)*s.scale() < markMinPx {
				t0 := run.First + run.Step*temporal.Duration(i0)
				t1 := run.First + run.Step*temporal.Duration(i1)
				n := int(i1 - i0 + 1)
				x0, x1 := a.x(t0), a.x(t1)
				if k := len(ms); k > 0 && x0-ms[k-1].x1 < markMinPx {
					ms[k-1].x1, ms[k-1].count, ms[k-1].to = max(ms[k-1].x1, x1), ms[k-1].count+n, t1
					continue
				}
				ms = append(ms, mark{x0: x0, x1: x1, count: n, from: t0, to: t1})
				continue
			}
			for i := i0; i <= i1; i++ {
				t := run.First + run.Step*temporal.Duration(i)
				add(t, a.x(t))
			}
		}
	}
	return ms
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// facetMarks places a facet's frame spans as bars.
func facetMarks(a *axis, l *facetLane) []mark {
	var ms []mark
	for i, sp := range l.Spans {
		x0, x1 := a.x(sp.From), a.x(sp.To)
		if n := len(ms); n > 0 && x0-ms[n-1].x1 < markMinPx {
			ms[n-1].x1, ms[n-1].count, ms[n-1].to = max(ms[n-1].x1, x1), ms[n-1].count+l.Frames[i], sp.To
			continue
		}
		ms = append(ms, mark{x0: x0, x1: x1, count: l.Frames[i], from: sp.From, to: sp.To})
	}
	return ms
}

// laneLabel shortens a lane's label to labelChars, cutting the start of
// its file path (after the two-space separator) rather than its kind and id.
func laneLabel(s string) string {
	r := []rune(s)
	if len(r) <= labelChars {
		return s
	}
	head, path, ok := strings.Cut(s, "  ")
	if !ok || len([]rune(head))+4 >= labelChars {
		return string(r[:labelChars-1]) + "…"
	}
	p := []rune(path)
	keep := labelChars - len([]rune(head)) - 3
	return head + "  …" + string(p[len(p)-keep:])
}

// layoutLanes makes the lanes: jobs by first fire (then id), then facets.
// Past the lane cap it merges jobs scheduled by the same line, then cuts
// the tail of the jobs, returning how many jobs and fires it cut.
func layoutLanes(r *recorder, a *axis) (lanes []lane, hidden, hiddenCount int) {
	jobs := slices.Clone(r.jobs)
	slices.SortStableFunc(jobs, func(x, y *jobLane) int {
		if c := cmp.Compare(x.First, y.First); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})
	for _, l := range jobs {
		lanes = append(lanes, lane{label: laneTitle(l), color: kindColor[l.Kind], count: l.Count, marks: jobMarks(a, l.Runs),
			key: l.Kind.String() + "  " + l.Label, jobs: 1,
			cancels: jobMarks(a, l.Cancels), drops: jobMarks(a, l.Drops), fails: jobMarks(a, l.Fails), skips: skipMarks(a, l.Skips)})
	}
	var facetLanes []lane
	for _, l := range r.facets {
		facetLanes = append(facetLanes, lane{label: "facet " + l.Name, color: facetColor, count: l.Count, marks: facetMarks(a, l), facet: true})
	}
	// A spawner's one-shots, a debouncer's re-arms: merge first, then cut;
	// facets always keep their lanes.
	room := max(maxLanes-len(facetLanes), maxLanes/2)
	if len(lanes) > room {
		lanes = groupLanes(lanes)
	}
	if len(lanes) > room {
		for _, l := range lanes[room-1:] {
			hidden += l.jobs
			hiddenCount += l.count
		}
		lanes = lanes[:room-1]
	}
	return append(lanes, facetLanes...), hidden, hiddenCount
}

// laneOf places a lane's label, count and marks on the row centred on mid.
func laneOf(l lane, mid float64) laneView {
	v := laneView{Kind: "job", Label: l.label, Short: laneLabel(l.label), Count: l.count, Jobs: l.jobs,
		LabelX: tlPlotX0 - 12, CountX: tlPlotX1 + 10, TextY: mid + 4}
	what := "fires"
	if l.facet {
		v.Kind, what = "facet", "frames"
	}
	for _, m := range l.marks {
		tip := m.from.DecimalSeconds()
		if m.count > 1 {
			tip = fmt.Sprintf("%d %s from %s to %s", m.count, what, m.from.DecimalSeconds(), m.to.DecimalSeconds())
		}
		mv := markView{Count: m.count, Color: l.color, Tip: tip}
		if m.x1-m.x0 < 1 {
			mv.X, mv.Y = (m.x0+m.x1)/2-1.25, mid-7
		} else {
			mv.Bar, mv.X, mv.Y, mv.W = true, m.x0, mid-5, m.x1-m.x0
		}
		v.Marks = append(v.Marks, mv)
	}
	for _, ev := range []struct {
		class, color string
		ms           []mark
	}{{"skip", skipColor, l.skips}, {"fail", failColor, l.fails}, {"cancel", endColor, l.cancels}, {"drop", endColor, l.drops}} {
		for _, m := range ev.ms {
			v.Events = append(v.Events, eventView{Class: ev.class, Count: m.count, X: (m.x0 + m.x1) / 2, Y: mid, Color: ev.color, Tip: eventTip(ev.class, m)})
		}
	}
	return v
}

// eventTip is the tooltip of an event mark: what happened and when.
func eventTip(class string, m mark) string {
	what := map[string]string{"cancel": "cancelled", "drop": "dropped", "fail": "failed"}[class]
	switch {
	case class == "skip" && m.count == 1:
		return fmt.Sprintf("%s: %s skipped", m.from.DecimalSeconds(), plural(int(m.extra), "tick", "ticks"))
	case class == "skip":
		return fmt.Sprintf("%d ticks from %s to %s skipped %d", m.count, m.from.DecimalSeconds(), m.to.DecimalSeconds(), m.extra)
	case m.count == 1:
		return what + " at " + m.from.DecimalSeconds()
	}
	return fmt.Sprintf("%s %d times from %s to %s", what, m.count, m.from.DecimalSeconds(), m.to.DecimalSeconds())
}

// skipMarks places the ticks that reported skipped ones; each mark's extra
// is how many they skipped.
func skipMarks(a *axis, skips []skipRun) []mark {
	var ms []mark
	for _, sk := range skips {
		for _, m := range jobMarks(a, []fireRun{sk.Run}) {
			m.extra = int64(m.count) * sk.N
			ms = append(ms, m)
		}
	}
	return mergeMarks(ms)
}

// laneTitle is a job lane's title: what the job is (its kind and id, or a
// keyed timer's key and how many generations the lane holds), then where
// the script scheduled it. A name the script gives a job belongs here,
// between the two.
func laneTitle(l *jobLane) string {
	title := sched.JobInfo{ID: l.ID, Kind: l.Kind, Name: l.Name}.String()
	if l.Kind == sched.KindTimer {
		title = "timer " + strconv.Quote(l.Key)
		if l.Name != "" {
			title += " '" + l.Name + "'"
		}
		if l.Gens > 1 {
			title += fmt.Sprintf(" (%d generations)", l.Gens)
		}
	}
	if l.Label != "" {
		title += "  " + l.Label
	}
	return title
}

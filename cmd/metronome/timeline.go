package main

import (
	"bytes"
	"cmp"
	"fmt"
	"html"
	"os"
	"slices"
	"strings"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// The --timeline picture: one lane per fired job (kind #id file:line) and
// per facet, a mark per firing, pauses shaded, and an elapsed-time axis with
// exact decimal-second labels. Long idle stretches (a gap longer than all
// the time still shown once it is cut, up to maxBreaks of them) are cut out
// of the axis and drawn as a hatched break labelled with the time it skips,
// so a burst of seconds and a reward a day later both stay readable, while
// a regular beat keeps a plain linear axis.
//
// Marks: a fire is a thin tick; fires closer than markMinPx on screen are
// one bar with their count in its tooltip (and data-count); consecutive
// facet frames are one bar. Past maxLanes lanes, the rest are summed up in
// a last row, "+N more lanes".

type timelineInfo struct {
	Script string
	Start  temporal.Instant  // the host's epoch
	End    temporal.Duration // elapsed time at the end of the run
	Clock  string            // "virtual time" or "wall time"
	Ended  string            // why the run ended
}

const (
	tlWidth    = 1200.0
	tlLabelW   = 340.0 // lane label column
	tlCountW   = 70.0  // per-lane count column
	tlPlotX0   = tlLabelW
	tlPlotX1   = tlWidth - tlCountW
	tlLanesY   = 100.0
	tlLaneH    = 22.0
	tlBreakW   = 34.0
	tlPad      = 10.0
	maxLanes   = 40
	maxBreaks  = 6
	markMinPx  = 3.0
	tickTarget = 110.0 // px between axis ticks, at least
	labelChars = 46
)

var kindColor = map[sched.Kind]string{
	sched.KindOnce:       "#d62728",
	sched.KindEvery:      "#1f77b4",
	sched.KindRecurrence: "#2ca02c",
}

const facetColor = "#9467bd"

func writeTimeline(path string, r *recorder, info timelineInfo) error {
	var b bytes.Buffer
	renderTimeline(&b, r, info)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

// --- the axis ---

type segment struct {
	from, to temporal.Duration
	x0, x1   float64 // pixel range of [from, to]
}

type axisBreak struct {
	gap    temporal.Duration
	x0, x1 float64
}

type axis struct {
	segs   []segment
	breaks []axisBreak
}

// x maps an elapsed time to a pixel; a time inside a cut gap maps to its
// break's middle.
func (a *axis) x(t temporal.Duration) float64 {
	for i, s := range a.segs {
		if t <= s.to || i == len(a.segs)-1 {
			if t < s.from {
				if i == 0 {
					return s.x0
				}
				b := a.breaks[i-1]
				return (b.x0 + b.x1) / 2
			}
			if s.to == s.from {
				return (s.x0 + s.x1) / 2
			}
			t = min(t, s.to)
			return s.x0 + float64(t-s.from)/float64(s.to-s.from)*(s.x1-s.x0)
		}
	}
	return tlPlotX0
}

// scale returns the pixels per nanosecond of segment s (0 for an instant).
func (s segment) scale() float64 {
	if s.to == s.from {
		return 0
	}
	return (s.x1 - s.x0) / float64(s.to-s.from)
}

// activity returns the merged, sorted intervals in which something happened.
func activity(r *recorder, end temporal.Duration) []span {
	var iv []span
	iv = append(iv, span{0, 0}, span{end, end})
	for _, l := range r.jobs {
		for _, run := range l.Runs {
			if run.Count <= 200 {
				for i := range run.Count {
					t := run.First + run.Step*temporal.Duration(i)
					iv = append(iv, span{t, t})
				}
			} else {
				iv = append(iv, span{run.First, run.last()})
			}
		}
	}
	for _, l := range r.facets {
		iv = append(iv, l.Spans...)
	}
	iv = append(iv, r.pauses...)
	slices.SortFunc(iv, func(a, b span) int { return cmp.Compare(a.From, b.From) })
	out := iv[:1]
	for _, s := range iv[1:] {
		last := &out[len(out)-1]
		if s.From <= last.To {
			last.To = max(last.To, s.To)
			continue
		}
		out = append(out, s)
	}
	return out
}

// buildAxis cuts the largest idle gaps out of [0, end] and lays out what
// is left across the plot.
func buildAxis(act []span, end temporal.Duration) *axis {
	type gap struct {
		i   int // between act[i] and act[i+1]
		len temporal.Duration
	}
	var gaps []gap
	for i := 0; i+1 < len(act); i++ {
		gaps = append(gaps, gap{i, act[i+1].From - act[i].To})
	}
	slices.SortFunc(gaps, func(a, b gap) int {
		if c := cmp.Compare(b.len, a.len); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	cut := map[int]bool{}
	visible := end
	for _, g := range gaps {
		// Cut a gap longer than all the time still shown after it is cut
		// (so a regular beat is never cut up, and something stays to show).
		if len(cut) == maxBreaks || g.len <= 0 || g.len <= visible-g.len || visible-g.len <= 0 {
			break
		}
		cut[g.i] = true
		visible -= g.len
	}

	a := &axis{}
	from := temporal.Duration(0)
	for i := range act {
		if i+1 < len(act) && cut[i] {
			a.segs = append(a.segs, segment{from: from, to: act[i].To})
			a.breaks = append(a.breaks, axisBreak{gap: act[i+1].From - act[i].To})
			from = act[i+1].From
		}
	}
	a.segs = append(a.segs, segment{from: from, to: end})

	n := float64(len(a.segs))
	avail := (tlPlotX1 - tlPlotX0) - float64(len(a.breaks))*tlBreakW
	pad := tlPad
	if visible == 0 {
		pad = avail / (2 * n)
	}
	k := 0.0
	if visible > 0 {
		k = (avail - 2*pad*n) / float64(visible)
	}
	x := tlPlotX0
	for i := range a.segs {
		s := &a.segs[i]
		s.x0 = x + pad
		s.x1 = s.x0 + float64(s.to-s.from)*k
		x = s.x1 + pad
		if i < len(a.breaks) {
			a.breaks[i].x0, a.breaks[i].x1 = x, x+tlBreakW
			x += tlBreakW
		}
	}
	return a
}

// niceSteps are the tick steps the axis may use, in ns.
var niceSteps = func() []temporal.Duration {
	var out []temporal.Duration
	for p := temporal.Duration(1); p <= 10*temporal.Second; p *= 10 {
		out = append(out, p, 2*p, 5*p)
	}
	for _, m := range []temporal.Duration{1, 2, 5, 10, 15, 30} {
		out = append(out, m*temporal.Minute)
	}
	for _, h := range []temporal.Duration{1, 2, 3, 6, 12, 24, 48, 168, 336, 720, 2400, 8760, 87600} {
		out = append(out, h*temporal.Hour)
	}
	return out
}()

func niceStep(minNs float64) temporal.Duration {
	for _, s := range niceSteps {
		if float64(s) >= minNs {
			return s
		}
	}
	return niceSteps[len(niceSteps)-1]
}

// humanDuration is d in days, hours, minutes and seconds: 1d2h, 1h30m, 90s
// is 1m30s.
func humanDuration(d temporal.Duration) string {
	if d < temporal.Minute {
		return d.DecimalSeconds()
	}
	var b strings.Builder
	day := 24 * temporal.Hour
	for _, u := range []struct {
		d    temporal.Duration
		name string
	}{{day, "d"}, {temporal.Hour, "h"}, {temporal.Minute, "m"}} {
		if n := d / u.d; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.name)
			d %= u.d
		}
	}
	if d > 0 {
		b.WriteString(d.DecimalSeconds())
	}
	return b.String()
}

// --- lanes ---

type lane struct {
	label string
	color string
	count int // fires (or frames)
	marks []mark
	facet bool
	key   string // kind and label: lanes with one key can be merged
	jobs  int    // jobs in the lane
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
			p.x1, p.count = max(p.x1, m.x1), p.count+m.count
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
	from   temporal.Duration
	to     temporal.Duration
}

// jobMarks places a job's fires: ticks, merged when closer than markMinPx.
func jobMarks(a *axis, l *jobLane) []mark {
	var ms []mark
	add := func(t temporal.Duration, x float64) {
		if n := len(ms); n > 0 && x-ms[n-1].x1 < markMinPx {
			ms[n-1].x1, ms[n-1].count, ms[n-1].to = max(ms[n-1].x1, x), ms[n-1].count+1, t
			return
		}
		ms = append(ms, mark{x0: x, x1: x, count: 1, from: t, to: t})
	}
	for _, run := range l.Runs {
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

// --- rendering ---

type svgWriter struct{ b *bytes.Buffer }

func (w svgWriter) f(format string, args ...any) { fmt.Fprintf(w.b, format, args...) }

func esc(s string) string { return html.EscapeString(s) }

func px(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", x), "0"), ".")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func renderTimeline(b *bytes.Buffer, r *recorder, info timelineInfo) {
	end := info.End
	a := buildAxis(activity(r, end), end)

	// Lanes: jobs by first fire (then id), then facets.
	jobs := slices.Clone(r.jobs)
	slices.SortStableFunc(jobs, func(x, y *jobLane) int {
		if c := cmp.Compare(x.Runs[0].First, y.Runs[0].First); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})
	var lanes []lane
	for _, l := range jobs {
		label := fmt.Sprintf("%s #%d", l.Kind, l.ID)
		if l.Label != "" {
			label += "  " + l.Label
		}
		lanes = append(lanes, lane{label: label, color: kindColor[l.Kind], count: l.Count, marks: jobMarks(a, l),
			key: l.Kind.String() + "  " + l.Label, jobs: 1})
	}
	var facetLanes []lane
	facetFrames := 0
	for _, l := range r.facets {
		facetLanes = append(facetLanes, lane{label: "facet " + l.Name, color: facetColor, count: l.Count, marks: facetMarks(a, l), facet: true})
		facetFrames += l.Count
	}
	// Too many lanes: first merge jobs scheduled by the same line (a
	// spawner's one-shots, a debouncer's re-arms), then cut the tail of the
	// jobs; facets always keep their lanes.
	room := max(maxLanes-len(facetLanes), maxLanes/2)
	if len(lanes) > room {
		lanes = groupLanes(lanes)
	}
	hidden, hiddenCount := 0, 0
	if len(lanes) > room {
		for _, l := range lanes[room-1:] {
			hidden += l.jobs
			hiddenCount += l.count
		}
		lanes = lanes[:room-1]
	}
	lanes = append(lanes, facetLanes...)
	rows := len(lanes)
	if hidden > 0 {
		rows++
	}
	if rows == 0 {
		rows = 1 // room for "nothing fired"
	}
	lanesBottom := tlLanesY + float64(rows)*tlLaneH
	axisY := lanesBottom + 8
	height := axisY + 62

	w := svgWriter{b}
	w.f(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.f(`<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="11">`+"\n",
		px(tlWidth), px(height), px(tlWidth), px(height))
	w.f(`<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fafafa"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c8c8c8" stroke-width="2"/></pattern></defs>` + "\n")
	w.f(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")

	// Title and summary.
	w.f(`<text class="title" x="16" y="26" font-size="17" font-weight="bold" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">%s</text>`+"\n", esc("metronome run "+info.Script))
	ran := end.DecimalSeconds()
	if end >= temporal.Minute {
		ran += " (" + humanDuration(end) + ")"
	}
	summary := fmt.Sprintf("%s from %s · ran %s · %s in %s", info.Clock, info.Start, ran,
		plural(r.fires, "job fire", "job fires"), plural(len(r.jobs), "job", "jobs"))
	if len(r.facets) > 0 {
		summary += " · " + plural(facetFrames, "facet run", "facet runs") + " in " + plural(len(r.facets), "facet", "facets")
	}
	summary += " · ended: " + info.Ended
	w.f(`<text class="summary" x="16" y="46" fill="#333">%s</text>`+"\n", esc(summary))

	// Legend.
	lx := 16.0
	ly := 72.0
	legend := func(draw func(x float64), text string) {
		draw(lx)
		w.f(`<text x="%s" y="%s" fill="#333">%s</text>`+"\n", px(lx+18), px(ly+4), esc(text))
		lx += 18 + float64(len([]rune(text)))*6.7 + 22
	}
	w.f(`<g class="legend">` + "\n")
	for _, k := range []sched.Kind{sched.KindOnce, sched.KindEvery, sched.KindRecurrence} {
		c := kindColor[k]
		legend(func(x float64) {
			w.f(`<rect x="%s" y="%s" width="2.5" height="14" fill="%s"/>`+"\n", px(x+6), px(ly-7), c)
		}, k.String())
	}
	legend(func(x float64) {
		w.f(`<rect x="%s" y="%s" width="14" height="9" fill="%s" fill-opacity="0.55" stroke="%s"/>`+"\n", px(x), px(ly-4.5), facetColor, facetColor)
	}, "facet frames / dense fires (bar)")
	legend(func(x float64) {
		w.f(`<rect x="%s" y="%s" width="14" height="14" fill="#808080" fill-opacity="0.25"/>`+"\n", px(x), px(ly-7))
	}, "host paused")
	legend(func(x float64) {
		w.f(`<rect x="%s" y="%s" width="14" height="14" fill="url(#hatch)" stroke="#bbb"/>`+"\n", px(x), px(ly-7))
	}, "idle gap cut out")
	legend(func(x float64) {
		w.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-dasharray="3,2"/>`+"\n", px(x+7), px(ly-7), px(x+7), px(ly+7))
	}, "end of run")
	w.f("</g>\n")

	// Lane backgrounds and labels.
	for i := 0; i < rows; i++ {
		y := tlLanesY + float64(i)*tlLaneH
		fill := "#ffffff"
		if i%2 == 0 {
			fill = "#f4f6f8"
		}
		w.f(`<rect x="8" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", px(y), px(tlWidth-16), px(tlLaneH), fill)
	}
	// Breaks: hatched bands across the lanes.
	for _, br := range a.breaks {
		w.f(`<rect class="break" x="%s" y="%s" width="%s" height="%s" fill="url(#hatch)"><title>%s</title></rect>`+"\n",
			px(br.x0), px(tlLanesY), px(br.x1-br.x0), px(lanesBottom-tlLanesY+8), esc("idle for "+br.gap.DecimalSeconds()+" ("+humanDuration(br.gap)+"), cut out"))
	}
	// Pauses.
	for _, p := range r.pauses {
		x0, x1 := a.x(p.From), a.x(p.To)
		x1 = max(x1, x0+3)
		w.f(`<rect class="pause" x="%s" y="%s" width="%s" height="%s" fill="#808080" fill-opacity="0.25"><title>%s</title></rect>`+"\n",
			px(x0), px(tlLanesY-12), px(x1-x0), px(lanesBottom-tlLanesY+12), esc(fmt.Sprintf("paused from %s to %s", p.From.DecimalSeconds(), p.To.DecimalSeconds())))
		w.f(`<text x="%s" y="%s" font-size="10" fill="#555">paused</text>`+"\n", px(x0+2), px(tlLanesY-3))
	}

	for i, l := range lanes {
		y := tlLanesY + float64(i)*tlLaneH
		mid := y + tlLaneH/2
		kind := "job"
		if l.facet {
			kind = "facet"
		}
		w.f(`<g class="lane" data-kind="%s" data-label="%s" data-count="%d" data-jobs="%d">`+"\n", kind, esc(l.label), l.count, l.jobs)
		w.f(`<title>%s</title>`+"\n", esc(l.label))
		w.f(`<text x="%s" y="%s" text-anchor="end" fill="#222">%s</text>`+"\n", px(tlPlotX0-12), px(mid+4), esc(laneLabel(l.label)))
		w.f(`<text x="%s" y="%s" fill="#666">×%d</text>`+"\n", px(tlPlotX1+10), px(mid+4), l.count)
		for _, m := range l.marks {
			tip := m.from.DecimalSeconds()
			if m.count > 1 {
				tip = fmt.Sprintf("%d %s from %s to %s", m.count, map[bool]string{false: "fires", true: "frames"}[l.facet], m.from.DecimalSeconds(), m.to.DecimalSeconds())
			}
			if m.x1-m.x0 < 1 {
				w.f(`<rect class="mark" data-count="%d" x="%s" y="%s" width="2.5" height="14" fill="%s"><title>%s</title></rect>`+"\n",
					m.count, px((m.x0+m.x1)/2-1.25), px(mid-7), l.color, esc(tip))
			} else {
				w.f(`<rect class="mark" data-count="%d" x="%s" y="%s" width="%s" height="10" fill="%s" fill-opacity="0.55" stroke="%s" stroke-width="0.8"><title>%s</title></rect>`+"\n",
					m.count, px(m.x0), px(mid-5), px(m.x1-m.x0), l.color, l.color, esc(tip))
			}
		}
		w.f("</g>\n")
	}
	if hidden > 0 {
		y := tlLanesY + float64(len(lanes))*tlLaneH
		w.f(`<text class="more" x="%s" y="%s" text-anchor="end" fill="#555" font-style="italic">%s</text>`+"\n",
			px(tlPlotX0-12), px(y+tlLaneH/2+4), esc(fmt.Sprintf("+%d more jobs (%d fires)", hidden, hiddenCount)))
	}
	if len(lanes) == 0 && hidden == 0 {
		w.f(`<text x="%s" y="%s" fill="#777" font-style="italic">nothing fired</text>`+"\n", px(tlPlotX0+10), px(tlLanesY+tlLaneH/2+4))
	}

	// End of run.
	xe := a.x(end)
	w.f(`<line class="end" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-dasharray="3,2"/>`+"\n", px(xe), px(tlLanesY-4), px(xe), px(axisY+4))

	// Axis.
	w.f(`<g class="axis">` + "\n")
	for _, s := range a.segs {
		w.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`+"\n", px(s.x0-tlPad), px(axisY), px(s.x1+tlPad), px(axisY))
	}
	type label struct {
		x      float64
		text   string
		sub    string
		bold   bool
		isTick bool
	}
	var labels []label
	for _, br := range a.breaks {
		mid := (br.x0 + br.x1) / 2
		w.f(`<path d="M%s %sl6 -8M%s %sl6 -8" stroke="#333" fill="none"/>`+"\n", px(mid-6), px(axisY+4), px(mid), px(axisY+4))
		text := "idle " + humanDuration(br.gap)
		if h := lanesBottom - tlLanesY; h >= float64(len(text))*6.7+12 {
			// Written up the hatched band, out of the axis labels' way.
			cy := tlLanesY + h/2
			w.f(`<text class="gap" x="%s" y="%s" text-anchor="middle" fill="#555" transform="rotate(-90 %s %s)">%s</text>`+"\n",
				px(mid+4), px(cy), px(mid+4), px(cy), esc(text))
		} else {
			labels = append(labels, label{x: mid, text: "+" + humanDuration(br.gap), sub: "idle", isTick: true})
		}
	}
	for i, s := range a.segs {
		if i > 0 || s.from > 0 || s.to == s.from {
			labels = append(labels, label{x: a.x(s.from), text: s.from.DecimalSeconds(), sub: subLabel(s.from), bold: true})
		}
	}
	labels = append(labels, label{x: a.x(0), text: "0s", bold: true})
	if end > 0 {
		labels = append(labels, label{x: xe, text: end.DecimalSeconds(), sub: subLabel(end), bold: true})
	}
	for _, s := range a.segs {
		k := s.scale()
		if k == 0 {
			continue
		}
		step := niceStep(tickTarget / k)
		for t := (s.from + step - 1) / step * step; t <= s.to; t += step {
			x := a.x(t)
			w.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`+"\n", px(x), px(axisY), px(x), px(axisY+4))
			w.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000" stroke-opacity="0.06"/>`+"\n", px(x), px(tlLanesY), px(x), px(axisY))
			sub := ""
			if step >= temporal.Minute {
				sub = humanDuration(t)
			}
			labels = append(labels, label{x: x, text: t.DecimalSeconds(), sub: sub, isTick: true})
		}
	}
	// Place labels left to right without overlaps; bold ones (segment
	// starts, end, breaks) first.
	type placed struct{ x0, x1 float64 }
	var taken []placed
	fits := func(x0, x1 float64) bool {
		for _, p := range taken {
			if x0 < p.x1+8 && p.x0 < x1+8 {
				return false
			}
		}
		return true
	}
	for pass := 0; pass < 2; pass++ {
		for _, l := range labels {
			if l.isTick != (pass == 1) {
				continue
			}
			wid := float64(max(len(l.text), len(l.sub))) * 6.7
			x0, x1 := l.x-wid/2, l.x+wid/2
			if !fits(x0, x1) {
				continue
			}
			taken = append(taken, placed{x0, x1})
			weight := ""
			if l.bold {
				weight = ` font-weight="bold"`
			}
			w.f(`<text class="tick" x="%s" y="%s" text-anchor="middle" fill="#222"%s>%s</text>`+"\n", px(l.x), px(axisY+17), weight, esc(l.text))
			if l.sub != "" {
				w.f(`<text x="%s" y="%s" text-anchor="middle" fill="#777" font-size="10">%s</text>`+"\n", px(l.x), px(axisY+29), esc(l.sub))
			}
		}
	}
	w.f(`<text x="%s" y="%s" text-anchor="middle" fill="#555" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">%s</text>`+"\n",
		px((tlPlotX0+tlPlotX1)/2), px(axisY+50), esc("elapsed "+info.Clock+" since "+info.Start.String()+", exact decimal seconds"))
	w.f("</g>\n</svg>\n")
}

// subLabel is the human form under a time label, when it adds something.
func subLabel(t temporal.Duration) string {
	if t < temporal.Minute {
		return ""
	}
	return humanDuration(t)
}

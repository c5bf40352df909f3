package main

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"os"
	"slices"
	"strconv"
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
	sched.KindTimer:      "#8c564b",
	sched.KindSpawn:      "#e377c2",
}

// kindLegend is a kind's text in the legend.
var kindLegend = map[sched.Kind]string{
	sched.KindOnce:       "once",
	sched.KindEvery:      "every",
	sched.KindRecurrence: "recurrence",
	sched.KindTimer:      "keyed timer",
	sched.KindSpawn:      "spawned task",
}

// The colours of the marks beside the fires: a lane's end (cancel, drop),
// a failed callback, and a keyed tick that reported skipped ones.
const (
	endColor  = "#333333"
	failColor = "#d00000"
	skipColor = "#ff7f0e"
)

const facetColor = "#9467bd"

func writeTimeline(path string, r *recorder, info timelineInfo) error {
	var b bytes.Buffer
	if err := renderTimeline(&b, r, info); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
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
		runs := append(append(slices.Clip(l.Runs), l.Cancels...), l.Drops...)
		for _, run := range runs {
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

// --- layout ---

// picture is the timeline laid out: every position in pixels, every text
// final. timeline.svg.tmpl draws it and escapes every text it takes.
type picture struct {
	Width, Height float64
	Title         string
	Summary       string
	Legend        []legendItem
	Rows          []box // lane backgrounds
	Breaks        []box // idle gaps cut out, hatched across the lanes
	Pauses        []pause
	Lanes         []laneView
	More          *moreRow // the last row when lanes were cut
	Nothing       *point   // where "nothing fired" goes, when nothing did
	End           line     // the dashed end of the run
	AxisLines     []line   // one per segment of the axis
	BreakMarks    []breakMark
	Ticks         []tick
	Labels        []axisLabel // placed without overlaps
	Caption       text
}

type point struct{ X, Y float64 }

type line struct{ X1, Y1, X2, Y2 float64 }

type box struct {
	X, Y, W, H float64
	Fill       string
	Title      string // tooltip
}

// pause is a pause shaded across the lanes, with "paused" written at Label.
type pause struct {
	box
	Label point
}

type text struct {
	X, Y float64
	Text string
}

// legendItem is a swatch (its Shape at X, Y) and its text.
type legendItem struct {
	Shape  string     // "tick", "bar", "pause", "gap", "end" or "event"
	Mark   *eventView // "event": the mark, as a lane shows it
	X, Y   float64
	Y2     float64 // "end": the line's lower end
	Color  string
	TextAt point
	Text   string
}

type laneView struct {
	Kind   string // "job" or "facet"
	Label  string // in full, for the tooltip and data-label
	Short  string // as shown, shortened to labelChars
	Count  int
	Jobs   int
	LabelX float64
	CountX float64
	TextY  float64
	Marks  []markView
	Events []eventView // ends, failures and skips, over the marks
}

// eventView is a mark beside the fires: Class "cancel" or "drop" (an
// ×, the second boxed), "fail" (a ring) or "skip" (a triangle above).
type eventView struct {
	Class string
	Count int
	X, Y  float64
	Color string
	Tip   string
}

// markView is a tick (one instant, or fires too close to tell apart) or,
// with Bar, a bar W wide.
type markView struct {
	Bar   bool
	Count int
	X, Y  float64
	W     float64
	Color string
	Tip   string
}

type moreRow struct {
	X, Y        float64
	Jobs, Fires int
}

// breakMark is the zigzag of an idle gap on the axis; Gap is its label up
// the hatched band, when the band is tall enough for it.
type breakMark struct {
	X0, X1, Y float64
	Gap       *text
}

// tick is an axis tick and its grid line across the lanes.
type tick struct{ Mark, Grid line }

type axisLabel struct {
	X, Y, SubY float64
	Text, Sub  string
	Idle       bool // a cut gap: "+" before Text
	Bold       bool
}

func px(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", x), "0"), ".")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

//go:embed timeline.svg.tmpl
var timelineTemplate string

// timelineSVG draws a picture. html/template escapes every value for the
// place it lands in, text or attribute.
var timelineSVG = template.Must(template.New("timeline").Funcs(template.FuncMap{"px": px}).Parse(timelineTemplate))

// renderTimeline writes the SVG of r. The XML declaration is written here:
// html/template would escape its "<?".
func renderTimeline(w io.Writer, r *recorder, info timelineInfo) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	return timelineSVG.Execute(w, layoutTimeline(r, info))
}

// layoutTimeline places everything the picture shows.
func layoutTimeline(r *recorder, info timelineInfo) *picture {
	end := info.End
	a := buildAxis(activity(r, end), end)
	lanes, hidden, hiddenCount := layoutLanes(r, a)
	rows := len(lanes)
	if hidden > 0 {
		rows++
	}
	if rows == 0 {
		rows = 1 // room for "nothing fired"
	}
	lanesBottom := tlLanesY + float64(rows)*tlLaneH
	axisY := lanesBottom + 8
	p := &picture{Width: tlWidth, Height: axisY + 62, Title: "metronome run " + info.Script}

	ran := end.DecimalSeconds()
	if end >= temporal.Minute {
		ran += " (" + humanDuration(end) + ")"
	}
	p.Summary = fmt.Sprintf("%s from %s · ran %s · %s in %s", info.Clock, info.Start, ran,
		plural(r.fires, "job fire", "job fires"), plural(len(r.jobs), "job", "jobs"))
	if len(r.facets) > 0 {
		frames := 0
		for _, l := range r.facets {
			frames += l.Count
		}
		p.Summary += " · " + plural(frames, "facet run", "facet runs") + " in " + plural(len(r.facets), "facet", "facets")
	}
	p.Summary += " · ended: " + info.Ended
	p.Legend = legend(legendShown(r, lanes, len(a.breaks) > 0))

	for i := 0; i < rows; i++ {
		fill := "#ffffff"
		if i%2 == 0 {
			fill = "#f4f6f8"
		}
		p.Rows = append(p.Rows, box{X: 8, Y: tlLanesY + float64(i)*tlLaneH, W: tlWidth - 16, H: tlLaneH, Fill: fill})
	}
	for _, br := range a.breaks {
		p.Breaks = append(p.Breaks, box{X: br.x0, Y: tlLanesY, W: br.x1 - br.x0, H: lanesBottom - tlLanesY + 8,
			Title: "idle for " + br.gap.DecimalSeconds() + " (" + humanDuration(br.gap) + "), cut out"})
	}
	for _, ps := range r.pauses {
		x0, x1 := a.x(ps.From), a.x(ps.To)
		x1 = max(x1, x0+3)
		p.Pauses = append(p.Pauses, pause{box{X: x0, Y: tlLanesY - 12, W: x1 - x0, H: lanesBottom - tlLanesY + 12,
			Title: fmt.Sprintf("paused from %s to %s", ps.From.DecimalSeconds(), ps.To.DecimalSeconds())},
			point{x0 + 2, tlLanesY - 3}})
	}
	for i, l := range lanes {
		mid := tlLanesY + float64(i)*tlLaneH + tlLaneH/2
		p.Lanes = append(p.Lanes, laneOf(l, mid))
	}
	if hidden > 0 {
		y := tlLanesY + float64(len(lanes))*tlLaneH
		p.More = &moreRow{X: tlPlotX0 - 12, Y: y + tlLaneH/2 + 4, Jobs: hidden, Fires: hiddenCount}
	}
	if len(lanes) == 0 && hidden == 0 {
		p.Nothing = &point{tlPlotX0 + 10, tlLanesY + tlLaneH/2 + 4}
	}
	xe := a.x(end)
	p.End = line{xe, tlLanesY - 4, xe, axisY + 4}
	layoutAxis(p, a, end, lanesBottom, axisY)
	p.Caption = text{X: (tlPlotX0 + tlPlotX1) / 2, Y: axisY + 50,
		Text: "elapsed " + info.Clock + " since " + info.Start.String() + ", exact decimal seconds"}
	return p
}

// shown is what a picture has, so that its legend explains exactly that:
// the kinds of job that fired, the events beside the fires, bars, pauses
// and cut-out gaps.
type shown struct {
	kinds                    [sched.KindSpawn + 1]bool
	cancel, drop, fail, skip bool
	bar, pause, gap          bool
}

func legendShown(r *recorder, lanes []lane, gaps bool) shown {
	var s shown
	for _, l := range r.jobs {
		if int(l.Kind) < len(s.kinds) {
			s.kinds[l.Kind] = true
		}
		s.cancel = s.cancel || len(l.Cancels) > 0
		s.drop = s.drop || len(l.Drops) > 0
		s.fail = s.fail || len(l.Fails) > 0
		s.skip = s.skip || len(l.Skips) > 0
	}
	for _, l := range lanes {
		for _, m := range l.marks {
			s.bar = s.bar || m.x1 > m.x0
		}
	}
	s.pause, s.gap = len(r.pauses) > 0, gaps
	return s
}

// legend lays out the legend's swatches left to right.
func legend(s shown) []legendItem {
	ly, lx := 72.0, 16.0
	var items []legendItem
	add := func(it legendItem, text string) {
		if w := 18 + float64(len([]rune(text)))*6.7; lx+w > tlWidth-16 {
			// The next row, a little lower, still above the lanes.
			it.X, it.Y, it.Y2 = it.X-lx+16, it.Y+15, it.Y2+15
			if it.Mark != nil {
				it.Mark.X, it.Mark.Y = it.Mark.X-lx+16, it.Mark.Y+15
			}
			lx, ly = 16, ly+15
		}
		it.TextAt, it.Text = point{lx + 18, ly + 4}, text
		items = append(items, it)
		lx += 18 + float64(len([]rune(text)))*6.7 + 22
	}
	for k, ok := range s.kinds {
		if ok {
			add(legendItem{Shape: "tick", X: lx + 6, Y: ly - 7, Color: kindColor[sched.Kind(k)]}, kindLegend[sched.Kind(k)])
		}
	}
	for _, ev := range []struct {
		on                 bool
		shape, color, text string
	}{
		{s.cancel, "cancel", endColor, "cancelled"}, {s.drop, "drop", endColor, "dropped"},
		{s.fail, "fail", failColor, "failed"}, {s.skip, "skip", skipColor, "ticks skipped"},
	} {
		if ev.on {
			y := ly
			if ev.shape == "skip" {
				y += 5 // the triangle sits above its centre, over a tick
			}
			add(legendItem{Shape: "event", Mark: &eventView{Class: ev.shape, X: lx + 7, Y: y, Color: ev.color}}, ev.text)
		}
	}
	if s.bar {
		add(legendItem{Shape: "bar", X: lx, Y: ly - 4.5, Color: facetColor}, "facet frames / dense fires (bar)")
	}
	if s.pause {
		add(legendItem{Shape: "pause", X: lx, Y: ly - 7}, "host paused")
	}
	if s.gap {
		add(legendItem{Shape: "gap", X: lx, Y: ly - 7}, "idle gap cut out")
	}
	add(legendItem{Shape: "end", X: lx + 7, Y: ly - 7, Y2: ly + 7}, "end of run")
	return items
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

// layoutAxis places the axis: its segments, the breaks' zigzags and
// labels, the ticks, and the time labels, left to right without overlaps.
func layoutAxis(p *picture, a *axis, end temporal.Duration, lanesBottom, axisY float64) {
	for _, s := range a.segs {
		p.AxisLines = append(p.AxisLines, line{s.x0 - tlPad, axisY, s.x1 + tlPad, axisY})
	}
	var labels []axisLabel
	for _, br := range a.breaks {
		mid := (br.x0 + br.x1) / 2
		bm := breakMark{X0: mid - 6, X1: mid, Y: axisY + 4}
		gap := "idle " + humanDuration(br.gap)
		if h := lanesBottom - tlLanesY; h >= float64(len(gap))*6.7+12 {
			// Written up the hatched band, out of the axis labels' way.
			bm.Gap = &text{X: mid + 4, Y: tlLanesY + h/2, Text: gap}
		} else {
			labels = append(labels, axisLabel{X: mid, Text: humanDuration(br.gap), Sub: "idle", Idle: true})
		}
		p.BreakMarks = append(p.BreakMarks, bm)
	}
	// Segment starts and the end are bold and placed first; ticks fill in.
	var bold []axisLabel
	for i, s := range a.segs {
		if i > 0 || s.from > 0 || s.to == s.from {
			bold = append(bold, axisLabel{X: a.x(s.from), Text: s.from.DecimalSeconds(), Sub: subLabel(s.from), Bold: true})
		}
	}
	bold = append(bold, axisLabel{X: a.x(0), Text: "0s", Bold: true})
	if end > 0 {
		bold = append(bold, axisLabel{X: a.x(end), Text: end.DecimalSeconds(), Sub: subLabel(end), Bold: true})
	}
	for _, s := range a.segs {
		k := s.scale()
		if k == 0 {
			continue
		}
		step := niceStep(tickTarget / k)
		for t := (s.from + step - 1) / step * step; t <= s.to; t += step {
			x := a.x(t)
			p.Ticks = append(p.Ticks, tick{Mark: line{x, axisY, x, axisY + 4}, Grid: line{x, tlLanesY, x, axisY}})
			sub := ""
			if step >= temporal.Minute {
				sub = humanDuration(t)
			}
			labels = append(labels, axisLabel{X: x, Text: t.DecimalSeconds(), Sub: sub})
		}
	}
	type placed struct{ x0, x1 float64 }
	var taken []placed
	for _, l := range append(bold, labels...) {
		txt := l.Text
		if l.Idle {
			txt = "+" + txt
		}
		wid := float64(max(len(txt), len(l.Sub))) * 6.7
		x0, x1 := l.X-wid/2, l.X+wid/2
		if slices.ContainsFunc(taken, func(p placed) bool { return x0 < p.x1+8 && p.x0 < x1+8 }) {
			continue
		}
		taken = append(taken, placed{x0, x1})
		l.Y, l.SubY = axisY+17, axisY+29
		p.Labels = append(p.Labels, l)
	}
}

// subLabel is the human form under a time label, when it adds something.
func subLabel(t temporal.Duration) string {
	if t < temporal.Minute {
		return ""
	}
	return humanDuration(t)
}

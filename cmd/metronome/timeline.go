package main

import (
	"bytes"
	_ "embed"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"os"
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

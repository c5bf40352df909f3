package main

// The scaling chart (-svg FILE): how the cost of one operation grows with
// the number of pending timers, drawn from the same parsed run as the
// tables.

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"
)

// chart says what one picture draws: the benchmarks under bench, named
// bench/<series>/<panel>/<size>/g<G> (the panel and g<G> may be absent: one
// panel, one goroutine). A series or panel the chart does not name is left
// out, as is a size or goroutine count that has no figure.
type chart struct {
	title  string
	bench  string
	metric string
	series []seriesSpec
	panels []panelSpec
	source string // a footnote: where the figures come from
}

type seriesSpec struct{ key, label, color string }

type panelSpec struct{ key, caption string }

// scaling is the chart `make bench` writes to docs/bench-scaling.svg.
var scaling = chart{
	title:  "Insert + cancel: ns per operation against pending timers",
	bench:  "BenchmarkInsertCancel",
	metric: "ns/op",
	// Okabe-Ito colours, told apart by most colour-blind readers.
	series: []seriesSpec{
		{"wheel", "wheel", "#0072B2"},
		{"sharded", "sharded wheel (4 shards)", "#009E73"},
		{"heap", "4-ary heap", "#D55E00"},
		{"afterfunc", "time.AfterFunc + Stop", "#CC79A7"},
	},
	panels: []panelSpec{
		{"schedule-cancel", "schedule-cancel: insert a timer, then cancel it"},
		{"cancel-readd", "cancel-readd: cancel a random pending timer, insert one"},
	},
	source: "BenchmarkInsertCancel, runtime/internal/timerq/wheel_bench_test.go (make bench)",
}

// errNothingToDraw: the input has no figure the chart can use.
var errNothingToDraw = errors.New("no figures to draw")

// point is one figure: the central value and its interval (equal to it
// when no interval is known).
type point struct {
	size, v, lo, hi float64
	name            string
}

// line is one series at one goroutine count in one panel.
type line struct {
	series int
	g      int
	points []point // by size
}

var (
	sizeRE = regexp.MustCompile(`^(?:pending=)?([0-9]+)([kM]?)$`)
	gRE    = regexp.MustCompile(`^g([0-9]+)$`)
)

// parseSize reads "1k", "100k", "1M", "pending=10k" or "1000".
func parseSize(s string) (float64, bool) {
	m := sizeRE.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	switch m[2] {
	case "k":
		n *= 1e3
	case "M":
		n *= 1e6
	}
	return n, true
}

// sizeLabel is the inverse of parseSize for the axis: 1000 is "1k".
func sizeLabel(n float64) string {
	switch {
	case n >= 1e6:
		return strconv.FormatFloat(n/1e6, 'f', -1, 64) + "M"
	case n >= 1e3:
		return strconv.FormatFloat(n/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(n, 'f', -1, 64)
}

// collect gathers the chart's lines per panel (panels in the chart's
// order, only those with a figure) from r.
func (c chart) collect(r *run) (panels []int, lines map[int][]line) {
	lines = map[int][]line{}
	index := map[[3]int]int{} // panel, series, g -> index in lines[panel]
	for _, name := range r.order {
		rest, ok := strings.CutPrefix(name, c.bench+"/")
		if !ok {
			continue
		}
		parts := strings.Split(rest, "/")
		g, size, hasSize := 1, 0.0, false
		var keys []string
		for _, p := range parts {
			if m := gRE.FindStringSubmatch(p); m != nil {
				g, _ = strconv.Atoi(m[1])
			} else if n, ok := parseSize(p); ok && !hasSize {
				size, hasSize = n, true
			} else {
				keys = append(keys, p)
			}
		}
		if !hasSize || len(keys) == 0 {
			continue
		}
		series := slices.IndexFunc(c.series, func(s seriesSpec) bool { return s.key == keys[0] })
		panel := slices.IndexFunc(c.panels, func(p panelSpec) bool { return p.key == strings.Join(keys[1:], "/") })
		if len(keys) == 1 && len(c.panels) == 0 {
			panel = 0
		}
		if series < 0 || panel < 0 {
			continue
		}
		s, _, ok := r.summary(name, c.metric)
		if !ok || !(s.Center > 0) || math.IsInf(s.Center, 0) {
			continue
		}
		p := point{size: size, v: s.Center, lo: s.Center, hi: s.Center, name: name}
		if s.Lo > 0 && !math.IsInf(s.Hi, 0) {
			p.lo, p.hi = s.Lo, s.Hi
		}
		k := [3]int{panel, series, g}
		i, seen := index[k]
		if !seen {
			i = len(lines[panel])
			index[k] = i
			lines[panel] = append(lines[panel], line{series: series, g: g})
			if len(lines[panel]) == 1 {
				panels = append(panels, panel)
			}
		}
		lines[panel][i].points = append(lines[panel][i].points, p)
	}
	slices.Sort(panels)
	for _, ls := range lines {
		for i := range ls {
			slices.SortFunc(ls[i].points, func(a, b point) int { return cmp.Compare(a.size, b.size) })
		}
		slices.SortFunc(ls, func(a, b line) int {
			if a.series != b.series {
				return a.series - b.series
			}
			return a.g - b.g
		})
	}
	return panels, lines
}

// logAxis maps [lo, hi] (both > 0) onto [from, to] on a log scale, inset
// px inside both ends, so that no mark sits on the frame.
type logAxis struct{ lo, hi, from, to, inset float64 }

func (a logAxis) at(v float64) float64 {
	from, to := a.from+a.inset, a.to-a.inset
	if a.to < a.from {
		from, to = a.from-a.inset, a.to+a.inset
	}
	return from + (to-from)*(math.Log10(v)-math.Log10(a.lo))/(math.Log10(a.hi)-math.Log10(a.lo))
}

// tickLabel prints an axis value: whole numbers without decimals.
func tickLabel(v float64) string {
	if v >= 1 && v == math.Trunc(v) {
		return whole(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// decades widens [lo, hi] to whole powers of ten, at least one decade.
func decades(lo, hi float64) (float64, float64) {
	lo, hi = math.Pow(10, math.Floor(math.Log10(lo)+1e-9)), math.Pow(10, math.Ceil(math.Log10(hi)-1e-9))
	if lo >= hi {
		hi = lo * 10
	}
	return lo, hi
}

// steps125 widens [lo, hi] to the 1-2-5 values around it and lists the
// ticks: every 1-2-5 value inside over up to three decades, powers of ten
// beyond.
func steps125(lo, hi float64) (float64, float64, []float64) {
	var all []float64
	for e := math.Floor(math.Log10(lo)) - 1; e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			all = append(all, m*math.Pow(10, e))
		}
	}
	first, last := 0, len(all)-1
	for first+1 < len(all) && all[first+1] <= lo*(1+1e-9) {
		first++
	}
	for last > 0 && all[last-1] >= hi*(1-1e-9) {
		last--
	}
	if first == last {
		last = min(first+1, len(all)-1)
	}
	ticks := all[first : last+1]
	if math.Log10(ticks[len(ticks)-1]/ticks[0]) > 3 {
		var tens []float64
		for _, t := range ticks {
			if m := t / math.Pow(10, math.Floor(math.Log10(t)+1e-9)); math.Abs(m-1) < 1e-9 {
				tens = append(tens, t)
			}
		}
		ticks = tens
	}
	return all[first], all[last], ticks
}

// The picture's geometry, in px.
const (
	svgWidth   = 960
	plotTop    = 96
	plotHeight = 300
	marginL    = 78
	marginR    = 24
	panelGap   = 84
)

type svgTick struct {
	Pos   float64
	Label string
}

type svgMark struct {
	X, Y, Lo, Hi float64
	Title        string
}

type svgLine struct {
	Color, Dash string
	Hollow      bool
	Points      string // the polyline's points; "" for a single figure
	Marks       []svgMark
}

type svgPanel struct {
	X, Y, W, H float64
	Caption    string
	XTicks     []svgTick
	YTicks     []svgTick
	Lines      []svgLine
}

type svgLegend struct {
	X         float64
	Color     string
	Dash      string
	Hollow    bool
	Bar       bool // a vertical bar, not a line and a mark
	Label     string
	LineWidth float64
}

type svgView struct {
	W, H        float64
	Title, Note string
	XLabel      string
	YLabel      string
	Panels      []svgPanel
	Legend      []svgLegend
	LegendY     float64
	Styles      []svgLegend
	StylesY     float64
	Source      string
	SourceY     float64
	YLabelX     float64
	YLabelY     float64
	XLabelY     float64
	XLabelX     float64
}

// writeSVG draws c from r; note is the line under the title (the run's
// date and machine). It fails with errNothingToDraw when r has no figure
// for c, and writes nothing then.
func writeSVG(w io.Writer, r *run, c chart, note string) error {
	panels, lines := c.collect(r)
	if len(panels) == 0 {
		return fmt.Errorf("%s: %w", c.bench, errNothingToDraw)
	}
	// One scale for every panel, so that panels compare at a glance.
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	gs := map[int]bool{}
	used := map[int]bool{}
	for _, ls := range lines {
		for _, l := range ls {
			gs[l.g], used[l.series] = true, true
			for _, p := range l.points {
				xlo, xhi = min(xlo, p.size), max(xhi, p.size)
				ylo, yhi = min(ylo, p.lo), max(yhi, p.hi)
			}
		}
	}
	xlo, xhi = decades(xlo, xhi)
	ylo, yhi, yticks := steps125(ylo, yhi)

	bars := false // an interval drawn: the legend says what the bar is
	n := float64(len(panels))
	pw := (svgWidth - marginL - marginR - panelGap*(n-1)) / n
	v := svgView{
		W:      svgWidth,
		Title:  c.title,
		Note:   note,
		XLabel: "pending timers (log scale)",
		YLabel: c.metric + " (log scale)",
		Source: c.source,
	}
	v.YLabelX, v.YLabelY = 22, plotTop+plotHeight/2
	v.XLabelX, v.XLabelY = svgWidth/2, plotTop+plotHeight+44
	for i, pi := range panels {
		x0 := marginL + float64(i)*(pw+panelGap)
		xa := logAxis{xlo, xhi, x0, x0 + pw, 16}
		ya := logAxis{ylo, yhi, plotTop + plotHeight, plotTop, 8}
		p := svgPanel{X: x0, Y: plotTop, W: pw, H: plotHeight}
		if pi < len(c.panels) {
			p.Caption = c.panels[pi].caption
		}
		for t := xlo; t <= xhi*(1+1e-9); t *= 10 {
			p.XTicks = append(p.XTicks, svgTick{xa.at(t), sizeLabel(t)})
		}
		for _, t := range yticks {
			p.YTicks = append(p.YTicks, svgTick{ya.at(t), tickLabel(t)})
		}
		for _, l := range lines[pi] {
			s := c.series[l.series]
			sl := svgLine{Color: s.color}
			if l.g > 1 {
				sl.Dash, sl.Hollow = "6 4", true
			}
			var pts []string
			for _, pt := range l.points {
				x, y := xa.at(pt.size), ya.at(pt.v)
				pts = append(pts, ff(x)+","+ff(y))
				title := fmt.Sprintf("%s: %s %s", pt.name, num(pt.v), c.metric)
				sl.Marks = append(sl.Marks, svgMark{X: x, Y: y, Lo: ya.at(pt.lo), Hi: ya.at(pt.hi), Title: title})
				bars = bars || pt.lo != pt.hi
			}
			if len(pts) > 1 {
				sl.Points = strings.Join(pts, " ")
			}
			p.Lines = append(p.Lines, sl)
		}
		v.Panels = append(v.Panels, p)
	}

	// The legend: a swatch per series drawn, then what solid and dashed
	// mean when both goroutine counts are drawn.
	y := plotTop + plotHeight + 76.0
	v.LegendY = y
	x := float64(marginL)
	for i, s := range c.series {
		if !used[i] {
			continue
		}
		v.Legend = append(v.Legend, svgLegend{X: x, Color: s.color, Label: s.label, LineWidth: 3})
		x += 46 + 6.9*float64(utf8.RuneCountInString(s.label))
	}
	var counts []int
	for g := range gs {
		counts = append(counts, g)
	}
	slices.Sort(counts)
	var styles []svgLegend
	if len(counts) > 1 || counts[0] != 1 {
		for _, g := range counts {
			st := svgLegend{Color: "#444", LineWidth: 2, Label: "1 goroutine"}
			if g > 1 {
				st.Dash, st.Hollow = "6 4", true
				st.Label = fmt.Sprintf("%d goroutines at once (wall time per operation)", g)
			}
			styles = append(styles, st)
		}
	}
	if bars {
		styles = append(styles, svgLegend{Color: "#444", Bar: true, Label: fmt.Sprintf("bar: %s interval of the median", pct(r.confidence))})
	}
	if len(styles) > 0 {
		y += 24
		v.StylesY = y
		x = marginL
		for _, st := range styles {
			st.X = x
			v.Styles = append(v.Styles, st)
			x += 46 + 6.9*float64(utf8.RuneCountInString(st.Label))
		}
	}
	v.SourceY = y + 28
	v.H = v.SourceY + 14

	var b bytes.Buffer
	if err := svgTemplate.Execute(&b, v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// ff prints a coordinate with one decimal, so that output is stable.
func ff(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}

func xmlText(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

var svgTemplate = template.Must(template.New("svg").Funcs(template.FuncMap{
	"f":   ff,
	"x":   xmlText,
	"add": func(a, b float64) float64 { return a + b },
}).Parse(`<svg xmlns="http://www.w3.org/2000/svg" width="{{f .W}}" height="{{f .H}}" viewBox="0 0 {{f .W}} {{f .H}}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12" fill="#222">
<title>{{x .Title}}</title>
<rect width="100%" height="100%" fill="#fff"/>
<text x="{{f 78}}" y="30" font-size="18" font-weight="bold">{{x .Title}}</text>
<text x="{{f 78}}" y="52" fill="#555">{{x .Note}}</text>
<text transform="translate({{f .YLabelX}} {{f .YLabelY}}) rotate(-90)" text-anchor="middle">{{x .YLabel}}</text>
<text x="{{f .XLabelX}}" y="{{f .XLabelY}}" text-anchor="middle">{{x .XLabel}}</text>
{{- range .Panels}}
<g>
<text x="{{f .X}}" y="{{f (add .Y -12)}}" font-weight="bold">{{x .Caption}}</text>
<rect x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}" fill="none" stroke="#999"/>
{{- $p := .}}
{{- range .YTicks}}
<line x1="{{f $p.X}}" x2="{{f (add $p.X $p.W)}}" y1="{{f .Pos}}" y2="{{f .Pos}}" stroke="#e4e4e4"/>
<text x="{{f (add $p.X -6)}}" y="{{f (add .Pos 4)}}" text-anchor="end">{{x .Label}}</text>
{{- end}}
{{- range .XTicks}}
<line x1="{{f .Pos}}" x2="{{f .Pos}}" y1="{{f $p.Y}}" y2="{{f (add $p.Y $p.H)}}" stroke="#e4e4e4"/>
<text x="{{f .Pos}}" y="{{f (add (add $p.Y $p.H) 18)}}" text-anchor="middle">{{x .Label}}</text>
{{- end}}
{{- range .Lines}}
{{- $l := .}}
{{- if .Points}}
<polyline points="{{.Points}}" fill="none" stroke="{{.Color}}" stroke-width="2.5"{{if .Dash}} stroke-dasharray="{{.Dash}}"{{end}}/>
{{- end}}
{{- range .Marks}}
{{- if ne .Lo .Hi}}
<line x1="{{f .X}}" x2="{{f .X}}" y1="{{f .Lo}}" y2="{{f .Hi}}" stroke="{{$l.Color}}" stroke-width="1.5"/>
{{- end}}
<circle cx="{{f .X}}" cy="{{f .Y}}" r="4" fill="{{if $l.Hollow}}#fff{{else}}{{$l.Color}}{{end}}" stroke="{{$l.Color}}" stroke-width="2"><title>{{x .Title}}</title></circle>
{{- end}}
{{- end}}
</g>
{{- end}}
{{- range .Legend}}
<line x1="{{f .X}}" x2="{{f (add .X 28)}}" y1="{{f (add $.LegendY -4)}}" y2="{{f (add $.LegendY -4)}}" stroke="{{.Color}}" stroke-width="{{f .LineWidth}}"/>
<text x="{{f (add .X 36)}}" y="{{f $.LegendY}}">{{x .Label}}</text>
{{- end}}
{{- range .Styles}}
{{- if .Bar}}
<line x1="{{f (add .X 14)}}" x2="{{f (add .X 14)}}" y1="{{f (add $.StylesY -13)}}" y2="{{f (add $.StylesY 5)}}" stroke="{{.Color}}" stroke-width="1.5"/>
<circle cx="{{f (add .X 14)}}" cy="{{f (add $.StylesY -4)}}" r="4" fill="{{.Color}}" stroke="{{.Color}}" stroke-width="2"/>
{{- else}}
<line x1="{{f .X}}" x2="{{f (add .X 28)}}" y1="{{f (add $.StylesY -4)}}" y2="{{f (add $.StylesY -4)}}" stroke="{{.Color}}" stroke-width="{{f .LineWidth}}"{{if .Dash}} stroke-dasharray="{{.Dash}}"{{end}}/>
<circle cx="{{f (add .X 14)}}" cy="{{f (add $.StylesY -4)}}" r="4" fill="{{if .Hollow}}#fff{{else}}{{.Color}}{{end}}" stroke="{{.Color}}" stroke-width="2"/>
{{- end}}
<text x="{{f (add .X 36)}}" y="{{f $.StylesY}}">{{x .Label}}</text>
{{- end}}
<text x="{{f 78}}" y="{{f .SourceY}}" fill="#777" font-size="11">{{x .Source}}</text>
</svg>
`))

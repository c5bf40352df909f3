package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/metronome-rt/metronome/temporal"
)

// The timeline's elapsed-time axis: the spans with activity, the idle
// stretches cut out of it, and its ticks and labels.

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

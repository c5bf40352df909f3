package temporal

import (
	"slices"
	"time"

	"github.com/teambition/rrule-go"
)

// subDailySource yields the walls of a SECONDLY or MINUTELY rule with
// BYHOUR or BYMINUTE (and no BYSETPOS) without walking, as rrule-go does,
// through every second or minute that does not match: a rule that matches
// once a day would cost 86,400 steps a day, and one that matches on
// 29 February only when it is a Monday would cost 28 years of them in one
// step. rrule-go, as a DAILY rule with the same day parts, picks the days;
// the times of day are the BYHOUR × BYMINUTE (× BYSECOND for SECONDLY)
// combinations that lie on the rule's grid, DTSTART + k·INTERVAL units.
// A MINUTELY rule's BYSECOND expands each grid minute into its seconds.
type subDailySource struct {
	end      ruleEnd
	dayOpt   rrule.ROption // the DAILY rule of the days, without DTSTART
	days     rrule.Next
	start    int64   // DTSTART's wall: the grid's origin
	step     int64   // the grid's step in seconds
	after    int64   // yield only walls after this
	hours    []int64 // candidate hours, minutes and seconds of the day, sorted:
	minutes  []int64 // their combinations, in order, are the candidate
	seconds  []int64 // times of day (a MINUTELY rule's seconds: DTSTART's)
	secs     []int64 // MINUTELY: BYSECOND, sorted; nil without it
	minutely bool
	day      int64 // wall of the current day's midnight; valid while inDay
	inDay    bool
	floor    int64 // the earliest midnight the days can yield next
	ih, im   int   // the candidate: hours[ih], minutes[im], seconds[is]
	is, j    int   // and the next index in secs
	halt     *halt
}

// newSubDailySource returns the source of r (see subDailySource), or nil
// when r is not such a rule.
func newSubDailySource(r *rule, start int64, end ruleEnd, after int64, h *halt) *subDailySource {
	o := r.opt
	if len(o.Bysetpos) > 0 || len(o.Byhour)+len(o.Byminute) == 0 {
		return nil
	}
	var minutely bool
	switch r.freq {
	case rrule.SECONDLY:
	case rrule.MINUTELY:
		minutely = true
	default:
		return nil
	}
	all := func(list []int, n int) []int64 {
		var out []int64
		for i := range n {
			if len(list) == 0 || slices.Contains(list, i) {
				out = append(out, int64(i))
			}
		}
		return out
	}
	s := &subDailySource{end: end, start: start, after: after, minutely: minutely, halt: h}
	s.hours, s.minutes = all(o.Byhour, 24), all(o.Byminute, 60)
	s.step = int64(r.interval)
	if minutely {
		s.step *= 60
		_, sec := floorDiv(start, 60) // a grid minute keeps DTSTART's second
		s.seconds = []int64{sec}
		if len(o.Bysecond) > 0 {
			s.secs = all(o.Bysecond, 60)
		}
	} else {
		s.seconds = all(o.Bysecond, 60)
	}
	s.dayOpt = o
	s.dayOpt.Freq, s.dayOpt.Interval = rrule.DAILY, 1
	s.dayOpt.Byhour, s.dayOpt.Byminute, s.dayOpt.Bysecond = nil, nil, nil
	startDay, _ := floorDiv(start, 86400)
	s.startDays(startDay * 86400)
	return s
}

// startDays restarts the days at the one whose midnight is wall from.
func (s *subDailySource) startDays(from int64) {
	opt := s.dayOpt
	opt.Dtstart = time.Unix(from, 0).UTC()
	rr, err := rrule.NewRRule(opt)
	if err != nil {
		// The rule's own parts passed parseRule and rrule-go.
		panic("temporal: rrule-go refused the days of a validated rule: " + err.Error())
	}
	s.days, s.inDay, s.floor = rr.Iterator(), false, from
}

func (s *subDailySource) next() (int64, bool) {
	for {
		if !s.inDay {
			if s.halt.check() {
				return 0, false
			}
			t, ok := s.days()
			if !ok {
				return 0, false
			}
			s.day, s.inDay, s.ih, s.im, s.is, s.j = t.Unix(), true, 0, 0, 0, 0
			s.floor = s.day + 86400
		}
		w, ok := s.nextInDay()
		if !ok {
			s.inDay = false
			continue
		}
		if w <= s.after {
			continue
		}
		s.after = w
		ok, stop := s.end.admit(w)
		if stop {
			return 0, false
		}
		if ok {
			return w, true
		}
	}
}

// nextInDay returns the current day's next wall on the grid (with its
// BYSECOND expansion, MINUTELY), or false when the day has no more.
func (s *subDailySource) nextInDay() (int64, bool) {
	for s.ih < len(s.hours) {
		g := s.day + s.hours[s.ih]*3600 + s.minutes[s.im]*60 + s.seconds[s.is]
		if _, r := floorDiv(g-s.start, s.step); r == 0 {
			if s.secs == nil {
				s.advance()
				return g, true
			}
			if s.j < len(s.secs) {
				s.j++
				m, _ := floorDiv(g, 60)
				return m*60 + s.secs[s.j-1], true
			}
			s.j = 0
		}
		s.advance()
	}
	return 0, false
}

// advance moves to the next candidate time of the day.
func (s *subDailySource) advance() {
	if s.is++; s.is < len(s.seconds) {
		return
	}
	if s.is, s.im = 0, s.im+1; s.im < len(s.minutes) {
		return
	}
	s.im, s.ih = 0, s.ih+1
}

// skipTo restarts the days at w's day when that is later than the next
// one: days before it hold no wall at or after w. Under COUNT every wall
// counts, so nothing is skipped.
func (s *subDailySource) skipTo(w int64) {
	if s.end.counted {
		return
	}
	d, _ := floorDiv(w, 86400)
	if d*86400 > s.floor {
		s.startDays(d * 86400)
	}
}

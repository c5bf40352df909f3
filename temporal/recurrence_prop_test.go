package temporal

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teambition/rrule-go"
	"pgregory.net/rapid"
)

var propZones = []string{"America/New_York", "Europe/Paris", "America/Sao_Paulo", "Australia/Lord_Howe",
	"Pacific/Apia", "Asia/Kathmandu", "Australia/Sydney", "UTC"}

// drawStart draws a zone and a DTSTART a little before one of its
// transitions, so that rules cross gaps and overlaps.
func drawStart(t *rapid.T) (*Zone, LocalDateTime) {
	z, err := LoadZone(rapid.SampledFrom(propZones).Draw(t, "zone"))
	if err != nil {
		t.Fatal(err)
	}
	s := time.Date(rapid.IntRange(2008, 2030).Draw(t, "year"), 1, 1, 0, 0, 0, 0, time.UTC).Unix() +
		rapid.Int64Range(0, 365*86400).Draw(t, "into year")
	p := z.periodAt(s)
	w := s + p.off
	if p.end < farFuture {
		w = p.end + p.off - rapid.Int64Range(0, 2*86400).Draw(t, "before transition")
	}
	w -= w % 60 * int64(rapid.IntRange(0, 1).Draw(t, "whole minute")) // often on the minute
	return z, localFromWall(w, 0)
}

// drawRule draws a DAILY, HOURLY or MINUTELY rule with COUNT, sometimes
// with a BY* part (so rrule-go expands it) that DTSTART satisfies.
func drawRule(t *rapid.T, start LocalDateTime) string {
	freq := rapid.SampledFrom([]string{"DAILY", "HOURLY", "MINUTELY"}).Draw(t, "freq")
	rule := fmt.Sprintf("FREQ=%s;INTERVAL=%d;COUNT=%d", freq, rapid.IntRange(1, 7).Draw(t, "interval"), rapid.IntRange(1, 300).Draw(t, "count"))
	if rapid.Bool().Draw(t, "by") {
		// Two values, one DTSTART's; distinct, as rrule-go repeats a repeated one.
		pair := func(own, other int) string {
			if own == other {
				return fmt.Sprint(own)
			}
			return fmt.Sprintf("%d,%d", own, other)
		}
		switch freq {
		case "DAILY":
			rule += ";BYHOUR=" + pair(start.Hour, rapid.IntRange(0, 23).Draw(t, "hour"))
		case "HOURLY":
			rule += ";BYMINUTE=" + pair(start.Minute, rapid.IntRange(0, 59).Draw(t, "minute"))
		case "MINUTELY":
			rule += ";BYSECOND=" + pair(start.Second, rapid.IntRange(0, 59).Draw(t, "second"))
		}
	}
	return rule
}

// collect drains an iterator: its instants up to the first error, and that
// error.
func collect(it *RecurrenceIterator) ([]Instant, []error) {
	var out []Instant
	var errs []error
	for {
		at, ok, err := it.Next()
		if !ok {
			return out, errs
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(errs) == 0 {
			out = append(out, at)
		}
	}
}

// For random rules with COUNT the lazy iterator and Occurrences agree, and
// the output is strictly increasing.
func TestRecurrenceIteratorMatchesOccurrences(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		z, start := drawStart(t)
		rule := drawRule(t, start)
		d := Disambiguation(rapid.IntRange(0, 3).Draw(t, "disambiguation"))
		rs, err := NewRecurrenceSet(RecurrenceSpec{DTStart: start, RRules: []string{rule}})
		if err != nil {
			t.Fatal(err)
		}
		lazy, errs := collect(rs.Iterator(z, d))
		got, err := rs.Occurrences(ExpandOptions{Zone: z.ID(), Disambiguation: d})
		if len(errs) > 0 {
			if err == nil || err.Error() != errs[0].Error() {
				t.Fatalf("iterator error %v, Occurrences error %v", errs[0], err)
			}
		} else if err != nil {
			t.Fatalf("Occurrences: %v", err)
		} else if !slices.Equal(got, lazy) {
			t.Fatalf("iterator %v\noccurrences %v", strs(lazy), strs(got))
		}
		for i := 1; i < len(lazy); i++ {
			if !lazy[i-1].Before(lazy[i]) {
				t.Fatalf("not strictly increasing at %d: %s then %s", i, lazy[i-1], lazy[i])
			}
		}
	})
}

// modelWalls expands rule with rrule-go in floating UTC.
func modelWalls(t *rapid.T, start LocalDateTime, rule string) []int64 {
	opt, err := rrule.StrToROption(rule)
	if err != nil {
		t.Fatal(err)
	}
	opt.Dtstart = time.Date(start.Year, start.Month, start.Day, start.Hour, start.Minute, start.Second, 0, time.UTC)
	r, err := rrule.NewRRule(*opt)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, w := range r.All() {
		out = append(out, w.Unix())
	}
	return out
}

// model resolves each wall time with Zone.Resolve, then sorts and merges
// equal instants.
func model(t *rapid.T, z *Zone, walls []int64, d Disambiguation) []Instant {
	var out []Instant
	for _, w := range walls {
		at, err := z.Resolve(localFromWall(w, 0), d)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, at)
	}
	slices.SortFunc(out, Instant.Compare)
	return slices.Compact(out)
}

// Against the model, for every FREQ (the arithmetic fast path for rules
// without BY* parts, rrule-go otherwise), with After windows.
func TestRecurrenceMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		z, start := drawStart(t)
		var rule string
		if rapid.Bool().Draw(t, "calendar") {
			if rapid.Bool().Draw(t, "month end") {
				start.Day = rapid.IntRange(28, daysIn(start.Year, start.Month)).Draw(t, "day")
			}
			freq := rapid.SampledFrom([]string{"WEEKLY", "MONTHLY", "YEARLY"}).Draw(t, "freq")
			interval, count := rapid.IntRange(1, 5).Draw(t, "interval"), rapid.IntRange(1, 40).Draw(t, "count")
			if freq == "YEARLY" { // stay well inside the Instant range (2262)
				interval, count = min(interval, 2), min(count, 10)
			}
			rule = fmt.Sprintf("FREQ=%s;INTERVAL=%d;COUNT=%d", freq, interval, count)
		} else {
			rule = drawRule(t, start)
		}
		d := Disambiguation(rapid.IntRange(1, 3).Draw(t, "disambiguation"))
		spec := RecurrenceSpec{DTStart: start, RRules: []string{rule}}
		walls := modelWalls(t, start, rule)
		// RDATEs near DTSTART and EXDATEs among the rule's walls (any may be
		// DTSTART or an RDATE).
		for range rapid.IntRange(0, 3).Draw(t, "rdates") {
			w := start.wall() + rapid.Int64Range(-86400, 3*86400).Draw(t, "rdate")
			spec.RDates = append(spec.RDates, localFromWall(w, 0))
			walls = append(walls, w)
		}
		for range rapid.IntRange(0, 3).Draw(t, "exdates") {
			w := rapid.SampledFrom(walls).Draw(t, "exdate")
			spec.ExDates = append(spec.ExDates, localFromWall(w, 0))
			walls = slices.DeleteFunc(walls, func(x int64) bool { return x == w })
			if len(walls) == 0 {
				break
			}
		}
		rs, err := NewRecurrenceSet(spec)
		if err != nil {
			t.Fatal(err)
		}
		want := model(t, z, walls, d)
		opts := ExpandOptions{Zone: z.ID(), Disambiguation: d}
		if len(want) > 0 && rapid.Bool().Draw(t, "after") {
			i := rapid.IntRange(0, len(want)-1).Draw(t, "after index")
			opts.After = &want[i]
			want = want[i:]
		}
		got, err := rs.Occurrences(opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("rule %s from %s in %s (%v)\ngot   %v\nmodel %v", rule, start, z.ID(), d, strs(got), strs(want))
		}
	})
}

// Any rule NewRecurrenceSet accepts expands without a panic (rrule-go
// indexes its masks out of range on some inputs it accepts itself), and
// the output is strictly increasing.
func TestRecurrenceRandomRulesNeverPanic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		freq := rapid.SampledFrom([]string{"YEARLY", "MONTHLY", "WEEKLY"}).Draw(t, "freq")
		rule := "FREQ=" + freq + fmt.Sprintf(";INTERVAL=%d", rapid.IntRange(1, 3).Draw(t, "interval"))
		list := func(name string, lo, hi int, signed bool) string {
			n := rapid.IntRange(1, 3).Draw(t, name+" n")
			var vs []string
			for range n {
				v := rapid.IntRange(lo, hi).Draw(t, name)
				if signed && rapid.Bool().Draw(t, name+" sign") {
					v = -v
				}
				vs = append(vs, fmt.Sprint(v))
			}
			return ";" + name + "=" + strings.Join(vs, ",")
		}
		if rapid.Bool().Draw(t, "bymonth") {
			rule += list("BYMONTH", 1, 12, false)
		}
		if rapid.Bool().Draw(t, "bymonthday") {
			rule += list("BYMONTHDAY", 1, 31, true)
		}
		if rapid.Bool().Draw(t, "byyearday") {
			rule += list("BYYEARDAY", 1, 366, true)
		}
		if rapid.Bool().Draw(t, "byweekno") {
			rule += list("BYWEEKNO", 1, 53, true)
		}
		if rapid.Bool().Draw(t, "byday") {
			day := rapid.SampledFrom([]string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"}).Draw(t, "weekday")
			if rapid.Bool().Draw(t, "ordinal") {
				day = fmt.Sprint(rapid.IntRange(-53, 53).Draw(t, "ord")) + day
			}
			rule += ";BYDAY=" + day
		}
		if rapid.Bool().Draw(t, "byhour") {
			rule += list("BYHOUR", 0, 23, false)
		}
		if rapid.Bool().Draw(t, "bysetpos") {
			rule += list("BYSETPOS", 1, 10, true)
		}
		if rapid.Bool().Draw(t, "wkst") {
			rule += ";WKST=" + rapid.SampledFrom([]string{"MO", "SU", "TH"}).Draw(t, "wkst day")
		}
		start := LocalDateTime{Year: rapid.IntRange(1990, 2030).Draw(t, "year"), Month: time.Month(rapid.IntRange(1, 12).Draw(t, "month")), Day: rapid.IntRange(1, 28).Draw(t, "day"), Hour: 9}
		rs, err := NewRecurrenceSet(RecurrenceSpec{DTStart: start, RRules: []string{rule}})
		if err != nil {
			return // refused with an error: fine
		}
		got, err := rs.Occurrences(ExpandOptions{Zone: "Europe/Paris", Disambiguation: Compatible, Limit: 10})
		if err != nil && !errors.Is(err, ErrOverflow) { // a rare date can fall after 2262
			t.Fatalf("%s: %v", rule, err)
		}
		for i := 1; i < len(got); i++ {
			if !got[i-1].Before(got[i]) {
				t.Fatalf("%s: not increasing: %v", rule, strs(got))
			}
		}
	})
}

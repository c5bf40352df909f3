package temporal

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

const tenYears = 10 * 365 * 24 * Hour

func lookahead(t *testing.T, zone, dtstart string, rrules []string, from string, limit int) error {
	t.Helper()
	z, err := LoadZone(zone)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := NewRecurrenceSet(RecurrenceSpec{DTStart: mustLocal(t, dtstart), RRules: rrules})
	if err != nil {
		t.Fatal(err)
	}
	f := mustInstant(t, from)
	until, _ := f.Add(tenYears)
	return rs.FirstRejected(z, f, until, limit)
}

func TestFirstRejected(t *testing.T) {
	daily230 := []string{"FREQ=DAILY"}
	for _, tc := range []struct {
		name, zone, dtstart string
		rrules              []string
		from                string
		limit               int
		want                string // the rejected local time and kind, "" for none
	}{
		{"daily into the spring gap", "Europe/Paris", "2027-03-01T02:30:00", daily230, "2027-03-20T00:00:00Z", 0, "2027-03-28T02:30:00 gap"},
		{"daily after the gap meets the autumn overlap", "Europe/Paris", "2027-03-01T02:30:00", daily230, "2027-04-01T00:00:00Z", 0, "2027-10-31T02:30:00 overlap"},
		{"limit stops before the gap", "Europe/Paris", "2027-03-01T02:30:00", daily230, "2027-03-20T00:00:00Z", 8, ""},
		{"limit reaches the gap", "Europe/Paris", "2027-03-01T02:30:00", daily230, "2027-03-20T00:00:00Z", 9, "2027-03-28T02:30:00 gap"},
		{"noon never meets a transition", "Europe/Paris", "2027-03-01T12:00:00", daily230, "2027-03-20T00:00:00Z", 0, ""},
		{"a zone without DST", "Asia/Tokyo", "2027-03-01T02:30:00", daily230, "2027-03-20T00:00:00Z", 0, ""},
		{"minutely meets the first gap minute", "America/New_York", "2027-01-01T00:00:00", []string{"FREQ=MINUTELY"}, "2027-02-01T00:00:00Z", 0, "2027-03-14T02:00:00 gap"},
		{"weekly by day and hour through rrule-go", "Europe/Paris", "2027-01-03T02:30:00", []string{"FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=30"}, "2027-01-10T00:00:00Z", 0, "2027-03-28T02:30:00 gap"},
		{"a set that ends before the gap", "Europe/Paris", "2027-03-01T02:30:00", []string{"FREQ=DAILY;COUNT=20"}, "2027-03-10T00:00:00Z", 0, ""},
		{"a monthly rule meets the overlap years later", "Europe/Paris", "2027-01-31T02:30:00", []string{"FREQ=MONTHLY;BYMONTHDAY=-1"}, "2027-02-01T00:00:00Z", 0, "2027-10-31T02:30:00 overlap"},
		{"a gap past ten years is not looked for", "America/New_York", "2039-03-14T02:30:00", []string{"FREQ=YEARLY"}, "2039-01-01T00:00:00Z", 0, ""},
		{"southern hemisphere", "America/Sao_Paulo", "2027-01-01T00:30:00", daily230, "2027-01-02T00:00:00Z", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := lookahead(t, tc.zone, tc.dtstart, tc.rrules, tc.from, tc.limit)
			got := ""
			var re *ResolveError
			if errors.As(err, &re) {
				got = re.Local.String() + " " + re.Kind
			} else if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %q (%v), want %q", got, err, tc.want)
			}
		})
	}
}

// FirstRejected agrees with walking every occurrence, for random rules in
// zones with gaps and overlaps.
func TestFirstRejectedAgreesWithAWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	zones := []string{"Europe/Paris", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Europe/London", "UTC"}
	freqs := []string{"HOURLY;INTERVAL=7", "DAILY", "DAILY;BYHOUR=1,2,3", "WEEKLY;BYDAY=SA,SU", "MINUTELY;INTERVAL=37", "MONTHLY;BYMONTHDAY=1,-1"}
	for i := 0; i < 60; i++ {
		zone := zones[r.IntN(len(zones))]
		dtstart := fmt.Sprintf("2026-%02d-%02dT%02d:%02d:00", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(4)*15)
		rule := "FREQ=" + freqs[r.IntN(len(freqs))]
		limit := 0
		if r.IntN(3) == 0 {
			limit = 1 + r.IntN(3000)
		}
		t.Run(fmt.Sprintf("%s %s %s limit %d", zone, dtstart, rule, limit), func(t *testing.T) {
			z, _ := LoadZone(zone)
			rs, err := NewRecurrenceSet(RecurrenceSpec{DTStart: mustLocal(t, dtstart), RRules: []string{rule}})
			if err != nil {
				t.Fatal(err)
			}
			from := mustInstant(t, "2027-01-01T00:00:00Z")
			until, _ := from.Add(2 * 365 * 24 * Hour)
			got := rs.FirstRejected(z, from, until, limit)
			var want error
			it := rs.Iterator(z, Reject)
			it.Seek(from)
			for n := 0; limit == 0 || n < limit; {
				at, ok, err := it.Next()
				if err != nil {
					want = err
					break
				}
				if !ok || !at.Before(until) {
					break
				}
				n++
			}
			if want != nil {
				t.Log("rejects:", want)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("FirstRejected: %v\nwalk:          %v", got, want)
			}
		})
	}
}

// The check at schedule time: ten years of a minutely rule, and of a rule
// with BY* parts that rrule-go steps through.
func BenchmarkFirstRejected(b *testing.B) {
	for _, bc := range []struct{ name, dtstart, rule string }{
		{"hourly-interval-24", "2027-01-01T00:00:30", "FREQ=HOURLY;INTERVAL=24"},
		{"daily-noon", "2027-01-01T12:00:00", "FREQ=DAILY"},
		{"weekly-by-day-hour", "2027-01-03T12:00:00", "FREQ=WEEKLY;BYDAY=SU;BYHOUR=12"},
		{"minutely-by-hour", "2027-01-01T12:00:00", "FREQ=MINUTELY;BYHOUR=12"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			z, _ := LoadZone("Europe/Paris")
			rs, err := NewRecurrenceSet(RecurrenceSpec{DTStart: mustLocal(b, bc.dtstart), RRules: []string{bc.rule}})
			if err != nil {
				b.Fatal(err)
			}
			from := mustInstant(b, "2027-01-01T00:00:00Z")
			until, _ := from.Add(tenYears)
			b.ReportAllocs()
			for b.Loop() {
				if err := rs.FirstRejected(z, from, until, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

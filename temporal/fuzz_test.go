package temporal

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/internal/clip"
)

// Fuzz targets for the text a script or a config file hands to temporal.
// `make fuzz` runs each for a while; plain `go test` runs the seeds below and
// whatever testdata/fuzz/<target> holds.

// FuzzParseDuration: ParseDuration never panics; what it accepts formats
// back to text that parses to the same duration; what it refuses is an
// error that quotes the input as a duration. Every int64 count of
// nanoseconds formats to text that parses back to itself.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{
		"PT0S", "PT1H30M", "PT0.25S", "-PT1.5S", "+PT1S", "PT1,5S", "PT1H2M3.123456789S",
		"PT2562047H47M16.854775807S", "-PT2562047H47M16.854775808S", "PT2562047H47M16.854775808S",
		"P1D", "P1Y", "PT1W", "PT", "P", "", "-", "PT1.5H2M", "PT1S2M", "PT.5S", "PT1..5S", "PT1.0000000001S",
		"PT99999999999999999999H", "PT-1S", "PT1M1H", "pt1s", "PT1h",
	} {
		f.Add(s, int64(0))
	}
	f.Add("PT1S", int64(math.MaxInt64))
	f.Add("PT1S", int64(math.MinInt64))
	f.Add("PT1S", int64(-1))
	f.Add("PT1S", int64(3_600_000_000_001))
	f.Fuzz(func(t *testing.T, s string, ns int64) {
		d, err := ParseDuration(s)
		if err != nil {
			if want := "duration " + clip.Quote(s) + ": "; !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("ParseDuration(%q) error %q: want it to start %q", s, err, want)
			}
		} else if back, err := ParseDuration(d.String()); err != nil || back != d {
			t.Fatalf("ParseDuration(%q) = %d; its String %q parses to %d, %v", s, d, d.String(), back, err)
		}

		x := Duration(ns)
		if back, err := ParseDuration(x.String()); err != nil || back != x {
			t.Fatalf("Duration(%d).String() = %q parses to %d, %v", ns, x.String(), back, err)
		}
	})
}

// FuzzParseInstant: ParseInstant never panics; what it accepts formats back
// to RFC 3339 that parses to the same instant; what it refuses is an error
// that quotes the input as an instant. Every int64 instant formats to text
// that parses back to itself.
func FuzzParseInstant(f *testing.F) {
	for _, s := range []string{
		"2024-03-10T06:59:00Z", "2024-03-10T06:59:00.25Z", "2024-03-10T01:59:00-05:00",
		"2024-03-10T06:59:00+14:00", "2024-03-10T06:59:00", "2024-03-10", "1677-09-21T00:12:43.145224192Z",
		"2262-04-11T23:47:16.854775807Z", "2262-04-11T23:47:16.854775808Z", "1677-09-21T00:12:43.145224191Z",
		"2024-02-30T00:00:00Z", "2024-03-10T24:00:00Z", "2024-03-10T06:59:60Z", "2024-03-10t06:59:00z",
		"2024-03-10T06:59:00.123456789Z", "2024-03-10T06:59:00.1234567891Z", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999+23:59", "", "Z",
	} {
		f.Add(s, int64(0))
	}
	f.Add("", int64(math.MaxInt64))
	f.Add("", int64(math.MinInt64))
	f.Add("", int64(-1))
	f.Fuzz(func(t *testing.T, s string, ns int64) {
		at, err := ParseInstant(s)
		if err != nil {
			if want := "instant " + clip.Quote(s); !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("ParseInstant(%q) error %q: want it to start %q", s, err, want)
			}
		} else if back, err := ParseInstant(at.String()); err != nil || back != at {
			t.Fatalf("ParseInstant(%q) = %d; its String %q parses to %d, %v", s, at.UnixNano(), at.String(), back.UnixNano(), err)
		}

		x := FromUnixNano(ns)
		if back, err := ParseInstant(x.String()); err != nil || back != x {
			t.Fatalf("FromUnixNano(%d).String() = %q parses to %d, %v", ns, x.String(), back.UnixNano(), err)
		}
	})
}

// fuzzZones are the zones FuzzRecurrenceSet expands in: gaps and overlaps of
// an hour, half an hour (Lord Howe), a whole day (Apia, 2011), and none (UTC).
var fuzzZones = []string{"UTC", "America/New_York", "Europe/Paris", "Australia/Lord_Howe",
	"Pacific/Apia", "America/Sao_Paulo", "Asia/Kathmandu", "Europe/London"}

// maxFuzzOccurrences bounds one expansion: FREQ=SECONDLY without COUNT is
// endless.
const maxFuzzOccurrences = 64

// FuzzRecurrenceSet builds a set from fuzzed DTSTART, RRULE, RDATE and EXDATE
// text (lists comma-separated) and expands at most maxFuzzOccurrences of it
// in a zone from fuzzZones under each disambiguation. Nothing panics; a
// refused spec is a *RecurrenceError; the occurrences strictly increase;
// each one's wall time in the zone resolves (earlier or later) back to it;
// and Occurrences with the same limit returns what the iterator gave.
func FuzzRecurrenceSet(f *testing.F) {
	type seed struct{ dtstart, rrule, rdate, exdate string }
	for i, s := range []seed{
		{"2024-03-09T02:30:00", "FREQ=DAILY;COUNT=3", "", ""},
		{"2024-11-02T01:30:00", "FREQ=DAILY;COUNT=3", "", ""},
		{"2024-03-09T02:30:00", "FREQ=HOURLY;INTERVAL=1", "2024-03-10T02:15:00", "2024-03-09T05:30:00"},
		{"2024-01-01T09:00:00", "FREQ=MONTHLY;BYDAY=2TU", "", ""},
		{"2024-01-31T09:00:00", "FREQ=MONTHLY;BYMONTHDAY=31;COUNT=5", "", ""},
		{"2024-03-31T01:59:59", "FREQ=SECONDLY", "", ""},
		{"2024-10-27T01:00:00", "FREQ=MINUTELY;INTERVAL=30", "", "2024-10-27T02:30:00"},
		{"2024-02-29T12:00:00", "FREQ=YEARLY;COUNT=4", "", ""},
		{"2011-12-29T00:00:00", "FREQ=HOURLY;INTERVAL=6;UNTIL=20120101T000000", "", ""},
		{"2024-04-07T01:30:00", "RRULE:FREQ=WEEKLY;BYDAY=SU,MO;BYHOUR=1,2", "2024-04-06T02:00:00,2024-04-07T02:00:00", ""},
		{"2024-01-01T00:00:00", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", "", ""},
		{"2024-01-01T00:00:00", "FREQ=DAILY;COUNT=0", "", ""},
		{"2024-01-01T00:00:00", "FREQ=DAILY;COUNT=2;UNTIL=20250101T000000", "", ""},
		{"2024-01-01T00:00:00", "BYDAY=MO", "", ""},
		{"2024-01-01T00:00:00.5", "FREQ=DAILY", "", ""},
		{"2262-04-10T00:00:00", "FREQ=DAILY", "", ""},
		{"9999-12-31T23:00:00", "FREQ=HOURLY", "", ""},
		{"2024-01-01T00:00:00", "FREQ=YEARLY;BYSETPOS=-1;BYDAY=MO,TU;BYWEEKNO=53", "", ""},
	} {
		f.Add(s.dtstart, s.rrule, s.rdate, s.exdate, uint8(i), uint8(i))
	}
	f.Fuzz(func(t *testing.T, dtstart, rrule, rdate, exdate string, zone, dis uint8) {
		start, err := ParseLocalDateTime(dtstart)
		if err != nil {
			return
		}
		spec := RecurrenceSpec{DTStart: start}
		if rrule != "" {
			spec.RRules = strings.Split(rrule, "|")
		}
		for _, list := range []struct {
			text string
			dst  *[]LocalDateTime
		}{{rdate, &spec.RDates}, {exdate, &spec.ExDates}} {
			if list.text == "" {
				continue
			}
			for _, s := range strings.Split(list.text, ",") {
				l, err := ParseLocalDateTime(s)
				if err != nil {
					return
				}
				*list.dst = append(*list.dst, l)
			}
		}
		rs, err := NewRecurrenceSet(spec)
		if err != nil {
			var re *RecurrenceError
			if !errors.As(err, &re) {
				t.Fatalf("NewRecurrenceSet: %T %v: want a *RecurrenceError", err, err)
			}
			return
		}
		z, err := LoadZone(fuzzZones[int(zone)%len(fuzzZones)])
		if err != nil {
			t.Fatal(err)
		}
		d := Disambiguation(int(dis) % 4)
		limit := int(dis)/4%maxFuzzOccurrences + 1

		it := rs.Iterator(z, d)
		var got []Instant
		rejected := false
		for len(got) < limit {
			at, ok, err := it.Next()
			if !ok {
				break
			}
			if err != nil {
				var re *ResolveError
				if !errors.As(err, &re) {
					t.Fatalf("Next: %T %v: want a *ResolveError", err, err)
				}
				if re.Kind == "range" {
					break
				}
				if d != Reject {
					t.Fatalf("Next under %v: %v: only reject refuses a local time", d, err)
				}
				rejected = true
				continue
			}
			if n := len(got); n > 0 && !got[n-1].Before(at) {
				t.Fatalf("occurrence %d at %v does not follow %v", n+1, at, got[n-1])
			}
			l := z.LocalOf(at)
			e, errE := z.Resolve(l, Earlier)
			g, errL := z.Resolve(l, Later)
			if errE != nil || errL != nil || (e != at && g != at) {
				t.Fatalf("occurrence %v reads %v in %s, which resolves to %v (%v) or %v (%v)",
					at, l, z.ID(), e, errE, g, errL)
			}
			got = append(got, at)
		}
		if rejected || len(got) < limit {
			// Occurrences stops at the first rejected time, and a range
			// error ends the iterator early; only the plain case compares.
			return
		}
		list, err := rs.Occurrences(ExpandOptions{Zone: z.ID(), Disambiguation: d, Limit: limit})
		if err != nil {
			t.Fatalf("Occurrences(limit %d) after the iterator gave %d: %v", limit, len(got), err)
		}
		if len(list) != len(got) {
			t.Fatalf("Occurrences(limit %d) gave %d, the iterator %d", limit, len(list), len(got))
		}
		for i := range got {
			if list[i] != got[i] {
				t.Fatalf("occurrence %d: Occurrences %v, iterator %v", i+1, list[i], got[i])
			}
		}
	})
}

package temporal

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/teambition/rrule-go"
)

// set builds a recurrence set from local date-time strings.
func set(t testing.TB, dtstart string, rrules []string, more ...func(testing.TB, *RecurrenceSpec)) *RecurrenceSet {
	t.Helper()
	spec := RecurrenceSpec{DTStart: mustLocal(t, dtstart), RRules: rrules}
	for _, f := range more {
		f(t, &spec)
	}
	rs, err := NewRecurrenceSet(spec)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func rdates(ls ...string) func(testing.TB, *RecurrenceSpec) {
	return func(t testing.TB, s *RecurrenceSpec) {
		for _, l := range ls {
			s.RDates = append(s.RDates, mustLocal(t, l))
		}
	}
}

func exdates(ls ...string) func(testing.TB, *RecurrenceSpec) {
	return func(t testing.TB, s *RecurrenceSpec) {
		for _, l := range ls {
			s.ExDates = append(s.ExDates, mustLocal(t, l))
		}
	}
}

func exrules(rs ...string) func(testing.TB, *RecurrenceSpec) {
	return func(_ testing.TB, s *RecurrenceSpec) { s.ExRules = append(s.ExRules, rs...) }
}

// strs formats instants as RFC 3339 UTC.
func strs(ins []Instant) []string {
	out := []string{}
	for _, i := range ins {
		out = append(out, i.String())
	}
	return out
}

func ptr(t testing.TB, s string) *Instant {
	i := mustInstant(t, s)
	return &i
}

// expandStep expands one set with one set of options.
type expandStep struct {
	name    string
	opts    ExpandOptions
	want    []string
	wantErr string
}

func runExpand(t *testing.T, rs *RecurrenceSet, steps []expandStep) {
	t.Helper()
	for _, s := range steps {
		got, err := rs.Occurrences(s.opts)
		switch {
		case s.wantErr != "":
			if err == nil || err.Error() != s.wantErr {
				t.Errorf("%s: got %v, %v\nwant error %s", s.name, strs(got), err, s.wantErr)
			}
		case err != nil:
			t.Errorf("%s: error %v", s.name, err)
		case !slices.Equal(strs(got), s.want):
			t.Errorf("%s:\ngot  %v\nwant %v", s.name, strs(got), s.want)
		}
	}
}

// Expanding in a real zone loses the day whose midnight did not exist and
// still counts it; floating (wall-clock) expansion keeps all four.
func TestRecurrenceFloatingExpansionSaoPaulo(t *testing.T) {
	sp, _ := LoadZone("America/Sao_Paulo")
	r, err := rrule.NewRRule(rrule.ROption{Freq: rrule.DAILY, Count: 4, Dtstart: time.Date(2018, 11, 2, 0, 0, 0, 0, sp.Location())})
	if err != nil {
		t.Fatal(err)
	}
	var zoned []string
	for _, x := range r.All() {
		zoned = append(zoned, x.Format(time.RFC3339))
	}
	// The trap this package avoids: November 3 twice, November 4 lost.
	if want := []string{"2018-11-02T00:00:00-03:00", "2018-11-03T00:00:00-03:00", "2018-11-03T00:00:00-03:00", "2018-11-05T00:00:00-02:00"}; !slices.Equal(zoned, want) {
		t.Logf("rrule-go in the zone now gives %v", zoned)
	}

	rs := set(t, "2018-11-02T00:00:00", []string{"FREQ=DAILY;COUNT=4"})
	const zone = "America/Sao_Paulo"
	runExpand(t, rs, []expandStep{
		{name: "compatible", opts: ExpandOptions{Zone: zone, Disambiguation: Compatible},
			want: []string{"2018-11-02T03:00:00Z", "2018-11-03T03:00:00Z", "2018-11-04T03:00:00Z", "2018-11-05T02:00:00Z"}},
		{name: "later", opts: ExpandOptions{Zone: zone, Disambiguation: Later},
			want: []string{"2018-11-02T03:00:00Z", "2018-11-03T03:00:00Z", "2018-11-04T03:00:00Z", "2018-11-05T02:00:00Z"}},
		{name: "earlier", opts: ExpandOptions{Zone: zone, Disambiguation: Earlier},
			want: []string{"2018-11-02T03:00:00Z", "2018-11-03T03:00:00Z", "2018-11-04T02:00:00Z", "2018-11-05T02:00:00Z"}},
		{name: "reject", opts: ExpandOptions{Zone: zone},
			wantErr: "local time 2018-11-04T00:00:00 does not exist in America/Sao_Paulo (skipped by a DST gap)"},
		{name: "reject, limit before the gap", opts: ExpandOptions{Zone: zone, Limit: 2},
			want: []string{"2018-11-02T03:00:00Z", "2018-11-03T03:00:00Z"}},
	})
}

// RFC 5545: DTSTART is the first occurrence and counts toward COUNT even
// where the rule would not produce it.
func TestRecurrenceDTStartCountsTowardCount(t *testing.T) {
	// 1997-09-01 is a Monday; the rule gives Tuesdays.
	rs := set(t, "1997-09-01T09:00:00", []string{"FREQ=WEEKLY;BYDAY=TU;COUNT=3"})
	runExpand(t, rs, []expandStep{{name: "weekly on Tuesday", opts: ExpandOptions{Zone: "UTC"},
		want: []string{"1997-09-01T09:00:00Z", "1997-09-02T09:00:00Z", "1997-09-09T09:00:00Z"}}})
	// A simple rule (the arithmetic path) produces DTSTART itself: counted once.
	rs = set(t, "1997-09-01T09:00:00", []string{"FREQ=DAILY;COUNT=2"})
	runExpand(t, rs, []expandStep{{name: "daily", opts: ExpandOptions{Zone: "UTC"},
		want: []string{"1997-09-01T09:00:00Z", "1997-09-02T09:00:00Z"}}})
	rs = set(t, "1997-09-01T09:00:00", []string{"FREQ=DAILY;COUNT=1"})
	runExpand(t, rs, []expandStep{{name: "count 1", opts: ExpandOptions{Zone: "UTC"}, want: []string{"1997-09-01T09:00:00Z"}}})
	// A set with no rule at all is DTSTART.
	rs = set(t, "1997-09-01T09:00:00", nil)
	runExpand(t, rs, []expandStep{{name: "no rule", opts: ExpandOptions{Zone: "UTC"}, want: []string{"1997-09-01T09:00:00Z"}}})
	// An EXRULE is not forced to contain DTSTART.
	rs = set(t, "1997-09-01T09:00:00", []string{"FREQ=DAILY;COUNT=5"}, exrules("EXRULE:FREQ=WEEKLY;BYDAY=TU"))
	runExpand(t, rs, []expandStep{{name: "exrule of Tuesdays", opts: ExpandOptions{Zone: "UTC"},
		want: []string{"1997-09-01T09:00:00Z", "1997-09-03T09:00:00Z", "1997-09-04T09:00:00Z", "1997-09-05T09:00:00Z"}}})
}

// COUNT counts the rule's occurrences before EXDATE and EXRULE remove any.
func TestRecurrenceCountBeforeExclusions(t *testing.T) {
	rs := set(t, "1997-09-01T09:00:00", []string{"FREQ=DAILY;COUNT=5"}, exdates("1997-09-03T09:00:00", "1997-09-03T10:00:00"))
	runExpand(t, rs, []expandStep{{name: "exdate", opts: ExpandOptions{Zone: "UTC"},
		want: []string{"1997-09-01T09:00:00Z", "1997-09-02T09:00:00Z", "1997-09-04T09:00:00Z", "1997-09-05T09:00:00Z"}}})
	// The EXRULE matches DTSTART (every other day from it) and removes it.
	rs = set(t, "1997-09-01T09:00:00", []string{"FREQ=DAILY;COUNT=5"}, exrules("FREQ=DAILY;INTERVAL=2"))
	runExpand(t, rs, []expandStep{{name: "exrule", opts: ExpandOptions{Zone: "UTC"},
		want: []string{"1997-09-02T09:00:00Z", "1997-09-04T09:00:00Z"}}})
	// An EXRULE with its own COUNT stops excluding after that many.
	rs = set(t, "1997-09-01T09:00:00", []string{"FREQ=DAILY;COUNT=5"}, exrules("FREQ=DAILY;COUNT=2"))
	runExpand(t, rs, []expandStep{{name: "exrule count", opts: ExpandOptions{Zone: "UTC"},
		want: []string{"1997-09-03T09:00:00Z", "1997-09-04T09:00:00Z", "1997-09-05T09:00:00Z"}}})
}

// RDATE adds; EXDATE removes RDATE dates too; an RDATE a rule also gives is
// one occurrence.
func TestRecurrenceRDatesAndExDates(t *testing.T) {
	rs := set(t, "1997-09-01T09:00:00", []string{"FREQ=DAILY;COUNT=2"},
		rdates("1997-09-10T09:00:00", "1997-09-02T09:00:00", "1997-08-31T09:00:00", "1997-09-20T12:00:00"),
		exdates("1997-09-10T09:00:00"))
	runExpand(t, rs, []expandStep{{name: "rdates", opts: ExpandOptions{Zone: "UTC"},
		want: []string{"1997-08-31T09:00:00Z", "1997-09-01T09:00:00Z", "1997-09-02T09:00:00Z", "1997-09-20T12:00:00Z"}}})
	// EXDATE may remove DTSTART itself.
	rs = set(t, "1997-09-01T09:00:00", []string{"FREQ=DAILY;COUNT=2"}, exdates("1997-09-01T09:00:00"))
	runExpand(t, rs, []expandStep{{name: "exdate dtstart", opts: ExpandOptions{Zone: "UTC"}, want: []string{"1997-09-02T09:00:00Z"}}})
}

// Several RRULEs merge; an occurrence two rules give is one.
func TestRecurrenceSeveralRRules(t *testing.T) {
	rs := set(t, "1997-09-01T09:00:00", []string{"FREQ=WEEKLY;BYDAY=MO;COUNT=3", "RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=3", "FREQ=DAILY;INTERVAL=100;COUNT=2"})
	runExpand(t, rs, []expandStep{{name: "merged", opts: ExpandOptions{Zone: "UTC"},
		want: []string{"1997-09-01T09:00:00Z", "1997-09-03T09:00:00Z", "1997-09-08T09:00:00Z", "1997-09-15T09:00:00Z", "1997-12-10T09:00:00Z"}}})
}

// Two local times resolving to one instant give one occurrence.
func TestRecurrenceOneInstantOnce(t *testing.T) {
	// 02:00 does not exist on 2024-03-10 in New York: Compatible makes it 03:00 EDT.
	rs := set(t, "2024-03-10T01:00:00", []string{"FREQ=HOURLY;COUNT=3"})
	runExpand(t, rs, []expandStep{
		{name: "compatible", opts: ExpandOptions{Zone: "America/New_York", Disambiguation: Compatible},
			want: []string{"2024-03-10T06:00:00Z", "2024-03-10T07:00:00Z"}},
		{name: "earlier", opts: ExpandOptions{Zone: "America/New_York", Disambiguation: Earlier},
			want: []string{"2024-03-10T06:00:00Z", "2024-03-10T07:00:00Z"}},
	})
	// In an overlap the two instants of 01:30 differ; each choice takes one.
	rs = set(t, "2024-11-03T00:30:00", []string{"FREQ=HOURLY;COUNT=3"})
	runExpand(t, rs, []expandStep{
		{name: "overlap earlier", opts: ExpandOptions{Zone: "America/New_York", Disambiguation: Earlier},
			want: []string{"2024-11-03T04:30:00Z", "2024-11-03T05:30:00Z", "2024-11-03T07:30:00Z"}},
		{name: "overlap later", opts: ExpandOptions{Zone: "America/New_York", Disambiguation: Later},
			want: []string{"2024-11-03T04:30:00Z", "2024-11-03T06:30:00Z", "2024-11-03T07:30:00Z"}},
		{name: "overlap reject", opts: ExpandOptions{Zone: "America/New_York"},
			wantErr: "local time 2024-11-03T01:30:00 is ambiguous in America/New_York (repeated by a DST overlap)"},
	})
}

// With Earlier a gap time resolves before the local times preceding it;
// output stays in instant order.
func TestRecurrenceEarlierGapSorted(t *testing.T) {
	rs := set(t, "2024-03-10T01:30:00", []string{"FREQ=MINUTELY;INTERVAL=15;COUNT=7"})
	runExpand(t, rs, []expandStep{{name: "new york", opts: ExpandOptions{Zone: "America/New_York", Disambiguation: Earlier},
		want: []string{"2024-03-10T06:00:00Z", "2024-03-10T06:15:00Z", "2024-03-10T06:30:00Z", "2024-03-10T06:45:00Z", "2024-03-10T07:00:00Z"}}})

	// Apia skipped 2011-12-30: Earlier moves its 24 hours a day back, before
	// DTSTART itself.
	rs = set(t, "2011-12-29T22:00:00", []string{"FREQ=HOURLY;COUNT=27"})
	var want []string
	for h := 0; h <= 24; h++ {
		want = append(want, time.Date(2011, 12, 29, 10+h, 0, 0, 0, time.UTC).Format(time.RFC3339))
	}
	runExpand(t, rs, []expandStep{
		{name: "apia", opts: ExpandOptions{Zone: "Pacific/Apia", Disambiguation: Earlier}, want: want},
		{name: "apia limit", opts: ExpandOptions{Zone: "Pacific/Apia", Disambiguation: Earlier, Limit: 3}, want: want[:3]},
	})
	later, err := rs.Occurrences(ExpandOptions{Zone: "Pacific/Apia", Disambiguation: Later})
	if err != nil {
		t.Fatal(err)
	}
	// Later: 22:00 and 23:00 on the 29th, then the skipped day lands on the
	// 31st, 00:00 to 23:00 (+14), which the 31st's own 00:00 repeats.
	if len(later) != 26 || later[0].String() != "2011-12-30T08:00:00Z" || later[25].String() != "2011-12-31T09:00:00Z" {
		t.Errorf("later: %v", strs(later))
	}
}

// Only returned occurrences are resolved: a rejected local time beyond the
// limit or the window is no error.
func TestRecurrenceRejectOnlyReturned(t *testing.T) {
	rs := set(t, "2024-03-08T02:30:00", []string{"FREQ=DAILY"})
	const ny = "America/New_York"
	gapErr := "local time 2024-03-10T02:30:00 does not exist in America/New_York (skipped by a DST gap)"
	runExpand(t, rs, []expandStep{
		{name: "limit 2", opts: ExpandOptions{Zone: ny, Limit: 2}, want: []string{"2024-03-08T07:30:00Z", "2024-03-09T07:30:00Z"}},
		{name: "limit 3", opts: ExpandOptions{Zone: ny, Limit: 3}, wantErr: gapErr},
		{name: "before the gap", opts: ExpandOptions{Zone: ny, Before: ptr(t, "2024-03-10T00:00:00Z")},
			want: []string{"2024-03-08T07:30:00Z", "2024-03-09T07:30:00Z"}},
		{name: "before at the gap's end", opts: ExpandOptions{Zone: ny, Before: ptr(t, "2024-03-10T07:00:00Z")},
			want: []string{"2024-03-08T07:30:00Z", "2024-03-09T07:30:00Z"}},
		{name: "window after the gap", opts: ExpandOptions{Zone: ny, After: ptr(t, "2024-03-10T12:00:00Z"), Limit: 2},
			want: []string{"2024-03-11T06:30:00Z", "2024-03-12T06:30:00Z"}},
		{name: "after is inclusive", opts: ExpandOptions{Zone: ny, After: ptr(t, "2024-03-09T07:30:00Z"), Before: ptr(t, "2024-03-09T07:30:00.000000001Z")},
			want: []string{"2024-03-09T07:30:00Z"}},
		{name: "before is exclusive", opts: ExpandOptions{Zone: ny, After: ptr(t, "2024-03-09T07:30:00Z"), Before: ptr(t, "2024-03-09T07:30:00Z")},
			want: []string{}},
		{name: "compatible", opts: ExpandOptions{Zone: ny, Disambiguation: Compatible, Limit: 4},
			want: []string{"2024-03-08T07:30:00Z", "2024-03-09T07:30:00Z", "2024-03-10T07:30:00Z", "2024-03-11T06:30:00Z"}},
	})
}

// The iterator reports a rejected local time and goes on past it.
func TestRecurrenceIteratorGoesOnAfterReject(t *testing.T) {
	rs := set(t, "2024-03-08T02:30:00", []string{"FREQ=DAILY"})
	ny, _ := LoadZone("America/New_York")
	it := rs.Iterator(ny, Reject)
	type step struct {
		want    string
		wantErr string
	}
	for i, s := range []step{
		{want: "2024-03-08T07:30:00Z"},
		{want: "2024-03-09T07:30:00Z"},
		{wantErr: "local time 2024-03-10T02:30:00 does not exist in America/New_York (skipped by a DST gap)"},
		{want: "2024-03-11T06:30:00Z"},
		{want: "2024-03-12T06:30:00Z"},
	} {
		at, ok, err := it.Next()
		if !ok {
			t.Fatalf("step %d: exhausted", i)
		}
		if s.wantErr != "" {
			var re *ResolveError
			if err == nil || err.Error() != s.wantErr || !errors.As(err, &re) || re.Kind != "gap" {
				t.Errorf("step %d: got %v, %v; want %s", i, at, err, s.wantErr)
			}
			continue
		}
		if err != nil || at.String() != s.want {
			t.Errorf("step %d: got %v, %v; want %s", i, at, err, s.want)
		}
	}
}

func TestRecurrenceSeek(t *testing.T) {
	rs := set(t, "2024-03-08T02:30:00", []string{"FREQ=DAILY;COUNT=10"})
	ny, _ := LoadZone("America/New_York")
	next := func(it *RecurrenceIterator) string {
		at, ok, err := it.Next()
		if err != nil {
			return err.Error()
		}
		if !ok {
			return "exhausted"
		}
		return at.String()
	}
	it := rs.Iterator(ny, Reject)
	it.Seek(mustInstant(t, "2024-03-09T07:30:00Z")) // inclusive
	if got := next(it); got != "2024-03-09T07:30:00Z" {
		t.Errorf("after Seek: %s", got)
	}
	it.Seek(mustInstant(t, "2024-03-01T00:00:00Z")) // backwards: nothing
	// The skipped-over gap time is not an error.
	it.Seek(mustInstant(t, "2024-03-10T07:30:00Z"))
	if got := next(it); got != "2024-03-11T06:30:00Z" {
		t.Errorf("after Seek past the gap: %s", got)
	}
	// Seeking counts the skipped occurrences toward COUNT.
	it.Seek(mustInstant(t, "2024-03-17T00:00:00Z"))
	for _, want := range []string{"2024-03-17T06:30:00Z", "exhausted", "exhausted"} {
		if got := next(it); got != want {
			t.Errorf("near the end: %s, want %s", got, want)
		}
	}
	// Seek on a rule that rrule-go expands (BYHOUR) and on a monthly one.
	rs = set(t, "2024-01-01T09:00:00", []string{"FREQ=DAILY;BYHOUR=9,17"}, exrules("FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=9,17"))
	it = rs.Iterator(ny, Reject)
	it.Seek(mustInstant(t, "2024-06-01T00:00:00Z")) // a Saturday
	if got := next(it); got != "2024-06-03T13:00:00Z" {
		t.Errorf("rrule-go seek: %s", got)
	}
	rs = set(t, "2024-01-31T09:00:00", []string{"FREQ=MONTHLY"})
	it = rs.Iterator(ny, Reject)
	it.Seek(mustInstant(t, "2024-04-01T00:00:00Z"))
	if got := next(it); got != "2024-05-31T13:00:00Z" {
		t.Errorf("monthly seek: %s", got)
	}
}

// MONTHLY and YEARLY without BY* parts skip months without DTSTART's day
// and do not count them.
func TestRecurrenceCalendarSkipsInvalidDates(t *testing.T) {
	runExpand(t, set(t, "2024-01-31T09:00:00", []string{"FREQ=MONTHLY;COUNT=4"}), []expandStep{{name: "31st",
		opts: ExpandOptions{Zone: "UTC"}, want: []string{"2024-01-31T09:00:00Z", "2024-03-31T09:00:00Z", "2024-05-31T09:00:00Z", "2024-07-31T09:00:00Z"}}})
	runExpand(t, set(t, "2024-02-29T09:00:00", []string{"FREQ=YEARLY;COUNT=3"}), []expandStep{{name: "leap day",
		opts: ExpandOptions{Zone: "UTC"}, want: []string{"2024-02-29T09:00:00Z", "2028-02-29T09:00:00Z", "2032-02-29T09:00:00Z"}}})
	runExpand(t, set(t, "2096-02-29T09:00:00", []string{"FREQ=YEARLY;INTERVAL=4;COUNT=2"}), []expandStep{{name: "2100 is no leap year",
		opts: ExpandOptions{Zone: "UTC"}, want: []string{"2096-02-29T09:00:00Z", "2104-02-29T09:00:00Z"}}})
}

// UNTIL with Z compares resolved instants; without Z, wall-clock time.
func TestRecurrenceUntil(t *testing.T) {
	const ny = "America/New_York"
	// 17:00Z is 13:00 EDT: the RFC's misprinted example (see the errata).
	runExpand(t, set(t, "1997-09-02T09:00:00", []string{"FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z"}), []expandStep{{name: "utc",
		opts: ExpandOptions{Zone: ny}, want: []string{"1997-09-02T13:00:00Z", "1997-09-02T16:00:00Z"}}})
	runExpand(t, set(t, "1997-09-02T09:00:00", []string{"FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000"}), []expandStep{{name: "local",
		opts: ExpandOptions{Zone: ny}, want: []string{"1997-09-02T13:00:00Z", "1997-09-02T16:00:00Z", "1997-09-02T19:00:00Z"}}})
	// UNTIL is inclusive.
	runExpand(t, set(t, "1997-09-02T09:00:00", []string{"FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T190000Z"}), []expandStep{{name: "inclusive",
		opts: ExpandOptions{Zone: ny}, want: []string{"1997-09-02T13:00:00Z", "1997-09-02T16:00:00Z", "1997-09-02T19:00:00Z"}}})
	// A UTC UNTIL through a gap resolved Earlier: 02:30 becomes 01:30 EST
	// (06:30Z), before UNTIL, though its wall time is after 01:45's.
	runExpand(t, set(t, "2024-03-10T01:45:00", []string{"FREQ=MINUTELY;INTERVAL=45;UNTIL=20240310T064500Z"}), []expandStep{{name: "earlier gap",
		opts: ExpandOptions{Zone: ny, Disambiguation: Earlier}, want: []string{"2024-03-10T06:30:00Z", "2024-03-10T06:45:00Z"}}})
	// The rule is unbounded in wall time but bounded by UNTIL: no limit needed.
	rs := set(t, "2024-01-01T00:00:00", []string{"FREQ=DAILY;UNTIL=20240103T000000Z"})
	if !rs.Bounded() {
		t.Error("a set with UNTIL is bounded")
	}
	runExpand(t, rs, []expandStep{{name: "east of UTC", opts: ExpandOptions{Zone: "Asia/Tokyo"},
		want: []string{"2023-12-31T15:00:00Z", "2024-01-01T15:00:00Z", "2024-01-02T15:00:00Z"}}})
}

func TestRecurrenceUntilBeforeDTStart(t *testing.T) {
	for _, c := range []struct{ rule, want string }{
		{"FREQ=DAILY;UNTIL=19970901T000000", `recurrence set: rrule "FREQ=DAILY;UNTIL=19970901T000000": UNTIL 19970901T000000 is before DTSTART 1997-09-02T09:00:00: the rule would add no occurrence`},
		{"FREQ=DAILY;UNTIL=19970831T000000Z", `recurrence set: rrule "FREQ=DAILY;UNTIL=19970831T000000Z": UNTIL 19970831T000000Z is before DTSTART 1997-09-02T09:00:00: the rule would add no occurrence`},
	} {
		_, err := NewRecurrenceSet(RecurrenceSpec{DTStart: mustLocal(t, "1997-09-02T09:00:00"), RRules: []string{c.rule}})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v\nwant %s", c.rule, err, c.want)
		}
	}
	// 10:00Z is after 09:00 in Paris (07:00Z) but before it in New York
	// (13:00Z): only the zone can tell.
	rs := set(t, "1997-09-02T09:00:00", []string{"FREQ=DAILY;UNTIL=19970902T100000Z"})
	runExpand(t, rs, []expandStep{
		{name: "paris", opts: ExpandOptions{Zone: "Europe/Paris"}, want: []string{"1997-09-02T07:00:00Z"}},
		{name: "new york", opts: ExpandOptions{Zone: "America/New_York"},
			wantErr: `occurrences: rrule "FREQ=DAILY;UNTIL=19970902T100000Z": UNTIL 19970902T100000Z is before DTSTART 1997-09-02T09:00:00 in America/New_York: the rule would add no occurrence`},
	})
	ny, _ := LoadZone("America/New_York")
	it := rs.Iterator(ny, Reject)
	if _, ok, err := it.Next(); err == nil || !ok {
		t.Errorf("iterator: ok=%v err=%v, want the error", ok, err)
	}
	if _, ok, err := it.Next(); ok || err != nil {
		t.Errorf("iterator after the error: ok=%v err=%v, want exhausted", ok, err)
	}
}

func TestRecurrenceBadInputs(t *testing.T) {
	const dt = "1997-09-02T09:00:00"
	spec := func(rrules ...string) RecurrenceSpec {
		return RecurrenceSpec{DTStart: mustLocal(t, dt), RRules: rrules}
	}
	for _, c := range []struct {
		name string
		spec RecurrenceSpec
		want string
	}{
		{"no FREQ", spec("COUNT=3"), `recurrence set: rrule "COUNT=3": FREQ is required (RFC 5545), e.g. FREQ=DAILY`},
		{"COUNT=0", spec("FREQ=DAILY;COUNT=0"), `recurrence set: rrule "FREQ=DAILY;COUNT=0": COUNT must be an integer >= 1, got "0"`},
		{"COUNT<0", spec("FREQ=DAILY;COUNT=-2"), `recurrence set: rrule "FREQ=DAILY;COUNT=-2": COUNT must be an integer >= 1, got "-2"`},
		{"INTERVAL=0", spec("FREQ=DAILY;INTERVAL=0"), `recurrence set: rrule "FREQ=DAILY;INTERVAL=0": INTERVAL must be an integer >= 1, got "0"`},
		{"COUNT with UNTIL", spec("FREQ=DAILY;COUNT=3;UNTIL=19971224T000000Z"), `recurrence set: rrule "FREQ=DAILY;COUNT=3;UNTIL=19971224T000000Z": COUNT and UNTIL must not both be given (RFC 5545)`},
		{"UNTIL before DTSTART", spec("FREQ=DAILY;UNTIL=19970101T000000Z"), `recurrence set: rrule "FREQ=DAILY;UNTIL=19970101T000000Z": UNTIL 19970101T000000Z is before DTSTART 1997-09-02T09:00:00: the rule would add no occurrence`},
		{"UNTIL a date", spec("FREQ=DAILY;UNTIL=19971224"), `recurrence set: rrule "FREQ=DAILY;UNTIL=19971224": UNTIL=19971224: want a date-time such as 19971224T000000Z (UTC) or 19971224T000000 (local)`},
		{"UNTIL Feb 30", spec("FREQ=DAILY;UNTIL=19980230T000000Z"), `recurrence set: rrule "FREQ=DAILY;UNTIL=19980230T000000Z": UNTIL=19980230T000000Z: day 30 is out of range 1..28 for February 1998`},
		{"BYMONTH=13", spec("FREQ=YEARLY;BYMONTH=13"), `recurrence set: rrule "FREQ=YEARLY;BYMONTH=13": BYMONTH value 13 is out of range 1..12`},
		{"BYMONTHDAY=0", spec("FREQ=MONTHLY;BYMONTHDAY=0"), `recurrence set: rrule "FREQ=MONTHLY;BYMONTHDAY=0": BYMONTHDAY value 0 is out of range 1..31 or -31..-1`},
		{"BYHOUR=24", spec("FREQ=DAILY;BYHOUR=24"), `recurrence set: rrule "FREQ=DAILY;BYHOUR=24": BYHOUR value 24 is out of range 0..23`},
		{"BYSECOND=60", spec("FREQ=DAILY;BYSECOND=60"), `recurrence set: rrule "FREQ=DAILY;BYSECOND=60": BYSECOND value 60 is out of range 0..59`},
		{"BYYEARDAY=367", spec("FREQ=YEARLY;BYYEARDAY=367"), `recurrence set: rrule "FREQ=YEARLY;BYYEARDAY=367": BYYEARDAY value 367 is out of range 1..366 or -366..-1`},
		{"BYSETPOS alone", spec("FREQ=MONTHLY;BYSETPOS=1"), `recurrence set: rrule "FREQ=MONTHLY;BYSETPOS=1": BYSETPOS needs another BY* part to select from (RFC 5545)`},
		{"BYDAY junk", spec("FREQ=WEEKLY;BYDAY=XX"), `recurrence set: rrule "FREQ=WEEKLY;BYDAY=XX": BYDAY value "XX": want a weekday such as MO, 2TU or -1FR`},
		{"BYDAY ordinal weekly", spec("FREQ=WEEKLY;BYDAY=1MO"), `recurrence set: rrule "FREQ=WEEKLY;BYDAY=1MO": BYDAY value "1MO": an ordinal is only allowed with FREQ=MONTHLY or YEARLY (RFC 5545)`},
		{"BYDAY ordinal 6 monthly", spec("FREQ=MONTHLY;BYDAY=6MO"), `recurrence set: rrule "FREQ=MONTHLY;BYDAY=6MO": BYDAY value "6MO": within a month the ordinal must be 1..5 or -5..-1`},
		// rrule-go itself accepts this one and then indexes out of range.
		{"BYDAY ordinal 20 in a month", spec("FREQ=YEARLY;BYMONTH=1;BYDAY=-20MO"), `recurrence set: rrule "FREQ=YEARLY;BYMONTH=1;BYDAY=-20MO": BYDAY value "-20MO": within a month the ordinal must be 1..5 or -5..-1`},
		{"BYDAY ordinal 0", spec("FREQ=MONTHLY;BYDAY=0MO"), `recurrence set: rrule "FREQ=MONTHLY;BYDAY=0MO": BYDAY value "0MO": the ordinal must be 1..53 or -53..-1`},
		{"BYWEEKNO monthly", spec("FREQ=MONTHLY;BYWEEKNO=20"), `recurrence set: rrule "FREQ=MONTHLY;BYWEEKNO=20": BYWEEKNO is only allowed with FREQ=YEARLY (RFC 5545)`},
		{"BYYEARDAY daily", spec("FREQ=DAILY;BYYEARDAY=1"), `recurrence set: rrule "FREQ=DAILY;BYYEARDAY=1": BYYEARDAY is not allowed with FREQ=DAILY (RFC 5545)`},
		{"BYMONTHDAY weekly", spec("FREQ=WEEKLY;BYMONTHDAY=1"), `recurrence set: rrule "FREQ=WEEKLY;BYMONTHDAY=1": BYMONTHDAY is not allowed with FREQ=WEEKLY (RFC 5545)`},
		{"February 30", spec("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30,31"), `recurrence set: rrule "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30,31": no BYMONTHDAY value exists in the BYMONTH months: the rule would have no occurrence`},
		{"unreachable BYHOUR", spec("FREQ=HOURLY;INTERVAL=2;BYHOUR=10"), `recurrence set: rrule "FREQ=HOURLY;INTERVAL=2;BYHOUR=10": with INTERVAL=2 from DTSTART 1997-09-02T09:00:00 the HOURLY grid never reaches the BYHOUR/BYMINUTE/BYSECOND values: the rule would have no occurrence`},
		{"unknown part", spec("FREQ=YEARLY;BYEASTER=0"), `recurrence set: rrule "FREQ=YEARLY;BYEASTER=0": unknown part "BYEASTER"; want FREQ, UNTIL, COUNT, INTERVAL, BYSECOND, BYMINUTE, BYHOUR, BYDAY, BYMONTHDAY, BYYEARDAY, BYWEEKNO, BYMONTH, BYSETPOS, WKST`},
		{"unknown FREQ", spec("FREQ=FORTNIGHTLY"), `recurrence set: rrule "FREQ=FORTNIGHTLY": FREQ=FORTNIGHTLY: want SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY`},
		{"part twice", spec("FREQ=DAILY;FREQ=WEEKLY"), `recurrence set: rrule "FREQ=DAILY;FREQ=WEEKLY": FREQ is given twice`},
		{"stray ;", spec("FREQ=DAILY;;COUNT=2"), `recurrence set: rrule "FREQ=DAILY;;COUNT=2": empty part (a stray ';')`},
		{"no value", spec("FREQ=DAILY;COUNT="), `recurrence set: rrule "FREQ=DAILY;COUNT=": COUNT has no value`},
		{"empty rule", spec(""), `recurrence set: rrule "": empty rule; want FREQ=...;... such as FREQ=DAILY;COUNT=3`},
		{"wrong prefix", spec("EXRULE:FREQ=DAILY"), `recurrence set: rrule "EXRULE:FREQ=DAILY": want FREQ=...;... with an optional RRULE: prefix, got a EXRULE: prefix`},
		{"bad exrule", RecurrenceSpec{DTStart: mustLocal(t, dt), ExRules: []string{"FREQ=DAILY;INTERVAL=0"}}, `recurrence set: exrule "FREQ=DAILY;INTERVAL=0": INTERVAL must be an integer >= 1, got "0"`},
		{"no dtstart", RecurrenceSpec{RRules: []string{"FREQ=DAILY"}}, `recurrence set: dtstart: required: the first occurrence, a local date-time such as 2024-03-09T09:00:00`},
		{"dtstart fraction", RecurrenceSpec{DTStart: mustLocal(t, "2024-03-09T02:30:00.5")}, `recurrence set: dtstart "2024-03-09T02:30:00.5": a fraction of a second is not allowed (RFC 5545 DATE-TIME has whole seconds)`},
		{"dtstart invalid", RecurrenceSpec{DTStart: LocalDateTime{Year: 2024, Month: 2, Day: 30}}, `recurrence set: dtstart "2024-02-30T00:00:00": day 30 is out of range 1..29 for February 2024`},
		{"rdate fraction", RecurrenceSpec{DTStart: mustLocal(t, dt), RDates: []LocalDateTime{mustLocal(t, "1997-09-03T09:00:00.001")}}, `recurrence set: rdate "1997-09-03T09:00:00.001": a fraction of a second is not allowed (RFC 5545 DATE-TIME has whole seconds)`},
		{"exdate invalid", RecurrenceSpec{DTStart: mustLocal(t, dt), ExDates: []LocalDateTime{{Year: 1997, Month: 4, Day: 31}}}, `recurrence set: exdate "1997-04-31T00:00:00": day 31 is out of range 1..30 for April 1997`},
	} {
		_, err := NewRecurrenceSet(c.spec)
		var re *RecurrenceError
		if err == nil || err.Error() != c.want || !errors.As(err, &re) {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}

	// A dtstart with an offset or Z is refused where it is parsed.
	for _, c := range []struct{ in, want string }{
		{"2024-03-09T02:30:00Z", `local date-time "2024-03-09T02:30:00Z": a local date-time carries no offset, got "Z": drop it (the zone is given separately)`},
		{"2024-03-09T02:30:00+01:00", `local date-time "2024-03-09T02:30:00+01:00": a local date-time carries no offset, got "+01:00": drop it (the zone is given separately)`},
	} {
		if _, err := ParseLocalDateTime(c.in); err == nil || err.Error() != c.want {
			t.Errorf("dtstart %q: %v\nwant %s", c.in, err, c.want)
		}
	}

	rs := set(t, dt, []string{"FREQ=DAILY"})
	for _, c := range []struct {
		name string
		opts ExpandOptions
		want string
	}{
		{"zone empty", ExpandOptions{Limit: 1}, `occurrences: zone "": a zone id is required, an IANA name such as "Europe/Paris"; there is no host-local default`},
		{"zone Local", ExpandOptions{Zone: "Local", Limit: 1}, `occurrences: zone "Local": the host's local zone is not available; name an IANA zone such as "Europe/Paris"`},
		{"zone unknown", ExpandOptions{Zone: "Mars/Olympus", Limit: 1}, `occurrences: zone "Mars/Olympus": unknown IANA zone id (tzdata 2025c)`},
		{"unbounded", ExpandOptions{Zone: "UTC"}, `occurrences: limit: the set is unbounded (an RRULE has neither COUNT nor UNTIL): give limit or before`},
		{"unbounded with after only", ExpandOptions{Zone: "UTC", After: ptr(t, "2000-01-01T00:00:00Z")}, `occurrences: limit: the set is unbounded (an RRULE has neither COUNT nor UNTIL): give limit or before`},
		{"negative limit", ExpandOptions{Zone: "UTC", Limit: -1}, `occurrences: limit "-1": must be >= 0 (0 means no limit)`},
		{"before < after", ExpandOptions{Zone: "UTC", After: ptr(t, "2000-01-02T00:00:00Z"), Before: ptr(t, "2000-01-01T00:00:00Z")}, `occurrences: before "2000-01-01T00:00:00Z": is before after 2000-01-02T00:00:00Z`},
		{"bad disambiguation", ExpandOptions{Zone: "UTC", Limit: 1, Disambiguation: 4}, `occurrences: disambiguation "Disambiguation(4)": want Reject, Compatible, Earlier or Later`},
	} {
		_, err := rs.Occurrences(c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}
	if _, err := rs.Occurrences(ExpandOptions{Zone: "UTC"}); !errors.Is(err, ErrUnbounded) {
		t.Errorf("unbounded: %v is not ErrUnbounded", err)
	}
	if _, err := rs.Occurrences(ExpandOptions{Zone: "Mars/Olympus", Limit: 1}); !errors.Is(err, ErrUnknownZone) {
		t.Errorf("unknown zone: %v is not ErrUnknownZone", err)
	}
}

func TestRecurrenceBounded(t *testing.T) {
	for _, c := range []struct {
		rrules []string
		want   bool
	}{
		{nil, true},
		{[]string{"FREQ=DAILY;COUNT=3"}, true},
		{[]string{"FREQ=DAILY;UNTIL=20250101T000000Z"}, true},
		{[]string{"FREQ=DAILY"}, false},
		{[]string{"FREQ=DAILY;COUNT=3", "FREQ=WEEKLY"}, false},
	} {
		if got := set(t, "2024-01-01T00:00:00", c.rrules).Bounded(); got != c.want {
			t.Errorf("%v: Bounded() = %v", c.rrules, got)
		}
	}
	// An EXRULE never makes a set unbounded.
	if !set(t, "2024-01-01T00:00:00", nil, exrules("FREQ=DAILY")).Bounded() {
		t.Error("exrule made the set unbounded")
	}
}

// Occurrences after 2262 cannot be instants: an error, and the iterator ends.
func TestRecurrenceInstantRange(t *testing.T) {
	rs := set(t, "2260-06-01T00:00:00", []string{"FREQ=YEARLY;COUNT=5"})
	runExpand(t, rs, []expandStep{
		{name: "limit 2", opts: ExpandOptions{Zone: "UTC", Limit: 2}, want: []string{"2260-06-01T00:00:00Z", "2261-06-01T00:00:00Z"}},
		{name: "all", opts: ExpandOptions{Zone: "UTC"}, wantErr: "local time 2262-06-01T00:00:00 in UTC is outside the Instant range (1677-09-21 to 2262-04-11)"},
	})
	utc, _ := LoadZone("UTC")
	it := rs.Iterator(utc, Reject)
	it.Next()
	it.Next()
	if _, ok, err := it.Next(); !ok || !errors.Is(err, ErrOverflow) {
		t.Errorf("third: ok=%v err=%v", ok, err)
	}
	if _, ok, err := it.Next(); ok || err != nil {
		t.Errorf("fourth: ok=%v err=%v, want exhausted", ok, err)
	}
}

// The iterator's hot path allocates nothing.
func TestRecurrenceNextAllocs(t *testing.T) {
	rs := set(t, "2024-01-01T00:00:00", []string{"FREQ=MINUTELY"})
	ny, _ := LoadZone("America/New_York")
	it := rs.Iterator(ny, Compatible)
	it.Seek(mustInstant(t, "2024-02-01T00:00:00Z"))
	if n := testing.AllocsPerRun(10000, func() { it.Next() }); n != 0 {
		t.Errorf("Next allocates %v times", n)
	}
}

// One set, many goroutines: iterators share nothing mutable (rrule-go's
// RRule is not safe to share, so each iterator builds its own).
func TestRecurrenceConcurrentIterators(t *testing.T) {
	rs := set(t, "2024-01-01T09:00:00", []string{"FREQ=MONTHLY;BYDAY=2TU", "FREQ=DAILY;BYHOUR=9,17"})
	want, err := rs.Occurrences(ExpandOptions{Zone: "Europe/Paris", Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := rs.Occurrences(ExpandOptions{Zone: "Europe/Paris", Limit: 500})
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("concurrent expansion differs: %v", err)
			}
		}()
	}
	wg.Wait()
}

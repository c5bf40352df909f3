package temporal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	edt = "-04:00"
	est = "-05:00"
)

// at lists the zoned times clock+offset on each date; dates come from days.
func at(clock, offset string, dates ...[]string) []string {
	var out []string
	for _, ds := range dates {
		for _, d := range ds {
			out = append(out, d+"T"+clock+":00"+offset)
		}
	}
	return out
}

// days expands a month and a day list such as "2,4,10-13" into dates.
func days(month, list string) []string {
	var out []string
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, _ := strconv.Atoi(lo)
		b := a
		if isRange {
			b, _ = strconv.Atoi(hi)
		}
		for d := a; d <= b; d++ {
			out = append(out, fmt.Sprintf("%s-%02d", month, d))
		}
	}
	return out
}

// clocks lists times of day on one date and offset.
func clocks(date, offset string, hhmm ...string) []string {
	var out []string
	for _, c := range hhmm {
		out = append(out, date+"T"+c+":00"+offset)
	}
	return out
}

func cat(lists ...[]string) []string { return slices.Concat(lists...) }

// rfcCase is one example of RFC 5545 section 3.8.5.3, expanded in
// America/New_York (the RFC's DTSTART;TZID=America/New_York:...).
type rfcCase struct {
	title   string
	dtstart string
	rrules  []string
	exdates []string
	limit   int    // for rules the RFC lists as "forever"
	before  string // alternatively, an exclusive bound
	want    []string
}

var rfcExamples = []rfcCase{
	{title: "Daily for 10 occurrences", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=DAILY;COUNT=10"},
		want:   at("09:00", edt, days("1997-09", "2-11"))},
	{title: "Daily until December 24, 1997", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=DAILY;UNTIL=19971224T000000Z"},
		want: cat(at("09:00", edt, days("1997-09", "2-30"), days("1997-10", "1-25")),
			at("09:00", est, days("1997-10", "26-31"), days("1997-11", "1-30"), days("1997-12", "1-23")))},
	{title: "Every other day - forever", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=DAILY;INTERVAL=2"}, before: "1997-12-04T00:00:00Z",
		want: cat(at("09:00", edt, days("1997-09", "2,4,6,8,10,12,14,16,18,20,22,24,26,28,30"), days("1997-10", "2,4,6,8,10,12,14,16,18,20,22,24")),
			at("09:00", est, days("1997-10", "26,28,30"), days("1997-11", "1,3,5,7,9,11,13,15,17,19,21,23,25,27,29"), days("1997-12", "1,3")))},
	{title: "Every 10 days, 5 occurrences", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=DAILY;INTERVAL=10;COUNT=5"},
		want:   at("09:00", edt, days("1997-09", "2,12,22"), days("1997-10", "2,12"))},
	{title: "Every day in January, for 3 years (yearly rule)", dtstart: "1998-01-01T09:00:00",
		rrules: []string{"FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA"},
		want:   at("09:00", est, days("1998-01", "1-31"), days("1999-01", "1-31"), days("2000-01", "1-31"))},
	{title: "Every day in January, for 3 years (daily rule)", dtstart: "1998-01-01T09:00:00",
		rrules: []string{"FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1"},
		want:   at("09:00", est, days("1998-01", "1-31"), days("1999-01", "1-31"), days("2000-01", "1-31"))},
	{title: "Weekly for 10 occurrences", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=WEEKLY;COUNT=10"},
		want: cat(at("09:00", edt, days("1997-09", "2,9,16,23,30"), days("1997-10", "7,14,21")),
			at("09:00", est, days("1997-10", "28"), days("1997-11", "4")))},
	{title: "Weekly until December 24, 1997", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=WEEKLY;UNTIL=19971224T000000Z"},
		want: cat(at("09:00", edt, days("1997-09", "2,9,16,23,30"), days("1997-10", "7,14,21")),
			at("09:00", est, days("1997-10", "28"), days("1997-11", "4,11,18,25"), days("1997-12", "2,9,16,23")))},
	{title: "Every other week - forever", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=WEEKLY;INTERVAL=2;WKST=SU"}, limit: 13,
		want: cat(at("09:00", edt, days("1997-09", "2,16,30"), days("1997-10", "14")),
			at("09:00", est, days("1997-10", "28"), days("1997-11", "11,25"), days("1997-12", "9,23"),
				days("1998-01", "6,20"), days("1998-02", "3,17")))},
	{title: "Weekly on Tuesday and Thursday for five weeks (UNTIL)", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH"},
		want:   at("09:00", edt, days("1997-09", "2,4,9,11,16,18,23,25,30"), days("1997-10", "2"))},
	{title: "Weekly on Tuesday and Thursday for five weeks (COUNT)", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH"},
		want:   at("09:00", edt, days("1997-09", "2,4,9,11,16,18,23,25,30"), days("1997-10", "2"))},
	{title: "Every other week on Monday, Wednesday, and Friday until December 24, 1997, starting on Monday, September 1, 1997",
		dtstart: "1997-09-01T09:00:00",
		rrules:  []string{"FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR"},
		want: cat(at("09:00", edt, days("1997-09", "1,3,5,15,17,19,29"), days("1997-10", "1,3,13,15,17")),
			at("09:00", est, days("1997-10", "27,29,31"), days("1997-11", "10,12,14,24,26,28"), days("1997-12", "8,10,12,22")))},
	{title: "Every other week on Tuesday and Thursday, for 8 occurrences", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH"},
		want:   at("09:00", edt, days("1997-09", "2,4,16,18,30"), days("1997-10", "2,14,16"))},
	{title: "Monthly on the first Friday for 10 occurrences", dtstart: "1997-09-05T09:00:00",
		rrules: []string{"FREQ=MONTHLY;COUNT=10;BYDAY=1FR"},
		want: cat(at("09:00", edt, days("1997-09", "5"), days("1997-10", "3")),
			at("09:00", est, days("1997-11", "7"), days("1997-12", "5"), days("1998-01", "2"), days("1998-02", "6"), days("1998-03", "6"), days("1998-04", "3")),
			at("09:00", edt, days("1998-05", "1"), days("1998-06", "5")))},
	{title: "Monthly on the first Friday until December 24, 1997", dtstart: "1997-09-05T09:00:00",
		rrules: []string{"FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR"},
		want: cat(at("09:00", edt, days("1997-09", "5"), days("1997-10", "3")),
			at("09:00", est, days("1997-11", "7"), days("1997-12", "5")))},
	{title: "Every other month on the first and last Sunday of the month for 10 occurrences", dtstart: "1997-09-07T09:00:00",
		rrules: []string{"FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU"},
		want: cat(at("09:00", edt, days("1997-09", "7,28")),
			at("09:00", est, days("1997-11", "2,30"), days("1998-01", "4,25"), days("1998-03", "1,29")),
			at("09:00", edt, days("1998-05", "3,31")))},
	{title: "Monthly on the second-to-last Monday of the month for 6 months", dtstart: "1997-09-22T09:00:00",
		rrules: []string{"FREQ=MONTHLY;COUNT=6;BYDAY=-2MO"},
		want: cat(at("09:00", edt, days("1997-09", "22"), days("1997-10", "20")),
			at("09:00", est, days("1997-11", "17"), days("1997-12", "22"), days("1998-01", "19"), days("1998-02", "16")))},
	{title: "Monthly on the third-to-the-last day of the month, forever", dtstart: "1997-09-28T09:00:00",
		rrules: []string{"FREQ=MONTHLY;BYMONTHDAY=-3"}, limit: 6,
		want: cat(at("09:00", edt, days("1997-09", "28")),
			at("09:00", est, days("1997-10", "29"), days("1997-11", "28"), days("1997-12", "29"), days("1998-01", "29"), days("1998-02", "26")))},
	{title: "Monthly on the 2nd and 15th of the month for 10 occurrences", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15"},
		want: cat(at("09:00", edt, days("1997-09", "2,15"), days("1997-10", "2,15")),
			at("09:00", est, days("1997-11", "2,15"), days("1997-12", "2,15"), days("1998-01", "2,15")))},
	{title: "Monthly on the first and last day of the month for 10 occurrences", dtstart: "1997-09-30T09:00:00",
		rrules: []string{"FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1"},
		want: cat(at("09:00", edt, days("1997-09", "30"), days("1997-10", "1")),
			at("09:00", est, days("1997-10", "31"), days("1997-11", "1,30"), days("1997-12", "1,31"), days("1998-01", "1,31"), days("1998-02", "1")))},
	{title: "Every 18 months on the 10th thru 15th of the month for 10 occurrences", dtstart: "1997-09-10T09:00:00",
		rrules: []string{"FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15"},
		want:   cat(at("09:00", edt, days("1997-09", "10-15")), at("09:00", est, days("1999-03", "10-13")))},
	{title: "Every Tuesday, every other month", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=MONTHLY;INTERVAL=2;BYDAY=TU"}, limit: 18,
		want: cat(at("09:00", edt, days("1997-09", "2,9,16,23,30")),
			at("09:00", est, days("1997-11", "4,11,18,25"), days("1998-01", "6,13,20,27"), days("1998-03", "3,10,17,24,31")))},
	{title: "Yearly in June and July for 10 occurrences", dtstart: "1997-06-10T09:00:00",
		rrules: []string{"FREQ=YEARLY;COUNT=10;BYMONTH=6,7"},
		want: at("09:00", edt, days("1997-06", "10"), days("1997-07", "10"), days("1998-06", "10"), days("1998-07", "10"),
			days("1999-06", "10"), days("1999-07", "10"), days("2000-06", "10"), days("2000-07", "10"),
			days("2001-06", "10"), days("2001-07", "10"))},
	{title: "Every other year on January, February, and March for 10 occurrences", dtstart: "1997-03-10T09:00:00",
		rrules: []string{"FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3"},
		want: at("09:00", est, days("1997-03", "10"),
			days("1999-01", "10"), days("1999-02", "10"), days("1999-03", "10"),
			days("2001-01", "10"), days("2001-02", "10"), days("2001-03", "10"),
			days("2003-01", "10"), days("2003-02", "10"), days("2003-03", "10"))},
	{title: "Every third year on the 1st, 100th, and 200th day for 10 occurrences", dtstart: "1997-01-01T09:00:00",
		rrules: []string{"FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200"},
		want: cat(at("09:00", est, days("1997-01", "1")), at("09:00", edt, days("1997-04", "10"), days("1997-07", "19")),
			at("09:00", est, days("2000-01", "1")), at("09:00", edt, days("2000-04", "9"), days("2000-07", "18")),
			at("09:00", est, days("2003-01", "1")), at("09:00", edt, days("2003-04", "10"), days("2003-07", "19")),
			at("09:00", est, days("2006-01", "1")))},
	{title: "Every 20th Monday of the year, forever", dtstart: "1997-05-19T09:00:00",
		rrules: []string{"FREQ=YEARLY;BYDAY=20MO"}, limit: 3,
		want: at("09:00", edt, days("1997-05", "19"), days("1998-05", "18"), days("1999-05", "17"))},
	{title: "Monday of week number 20 (where the default start of the week is Monday), forever", dtstart: "1997-05-12T09:00:00",
		rrules: []string{"FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO"}, limit: 3,
		want: at("09:00", edt, days("1997-05", "12"), days("1998-05", "11"), days("1999-05", "17"))},
	{title: "Every Thursday in March, forever", dtstart: "1997-03-13T09:00:00",
		rrules: []string{"FREQ=YEARLY;BYMONTH=3;BYDAY=TH"}, limit: 11,
		want: at("09:00", est, days("1997-03", "13,20,27"), days("1998-03", "5,12,19,26"), days("1999-03", "4,11,18,25"))},
	{title: "Every Thursday, but only during June, July, and August, forever", dtstart: "1997-06-05T09:00:00",
		rrules: []string{"FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8"}, limit: 39,
		want: at("09:00", edt,
			days("1997-06", "5,12,19,26"), days("1997-07", "3,10,17,24,31"), days("1997-08", "7,14,21,28"),
			days("1998-06", "4,11,18,25"), days("1998-07", "2,9,16,23,30"), days("1998-08", "6,13,20,27"),
			days("1999-06", "3,10,17,24"), days("1999-07", "1,8,15,22,29"), days("1999-08", "5,12,19,26"))},
	{title: "Every Friday the 13th, forever", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13"}, exdates: []string{"1997-09-02T09:00:00"}, limit: 5,
		want: cat(at("09:00", est, days("1998-02", "13"), days("1998-03", "13"), days("1998-11", "13")),
			at("09:00", edt, days("1999-08", "13"), days("2000-10", "13")))},
	{title: "The first Saturday that follows the first Sunday of the month, forever", dtstart: "1997-09-13T09:00:00",
		rrules: []string{"FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13"}, limit: 10,
		want: cat(at("09:00", edt, days("1997-09", "13"), days("1997-10", "11")),
			at("09:00", est, days("1997-11", "8"), days("1997-12", "13"), days("1998-01", "10"), days("1998-02", "7"), days("1998-03", "7")),
			at("09:00", edt, days("1998-04", "11"), days("1998-05", "9"), days("1998-06", "13")))},
	{title: "Every 4 years, the first Tuesday after a Monday in November, forever (U.S. Presidential Election day)",
		dtstart: "1996-11-05T09:00:00",
		rrules:  []string{"FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8"}, limit: 3,
		want: at("09:00", est, days("1996-11", "5"), days("2000-11", "7"), days("2004-11", "2"))},
	{title: "The third instance into the month of one of Tuesday, Wednesday, or Thursday, for the next 3 months",
		dtstart: "1997-09-04T09:00:00",
		rrules:  []string{"FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3"},
		want:    cat(at("09:00", edt, days("1997-09", "4"), days("1997-10", "7")), at("09:00", est, days("1997-11", "6")))},
	{title: "The second-to-last weekday of the month", dtstart: "1997-09-29T09:00:00",
		rrules: []string{"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2"}, limit: 7,
		want: cat(at("09:00", edt, days("1997-09", "29")),
			at("09:00", est, days("1997-10", "30"), days("1997-11", "27"), days("1997-12", "30"),
				days("1998-01", "29"), days("1998-02", "26"), days("1998-03", "30")))},
	// The RFC prints UNTIL=19970902T170000Z, which is 13:00 EDT and would
	// stop after 12:00; its errata correct UNTIL to 19970902T210000Z (17:00
	// EDT), matching the listed 09:00, 12:00, 15:00.
	{title: "Every 3 hours from 9:00 AM to 5:00 PM on a specific day", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T210000Z"},
		want:   clocks("1997-09-02", edt, "09:00", "12:00", "15:00")},
	{title: "Every 15 minutes for 6 occurrences", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=MINUTELY;INTERVAL=15;COUNT=6"},
		want:   clocks("1997-09-02", edt, "09:00", "09:15", "09:30", "09:45", "10:00", "10:15")},
	{title: "Every hour and a half for 4 occurrences", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=MINUTELY;INTERVAL=90;COUNT=4"},
		want:   clocks("1997-09-02", edt, "09:00", "10:30", "12:00", "13:30")},
	{title: "Every 20 minutes from 9:00 AM to 4:40 PM every day (daily rule)", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40"}, limit: 48,
		want: cat(clocks("1997-09-02", edt, nineToFour()...), clocks("1997-09-03", edt, nineToFour()...))},
	{title: "Every 20 minutes from 9:00 AM to 4:40 PM every day (minutely rule)", dtstart: "1997-09-02T09:00:00",
		rrules: []string{"FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16"}, limit: 48,
		want: cat(clocks("1997-09-02", edt, nineToFour()...), clocks("1997-09-03", edt, nineToFour()...))},
	{title: "An example where the days generated makes a difference because of WKST (WKST=MO)", dtstart: "1997-08-05T09:00:00",
		rrules: []string{"FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO"},
		want:   at("09:00", edt, days("1997-08", "5,10,19,24"))},
	{title: "An example where the days generated makes a difference because of WKST (WKST=SU)", dtstart: "1997-08-05T09:00:00",
		rrules: []string{"FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU"},
		want:   at("09:00", edt, days("1997-08", "5,17,19,31"))},
	{title: "An example where an invalid date (i.e., February 30) is ignored", dtstart: "2007-01-15T09:00:00",
		rrules: []string{"FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5"},
		want:   cat(at("09:00", est, days("2007-01", "15,30"), days("2007-02", "15")), at("09:00", edt, days("2007-03", "15,30")))},
}

// nineToFour is 9:00, 9:20, ... 16:40.
func nineToFour() []string {
	var out []string
	for h := 9; h <= 16; h++ {
		for _, m := range []int{0, 20, 40} {
			out = append(out, fmt.Sprintf("%02d:%02d", h, m))
		}
	}
	return out
}

func mustLocal(t testing.TB, s string) LocalDateTime {
	t.Helper()
	l, err := ParseLocalDateTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func mustInstant(t testing.TB, s string) Instant {
	t.Helper()
	i, err := ParseInstant(s)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// zoned formats instants as RFC 3339 with their offset in zone.
func zoned(t testing.TB, zone string, ins []Instant) []string {
	t.Helper()
	z, err := LoadZone(zone)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, i := range ins {
		out = append(out, i.Time().In(z.Location()).Format(time.RFC3339))
	}
	return out
}

func TestRFC5545Examples(t *testing.T) {
	for _, c := range rfcExamples {
		t.Run(c.title, func(t *testing.T) {
			spec := RecurrenceSpec{DTStart: mustLocal(t, c.dtstart), RRules: c.rrules}
			for _, x := range c.exdates {
				spec.ExDates = append(spec.ExDates, mustLocal(t, x))
			}
			rs, err := NewRecurrenceSet(spec)
			if err != nil {
				t.Fatal(err)
			}
			opts := ExpandOptions{Zone: "America/New_York", Limit: c.limit}
			if c.before != "" {
				b := mustInstant(t, c.before)
				opts.Before = &b
			}
			got, err := rs.Occurrences(opts)
			if err != nil {
				t.Fatal(err)
			}
			if g := zoned(t, "America/New_York", got); !slices.Equal(g, c.want) {
				t.Errorf("got  %d %v\nwant %d %v", len(g), g, len(c.want), c.want)
			}
			// The lazy iterator agrees.
			z, _ := LoadZone("America/New_York")
			it := rs.Iterator(z, Reject)
			var lazy []Instant
			for len(lazy) < len(got) {
				at, ok, err := it.Next()
				if err != nil || !ok {
					t.Fatalf("Next after %d: ok=%v err=%v", len(lazy), ok, err)
				}
				lazy = append(lazy, at)
			}
			if !slices.Equal(lazy, got) {
				t.Errorf("iterator %v\noccurrences %v", lazy, got)
			}
		})
	}
}

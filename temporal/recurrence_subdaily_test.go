package temporal

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/teambition/rrule-go"
)

// rruleGoSource is the rule's source as rrule-go alone expands it.
func rruleGoSource(t *testing.T, rs *RecurrenceSet, r *rule, forced bool) wallSource {
	t.Helper()
	end := ruleEnd{counted: r.count > 0, left: int64(r.count), until: r.until}
	if forced {
		end.left--
	}
	opt := r.opt
	ds := rs.dtstart
	opt.Dtstart = time.Date(ds.Year, ds.Month, ds.Day, ds.Hour, ds.Minute, ds.Second, 0, time.UTC)
	rr, err := rrule.NewRRule(opt)
	if err != nil {
		t.Fatal(err)
	}
	src := &rruleSource{end: end, gen: rr.Iterator(), halt: &halt{}, after: math.MinInt64}
	if forced {
		src.after = rs.start
	}
	return src
}

// SECONDLY and MINUTELY rules with BYHOUR or BYMINUTE give the walls
// rrule-go gives (their first 300, within 40 days), as RRULE and as
// EXRULE, with COUNT and UNTIL, across day parts, intervals that do and do
// not divide a day, and DTSTARTs off the minute.
func TestSubDailySourceMatchesRRuleGo(t *testing.T) {
	rules := []string{
		"FREQ=SECONDLY;BYHOUR=12;BYMINUTE=0;BYSECOND=0",
		"FREQ=SECONDLY;BYHOUR=0,12,23;BYSECOND=59",
		"FREQ=SECONDLY;BYHOUR=22,23;BYMONTHDAY=1",
		"FREQ=SECONDLY;INTERVAL=7;BYMINUTE=5,6;BYSECOND=1,2,3,4,5,6,7",
		"FREQ=SECONDLY;INTERVAL=86401;BYHOUR=3;BYMINUTE=0,1,2,3,4,5,6,7,8,9",
		"FREQ=SECONDLY;INTERVAL=90;BYMINUTE=0,30;COUNT=50",
		"FREQ=SECONDLY;BYHOUR=9;BYMINUTE=30;BYDAY=MO,FR;BYMONTH=1,7",
		"FREQ=SECONDLY;BYHOUR=9;BYMINUTE=30;BYSECOND=0;BYMONTHDAY=-1,15",
		"FREQ=SECONDLY;BYHOUR=9;BYMINUTE=30;BYSECOND=0;BYYEARDAY=1,-1,60,100",
		"FREQ=SECONDLY;BYHOUR=23;BYMINUTE=59;BYSECOND=59;UNTIL=20250301T000000",
		"FREQ=MINUTELY;BYHOUR=12",
		"FREQ=MINUTELY;INTERVAL=7;BYHOUR=1,2;BYSECOND=0,15,59",
		"FREQ=MINUTELY;INTERVAL=1441;BYMINUTE=0,1,2,3,4,5,6,7,8,9",
		"FREQ=MINUTELY;BYMINUTE=0;BYSECOND=10,20;BYDAY=SA,SU;COUNT=40",
		"FREQ=MINUTELY;BYHOUR=0,23;BYMINUTE=59;BYMONTH=2;BYMONTHDAY=28,29",
		"FREQ=MINUTELY;INTERVAL=13;BYHOUR=5;BYYEARDAY=-1;UNTIL=20300101T000000",
	}
	starts := []string{"2024-01-01T00:00:00", "2024-02-28T12:34:56", "2023-12-31T23:59:07", "1969-12-31T23:00:30"}
	for _, text := range rules {
		for _, start := range starts {
			dt, err := ParseLocalDateTime(start)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := NewRecurrenceSet(RecurrenceSpec{DTStart: dt, RRules: []string{text}, ExRules: []string{text}})
			if err != nil {
				t.Logf("%s from %s: %v", text, start, err) // an unreachable grid
				continue
			}
			for i, forced := range []bool{true, false} {
				r := rs.rules[0]
				if !forced {
					r = rs.exrules[0]
				}
				ours := rs.source(r, forced, nil, Compatible, &halt{})
				if _, ok := ours.(*subDailySource); !ok {
					t.Fatalf("%s: a %T, not a subDailySource", text, ours)
				}
				theirs := rruleGoSource(t, rs, r, forced)
				name := fmt.Sprintf("%s from %s (%s)", text, start, []string{"RRULE", "EXRULE"}[i])
				for n := 0; n < 300; n++ {
					w1, ok1 := ours.next()
					w2, ok2 := theirs.next()
					if w1 != w2 || ok1 != ok2 {
						t.Errorf("%s: wall %d: %v %v, rrule-go %v %v", name, n, localFromWall(w1, 0), ok1, localFromWall(w2, 0), ok2)
						break
					}
					if !ok1 || w1 > rs.start+40*86400 {
						break // rrule-go takes long over rare days
					}
				}
			}
		}
	}
}

// After skips whole days of a sub-daily rule: the occurrences from After
// are those of the full expansion that are not before it.
func TestSubDailySourceSeek(t *testing.T) {
	for _, text := range []string{
		"FREQ=SECONDLY;BYHOUR=12;BYMINUTE=0;BYSECOND=0",
		"FREQ=SECONDLY;INTERVAL=7;BYHOUR=5;BYMINUTE=5,6;BYDAY=TU",
		"FREQ=MINUTELY;INTERVAL=1441;BYMINUTE=0,1,2,3,4,5,6,7,8,9",
		"FREQ=MINUTELY;BYHOUR=0,23;BYMINUTE=59;BYSECOND=1,2;BYMONTHDAY=1,-1",
	} {
		rs := set(t, "2024-02-28T12:34:56", []string{text})
		all, err := rs.Occurrences(ExpandOptions{Zone: "Europe/Paris", Disambiguation: Compatible, Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{1, 17, 100, 150} {
			after := all[i]
			if i%2 == 1 {
				after = Instant{ns: after.ns - 1}
			}
			got, err := rs.Occurrences(ExpandOptions{Zone: "Europe/Paris", Disambiguation: Compatible, Limit: 20, After: &after})
			if err != nil {
				t.Fatal(err)
			}
			want := all[i : i+20]
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s after %v:\n got %v\nwant %v", text, after, got, want)
			}
		}
	}
}

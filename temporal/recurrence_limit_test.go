package temporal

import (
	"errors"
	"testing"
)

// An expansion that would return more than MaxOccurrences is refused
// instead of filling memory: FREQ=SECONDLY a century ahead used to end the
// process (Go's fatal out of memory). Exactly MaxOccurrences is allowed.
func TestOccurrencesRefusesMoreThanMaxOccurrences(t *testing.T) {
	rs := set(t, "2024-01-01T00:00:00", []string{"FREQ=SECONDLY"})
	start, err := ParseInstant("2024-01-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	century, err := start.Add(100 * 365 * 24 * Hour)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := start.Add(MaxOccurrences * Second)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opts ExpandOptions
		want string // "" for MaxOccurrences occurrences
	}{
		{"a century of seconds", ExpandOptions{Zone: "UTC", Before: &century},
			"occurrences: before: more than 1000000 occurrences: give a smaller limit or an earlier before"},
		{"a limit past the bound", ExpandOptions{Zone: "UTC", Limit: 1 << 40},
			"occurrences: limit: more than 1000000 occurrences: give a smaller limit or an earlier before"},
		{"a limit past the bound and a far before", ExpandOptions{Zone: "UTC", Limit: 1 << 40, Before: &century},
			"occurrences: before: more than 1000000 occurrences: give a smaller limit or an earlier before"},
		{"exactly the bound by before", ExpandOptions{Zone: "UTC", Before: &exact}, ""},
		{"exactly the bound by limit", ExpandOptions{Zone: "UTC", Limit: MaxOccurrences, Before: &century}, ""},
	}
	for _, c := range cases {
		got, err := rs.Occurrences(c.opts)
		if c.want == "" {
			if err != nil || len(got) != MaxOccurrences {
				t.Errorf("%s: %d occurrences, error %v; want %d", c.name, len(got), err, MaxOccurrences)
			}
			continue
		}
		var re *RecurrenceError
		if !errors.Is(err, ErrTooManyOccurrences) || !errors.As(err, &re) || err.Error() != c.want || got != nil {
			t.Errorf("%s: %d occurrences, error %v; want %q", c.name, len(got), err, c.want)
		}
	}
}

// Stop ends an expansion between steps, whether they are rrule-go's (a
// rule it expands a minute at a time, a million occurrences or two
// centuries skipped to reach After) or days of a rule that matches once a
// day. A Stop that never says stop changes nothing.
func TestOccurrencesStop(t *testing.T) {
	rs := set(t, "2024-01-01T00:00:00", []string{"FREQ=SECONDLY;BYHOUR=12;BYMINUTE=0;BYSECOND=0"})
	minutely := set(t, "2024-01-01T00:00:00", []string{"FREQ=MINUTELY;BYSECOND=0,30"})
	after, err := ParseInstant("2250-01-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		rs   *RecurrenceSet
		opts ExpandOptions
	}{
		{"once a day", rs, ExpandOptions{Zone: "UTC", Limit: MaxOccurrences}},
		{"rrule-go", minutely, ExpandOptions{Zone: "UTC", Limit: MaxOccurrences}},
		{"rrule-go after", minutely, ExpandOptions{Zone: "UTC", Limit: 1, After: &after}},
	} {
		calls := 0
		c.opts.Stop = func() bool { calls++; return calls > 10 }
		got, err := c.rs.Occurrences(c.opts)
		if !errors.Is(err, ErrStopped) || got != nil {
			t.Errorf("%s: %d occurrences, error %v; want ErrStopped", c.name, len(got), err)
		}
		if calls != 11 {
			t.Errorf("%s: Stop called %d times; want 11, the last said stop", c.name, calls)
		}
	}
	want, err := rs.Occurrences(ExpandOptions{Zone: "UTC", Limit: 40})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	got, err := rs.Occurrences(ExpandOptions{Zone: "UTC", Limit: 40, Stop: func() bool { calls++; return false }})
	if err != nil || len(got) != len(want) || got[39] != want[39] || calls == 0 {
		t.Errorf("a Stop that never stops: %d occurrences, error %v, %d calls; want %d", len(got), err, calls, len(want))
	}
}

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

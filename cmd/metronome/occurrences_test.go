package main

import (
	"context"
	"strings"
	"testing"
)

func TestOccurrencesPreview(t *testing.T) {
	daily := []string{"occurrences", "--dtstart", "2024-03-08T02:30:00", "--rrule", "FREQ=DAILY", "--zone", "America/New_York", "--count", "4"}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"reject lists the gap as refused and fails", daily, 1, `
   1  2024-03-08T02:30:00-05:00[America/New_York] 2024-03-08T07:30:00Z
   2  2024-03-09T02:30:00-05:00[America/New_York] 2024-03-09T07:30:00Z
   -  refused: local time 2024-03-10T02:30:00 does not exist (a gap) in America/New_York
   3  2024-03-11T02:30:00-04:00[America/New_York] 2024-03-11T06:30:00Z
   4  2024-03-12T02:30:00-04:00[America/New_York] 2024-03-12T06:30:00Z
`, "metronome occurrences: local time 2024-03-10T02:30:00 refused under --disambiguation reject: give compatible, earlier or later\n"},
		{"compatible moves it", append(daily, "--disambiguation", "compatible"), 0, `
   1  2024-03-08T02:30:00-05:00[America/New_York] 2024-03-08T07:30:00Z
   2  2024-03-09T02:30:00-05:00[America/New_York] 2024-03-09T07:30:00Z
   3  2024-03-10T03:30:00-04:00[America/New_York] 2024-03-10T07:30:00Z  (local time 2024-03-10T02:30:00 does not exist (a gap); compatible gives this instant)
   4  2024-03-11T02:30:00-04:00[America/New_York] 2024-03-11T06:30:00Z
`, ""},
		{"an overlap, until a local time, with an exdate", []string{"occurrences", "--dtstart", "2024-11-01T01:30:00", "--rrule", "FREQ=DAILY",
			"--exdate", "2024-11-02T01:30:00", "--zone", "America/New_York", "--until", "2024-11-05T00:00:00", "--disambiguation", "earlier"}, 0, `
   1  2024-11-01T01:30:00-04:00[America/New_York] 2024-11-01T05:30:00Z
   2  2024-11-03T01:30:00-04:00[America/New_York] 2024-11-03T05:30:00Z  (local time 2024-11-03T01:30:00 is ambiguous (an overlap); earlier gives this instant)
   3  2024-11-04T01:30:00-05:00[America/New_York] 2024-11-04T06:30:00Z
`, ""},
		{"dates only, ended by the set", []string{"occurrences", "--dtstart", "2024-01-01T09:00:00", "--rdate", "2024-02-01T09:00:00", "--zone", "Europe/Paris"}, 0, `
   1  2024-01-01T09:00:00+01:00[Europe/Paris]  2024-01-01T08:00:00Z
   2  2024-02-01T09:00:00+01:00[Europe/Paris]  2024-02-01T08:00:00Z
`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, context.Background(), tc.args...)
			if code != tc.code || stdout != strings.TrimPrefix(tc.stdout, "\n") || stderr != tc.stderr {
				t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
		})
	}
}

func TestOccurrencesBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--zone", "UTC"}, "occurrences needs --dtstart and --zone"},
		{[]string{"--dtstart", "2024-01-01T00:00:00Z", "--zone", "UTC"}, "--dtstart:"},
		{[]string{"--dtstart", "2024-01-01T00:00:00", "--zone", "Mars/Olympus"}, `--zone: zone "Mars/Olympus"`},
		{[]string{"--dtstart", "2024-01-01T00:00:00", "--zone", "UTC", "--rrule", "FREQ=SOMETIMES"}, "FREQ"},
		{[]string{"--dtstart", "2024-01-01T00:00:00", "--zone", "UTC", "--disambiguation", "latest"}, "--disambiguation:"},
		{[]string{"--dtstart", "2024-01-01T00:00:00", "--zone", "UTC", "--count", "-1"}, "--count: want an integer >= 1, got -1"},
		{[]string{"--dtstart", "2024-01-01T00:00:00", "--zone", "UTC", "--until", "soon"}, "--until: want an instant"},
		{[]string{"--dtstart", "2024-01-01T00:00:00", "--zone", "UTC", "extra"}, "occurrences takes no arguments, got extra"},
	} {
		code, _, stderr := cli(t, context.Background(), append([]string{"occurrences"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

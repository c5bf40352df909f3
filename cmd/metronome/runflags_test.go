package main

import (
	"testing"

	"github.com/metronome-rt/metronome/temporal"
)

// --until reads ISO 8601 and time.ParseDuration's form, to the nanosecond.
func TestParseSpan(t *testing.T) {
	const want = "want an ISO 8601 duration (PT1H30M) or a short one (90s, 5m, 2h, 1h30m)"
	for _, tc := range []struct {
		in  string
		d   temporal.Duration
		err string
	}{
		{in: "90s", d: 90 * temporal.Second},
		{in: "1h30m", d: 90 * temporal.Minute},
		{in: "5m1h", d: 65 * temporal.Minute}, // ParseDuration adds units in any order
		{in: "1.5m", d: 90 * temporal.Second},
		{in: "250ms", d: 250 * temporal.Millisecond},
		{in: "1.5ms", d: 1500 * temporal.Microsecond},
		{in: "2us", d: 2 * temporal.Microsecond},
		{in: "2µs", d: 2 * temporal.Microsecond},
		{in: "1ns", d: 1},
		{in: "+2h", d: 2 * temporal.Hour},
		{in: "1.000000001s", d: temporal.Second + 1},
		{in: "0.0000000000001h", d: 0, err: "0.0000000000001h is not a whole number of nanoseconds"},
		{in: "2562047h", d: 2562047 * temporal.Hour},
		{in: "PT1H30M", d: 90 * temporal.Minute},
		{in: "PT2M30.5S", d: 150*temporal.Second + 500*temporal.Millisecond},
		{in: "PT0.000000001S", d: 1},

		{in: "", err: want},
		{in: "soon", err: want},
		{in: "90", err: want},
		{in: "1d", err: want},
		{in: "1h 30m", err: want},
		{in: "3000000h", err: want}, // past int64 nanoseconds
		{in: "1.5ns", err: "1.5ns is not a whole number of nanoseconds"},
		{in: "1.0000000001s", err: "1.0000000001s is not a whole number of nanoseconds"},
		{in: "0", err: "want a duration > 0, got 0"},
		{in: "0s", err: "want a duration > 0, got 0s"},
		{in: "-5m", err: "want a duration > 0, got -5m"},
		{in: "PT0S", err: "want a duration > 0, got PT0S"},
		{in: "-PT1H", err: "want a duration > 0, got -PT1H"},
		{in: "P1D", err: "calendar unit 'D' is not an exact length; use hours, minutes and seconds (PT...)"},
	} {
		d, err := parseSpan(tc.in)
		switch {
		case tc.err == "" && (err != nil || d != tc.d):
			t.Errorf("parseSpan(%q) = %v, %v; want %v", tc.in, d, err, tc.d)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("parseSpan(%q) = %v, %v; want error %q", tc.in, d, err, tc.err)
		}
	}
}

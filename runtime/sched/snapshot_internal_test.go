package sched

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/metronome-rt/metronome/temporal"
)

// TestDurationTextIsDurationString: the snapshot's duration text is
// temporal's, for any int64.
func TestDurationTextIsDurationString(t *testing.T) {
	for _, d := range []int64{0, 1, -1, 1e9, 4500e6, 3600e9 + 1, math.MaxInt64, math.MinInt64, -90e9} {
		if got, want := durationText(d), temporal.Duration(d).String(); got != want {
			t.Errorf("durationText(%d) = %q, want %q", d, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.Int64().Draw(t, "d")
		if got, want := durationText(d), temporal.Duration(d).String(); got != want {
			t.Fatalf("durationText(%d) = %q, want %q", d, got, want)
		}
	})
}

package hostservices_test

import (
	"errors"
	"math"
	"testing"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/temporal"
)

// hostSnapshot is what a refused Update must leave as it was.
type hostSnapshot struct {
	now         temporal.Instant
	elapsed     temporal.Duration
	pending     int
	fired, runs int
}

// FuzzUpdateDelta feeds Update two fuzzed frame deltas on a host whose epoch
// is fuzzed too. Update never panics; it fails exactly when temporal.Millis
// refuses the delta (NaN, ±Inf, negative, beyond int64 ns) or the frame
// would carry the host's time past int64 nanoseconds; a failure is a
// *temporal.OptionError and changes nothing. A paused host changes nothing
// either; a running one moves by exactly the delta, runs the job once it is
// due, and runs its facet once.
func FuzzUpdateDelta(f *testing.F) {
	f.Add(int64(0), false, 16.0, 16.6)
	f.Add(int64(0), false, 5.0, 0.0)
	f.Add(int64(0), false, math.NaN(), 1.0)
	f.Add(int64(0), false, math.Inf(1), math.Inf(-1))
	f.Add(int64(0), false, -1.0, math.Copysign(0, -1))
	f.Add(int64(0), false, 9.223372036854775e12, 1.0)
	f.Add(int64(0), false, 9.2233720368547e12, 0.001)
	f.Add(int64(math.MaxInt64-1e9), false, 999.0, 1.0)
	f.Add(int64(math.MinInt64), false, 9.2e12, 9.2e12)
	f.Add(int64(0), true, 16.0, -1.0)
	f.Add(int64(0), true, math.NaN(), 4.9999999)
	f.Add(int64(0), false, 4.9999995, 5e-7)
	f.Add(int64(0), false, math.SmallestNonzeroFloat64, math.MaxFloat64)
	f.Fuzz(func(t *testing.T, epoch int64, paused bool, first, second float64) {
		h := hostservices.New(temporal.Fixed(temporal.FromUnixNano(epoch)))
		var s hostSnapshot
		const jobAt = 5 * temporal.Millisecond
		if _, err := h.ScheduleOnce(jobAt, func() error { s.fired++; return nil }); err != nil {
			// Only an epoch within 5 ms of the end of time refuses it.
			if epoch < math.MaxInt64-int64(jobAt) {
				t.Fatalf("ScheduleOnce(5ms) at epoch %d: %v", epoch, err)
			}
			return
		}
		if err := h.Register("count", hostservices.FacetFunc(func(float64) error { s.runs++; return nil })); err != nil {
			t.Fatal(err)
		}
		h.SetPaused(paused)
		snap := func() hostSnapshot {
			return hostSnapshot{h.Now(), h.Scheduler().Elapsed(), h.Scheduler().Count(), s.fired, s.runs}
		}
		maxElapsed := temporal.Duration(math.MaxInt64 - max(epoch, 0))
		for _, delta := range []float64{first, second} {
			before := snap()
			d, ok := temporal.Millis(delta)
			fits := ok && d <= maxElapsed-before.elapsed
			err := h.Update(delta)
			after := snap()
			if fits != (err == nil) {
				t.Fatalf("Update(%v) after %v: error %v; Millis ok %v, fits %v", delta, before.elapsed, err, ok, fits)
			}
			if err != nil {
				var oe *temporal.OptionError
				if !errors.As(err, &oe) {
					t.Fatalf("Update(%v): %T %v: want a *temporal.OptionError", delta, err, err)
				}
				if after != before {
					t.Fatalf("Update(%v) failed with %v but changed the host: %+v -> %+v", delta, err, before, after)
				}
				continue
			}
			if paused {
				if after != before {
					t.Fatalf("paused Update(%v) changed the host: %+v -> %+v", delta, before, after)
				}
				continue
			}
			want := before
			want.elapsed += d
			want.now = temporal.FromUnixNano(epoch + int64(want.elapsed))
			want.runs++
			if before.pending == 1 && want.elapsed >= jobAt {
				want.pending, want.fired = 0, 1
			}
			if after != want {
				t.Fatalf("Update(%v) from %+v: got %+v, want %+v", delta, before, after, want)
			}
		}
	})
}

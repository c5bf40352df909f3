package temporal

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestDurationOfSumsFieldsExactly(t *testing.T) {
	cases := []struct {
		f    DurationFields
		want Duration
	}{
		{DurationFields{Seconds: 1, Milliseconds: 500}, 1500 * Millisecond},
		{DurationFields{Hours: 1, Minutes: -30}, 30 * Minute},
		{DurationFields{Nanoseconds: 1}, 1},
		{DurationFields{}, 0},
		{DurationFields{Hours: 2562047}, 2562047 * Hour},
	}
	for _, c := range cases {
		got, err := DurationOf(c.f)
		if err != nil || got != c.want {
			t.Errorf("DurationOf(%+v) = %v, %v; want %v", c.f, got, err, c.want)
		}
	}
}

func TestDurationOfOverflowIsAnError(t *testing.T) {
	for _, f := range []DurationFields{
		{Hours: 2562048},
		{Seconds: math.MaxInt64},
		{Nanoseconds: math.MaxInt64, Microseconds: 1},
	} {
		if _, err := DurationOf(f); !errors.Is(err, ErrOverflow) {
			t.Errorf("DurationOf(%+v) error = %v, want ErrOverflow", f, err)
		}
	}
}

func TestCheckedArithmetic(t *testing.T) {
	max, min := Duration(math.MaxInt64), Duration(math.MinInt64)
	if _, err := max.Add(1); !errors.Is(err, ErrOverflow) {
		t.Error("MaxInt64+1 did not overflow")
	}
	if _, err := min.Sub(1); !errors.Is(err, ErrOverflow) {
		t.Error("MinInt64-1 did not overflow")
	}
	if _, err := min.Neg(); !errors.Is(err, ErrOverflow) {
		t.Error("-MinInt64 did not overflow")
	}
	if _, err := (Hour).Mul(1 << 40); !errors.Is(err, ErrOverflow) {
		t.Error("Hour*2^40 did not overflow")
	}
	if _, err := Duration(-1).Mul(math.MinInt64); !errors.Is(err, ErrOverflow) {
		t.Error("-1*MinInt64 did not overflow")
	}
	if d, err := Second.Mul(-3); err != nil || d != -3*Second {
		t.Errorf("Second*-3 = %v, %v", d, err)
	}
	if d, err := max.Sub(max); err != nil || d != 0 {
		t.Errorf("max-max = %v, %v", d, err)
	}
}

func TestDurationFromMillisRoundsToNearestNanosecond(t *testing.T) {
	cases := []struct {
		ms   float64
		want Duration
		why  string
	}{
		{16.6, 16_600_000, "16.6 is 16.600000000000001421... in binary"},
		{0.1, 100_000, "0.1 is 0.1000000000000000055..."},
		{1e-6, 1, "one nanosecond"},
		{5e-7, 0, "5e-7 is 4.99999999999999977e-7: below half a nanosecond"},
		{math.Ldexp(1, -11), 488, "2^-11 ms is 488.28125 ns"},
		{math.Ldexp(1, -7), 7813, "2^-7 ms is 7812.5 ns exactly: a tie, away from zero"},
		{-math.Ldexp(1, -7), -7813, "negative tie, away from zero"},
		{-1.5, -1_500_000, "sign kept"},
		{0, 0, "zero"},
		{1e12, Duration(1e12) * Millisecond, "large integral value"},
		{math.SmallestNonzeroFloat64, 0, "denormal"},
	}
	for _, c := range cases {
		got, err := DurationFromMillis(c.ms)
		if err != nil || got != c.want {
			t.Errorf("DurationFromMillis(%v) = %d ns, %v; want %d ns (%s)", c.ms, int64(got), err, c.want, c.why)
		}
	}
}

func TestDurationFromMillisRefusesNaNInfAndOverflow(t *testing.T) {
	cases := []struct {
		ms   float64
		want string
	}{
		{math.NaN(), "got NaN"},
		{math.Inf(1), "must be finite, got +Inf"},
		{math.Inf(-1), "must be finite, got -Inf"},
		{1e13, "overflows int64 nanoseconds"},
		{-1e13, "overflows int64 nanoseconds"},
		{math.MaxFloat64, "overflows"},
	}
	for _, c := range cases {
		if _, err := DurationFromMillis(c.ms); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DurationFromMillis(%v) error = %v, want it to contain %q", c.ms, err, c.want)
		}
	}
}

func TestDurationStringIsBalancedISO8601(t *testing.T) {
	cases := []struct {
		d    Duration
		want string
	}{
		{0, "PT0S"},
		{90 * Minute, "PT1H30M"},
		{250 * Millisecond, "PT0.25S"},
		{-1500 * Millisecond, "-PT1.5S"},
		{1, "PT0.000000001S"},
		{26*Hour + 3*Second, "PT26H3S"},
		{math.MinInt64, "-PT2562047H47M16.854775808S"},
	}
	for _, c := range cases {
		if got := c.d.String(); got != c.want {
			t.Errorf("Duration(%d).String() = %q, want %q", int64(c.d), got, c.want)
		}
		back, err := ParseDuration(c.want)
		if err != nil || back != c.d {
			t.Errorf("ParseDuration(%q) = %v, %v; want round trip %d", c.want, back, err, int64(c.d))
		}
	}
}

func TestParseDuration(t *testing.T) {
	cases := []struct {
		in   string
		want Duration
	}{
		{"PT1H2M3.5S", Hour + 2*Minute + 3500*Millisecond},
		{"PT0.25S", 250 * Millisecond},
		{"-PT1S", -Second},
		{"+PT1M", Minute},
		{"PT0.5H", 30 * Minute},
		{"PT1,5S", 1500 * Millisecond},
		{"PT0.000000001S", 1},
	}
	for _, c := range cases {
		got, err := ParseDuration(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestParseDurationRefusesCalendarUnitsAndJunk(t *testing.T) {
	cases := []struct{ in, want string }{
		{"P1D", `calendar unit 'D' is not an exact length`},
		{"P1Y", `calendar unit 'Y'`},
		{"P2W", `calendar unit 'W'`},
		{"P1M", `calendar unit 'M'`},
		{"PT1D", `calendar unit 'D'`},
		{"P1DT1H", `calendar unit 'D'`},
		{"PT", "no components after T"},
		{"1S", "want ISO 8601"},
		{"", "want ISO 8601"},
		{"PT1S1M", "unknown unit 'M'"},
		{"PT1.5M3S", "only the last component may have a fraction"},
		{"PT0.0000000001S", "more than 9 fractional digits"},
		{"PT9999999999999H", "overflows"},
		{"PT.5S", "bad number"},
	}
	for _, c := range cases {
		if _, err := ParseDuration(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseDuration(%q) error = %v, want it to contain %q", c.in, err, c.want)
		}
	}
}

func TestDecimalSecondsIsExact(t *testing.T) {
	cases := map[Duration]string{
		0: "0s", 12345 * Millisecond: "12.345s", -1500 * Millisecond: "-1.5s", 1: "0.000000001s", 3 * Hour: "10800s",
	}
	for d, want := range cases {
		if got := d.DecimalSeconds(); got != want {
			t.Errorf("DecimalSeconds(%d) = %q, want %q", int64(d), got, want)
		}
	}
}

func TestMillisAcceptsFiniteCountsAtOrAboveZeroOnly(t *testing.T) {
	cases := []struct {
		ms   float64
		want Duration
		ok   bool
	}{
		{0, 0, true},
		{math.Copysign(0, -1), 0, true},
		{16.6, 16_600_000, true},
		{6e-7, 1, true},
		{9.3e12, 0, false}, // beyond int64 nanoseconds
		{9.2233720368e12, 9_223_372_036_800_000_000, true},
		{-1e-9, 0, false}, // negative, even if it would round to 0
		{math.NaN(), 0, false},
		{math.Inf(1), 0, false},
		{math.Inf(-1), 0, false},
	}
	for _, c := range cases {
		d, ok := Millis(c.ms)
		if d != c.want || ok != c.ok {
			t.Errorf("Millis(%v) = %v, %v; want %v, %v", c.ms, d, ok, c.want, c.ok)
		}
	}
}

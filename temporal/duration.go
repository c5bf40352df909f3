package temporal

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/metronome-rt/metronome/internal/clip"
)

// Duration is an exact span of time in integer nanoseconds. Its range is
// that of int64: about ±292 years. Arithmetic through its methods is checked:
// a result that does not fit is ErrOverflow, never a wrapped value.
type Duration int64

// Common durations.
const (
	Nanosecond  Duration = 1
	Microsecond          = 1000 * Nanosecond
	Millisecond          = 1000 * Microsecond
	Second               = 1000 * Millisecond
	Minute               = 60 * Second
	Hour                 = 60 * Minute
)

// ErrOverflow reports a time value outside the int64-nanosecond range.
var ErrOverflow = errors.New("overflows int64 nanoseconds")

// DurationFields names the parts of a duration. Any field may be negative;
// the duration is their exact sum.
type DurationFields struct {
	Hours, Minutes, Seconds, Milliseconds, Microseconds, Nanoseconds int64
}

// DurationOf returns the exact sum of f's fields, or ErrOverflow.
func DurationOf(f DurationFields) (Duration, error) {
	parts := [...]struct {
		n    int64
		unit Duration
	}{
		{f.Hours, Hour}, {f.Minutes, Minute}, {f.Seconds, Second},
		{f.Milliseconds, Millisecond}, {f.Microseconds, Microsecond}, {f.Nanoseconds, Nanosecond},
	}
	var sum Duration
	for _, p := range parts {
		v, err := p.unit.Mul(p.n)
		if err != nil {
			return 0, err
		}
		if sum, err = sum.Add(v); err != nil {
			return 0, err
		}
	}
	return sum, nil
}

// DurationFromMillis converts a float number of milliseconds to the nearest
// nanosecond of its exact binary value, ties away from zero. NaN, ±Inf and
// values outside the int64-nanosecond range are errors.
func DurationFromMillis(ms float64) (Duration, error) {
	switch {
	case math.IsNaN(ms):
		return 0, errors.New("milliseconds must be a number, got NaN")
	case math.IsInf(ms, 0):
		return 0, fmt.Errorf("milliseconds must be finite, got %v", ms)
	case ms == 0:
		return 0, nil
	}
	neg := ms < 0
	// ms = mant * 2^exp exactly, with mant < 2^53.
	frac, exp := math.Frexp(math.Abs(ms))
	mant := uint64(math.Ldexp(frac, 53))
	exp -= 53
	// ns = mant * 10^6 * 2^exp, computed in 128 bits so nothing rounds early.
	hi, lo := bits.Mul64(mant, 1_000_000)
	var ns uint64
	if exp >= 0 {
		if hi != 0 || exp >= 64 || lo > math.MaxInt64>>uint(exp) {
			return 0, fmt.Errorf("milliseconds %v %w", ms, ErrOverflow)
		}
		ns = lo << uint(exp)
	} else {
		shift := uint(-exp)
		if shift >= 128 {
			return 0, nil // far below half a nanosecond
		}
		q, half := shr128(hi, lo, shift)
		if q.hi != 0 {
			return 0, fmt.Errorf("milliseconds %v %w", ms, ErrOverflow)
		}
		ns = q.lo
		if half {
			ns++
		}
	}
	if ns > math.MaxInt64 {
		return 0, fmt.Errorf("milliseconds %v %w", ms, ErrOverflow)
	}
	if neg {
		return Duration(-int64(ns)), nil
	}
	return Duration(ns), nil
}

// WantMillis says what Millis accepts, for the error a caller reports when
// it refuses a count: every millisecond delay, delta and interval is
// refused with these words.
const WantMillis = "a finite number of milliseconds >= 0 within int64 nanoseconds"

// Millis converts ms, a count of milliseconds >= 0 from a host or a script
// (a delay, a frame's delta), as DurationFromMillis does. ok is false for
// NaN, ±Inf, a negative count and one beyond int64 nanoseconds; -0 is 0.
func Millis(ms float64) (d Duration, ok bool) {
	if !(ms >= 0) { // NaN too
		return 0, false
	}
	d, err := DurationFromMillis(ms)
	return d, err == nil
}

type u128 struct{ hi, lo uint64 }

// shr128 shifts (hi,lo) right by s (1..127) and reports whether the highest
// bit shifted out is set, which rounds the quotient half away from zero.
func shr128(hi, lo uint64, s uint) (u128, bool) {
	switch {
	case s < 64:
		return u128{hi >> s, lo>>s | hi<<(64-s)}, lo>>(s-1)&1 == 1
	case s == 64:
		return u128{0, hi}, lo>>63 == 1
	default:
		return u128{0, hi >> (s - 64)}, hi>>(s-65)&1 == 1
	}
}

// Add returns d+e, or ErrOverflow.
func (d Duration) Add(e Duration) (Duration, error) {
	s := d + e
	if (e > 0 && s < d) || (e < 0 && s > d) {
		return 0, fmt.Errorf("%v + %v %w", d, e, ErrOverflow)
	}
	return s, nil
}

// Sub returns d-e, or ErrOverflow.
func (d Duration) Sub(e Duration) (Duration, error) {
	s := d - e
	if (e > 0 && s > d) || (e < 0 && s < d) {
		return 0, fmt.Errorf("%v - %v %w", d, e, ErrOverflow)
	}
	return s, nil
}

// Mul returns d*k, or ErrOverflow.
func (d Duration) Mul(k int64) (Duration, error) {
	if d == 0 || k == 0 {
		return 0, nil
	}
	p := int64(d) * k
	if p/k != int64(d) || (int64(d) == -1 && k == math.MinInt64) || (k == -1 && int64(d) == math.MinInt64) {
		return 0, fmt.Errorf("%v * %d %w", d, k, ErrOverflow)
	}
	return Duration(p), nil
}

// Neg returns -d, or ErrOverflow for the most negative duration.
func (d Duration) Neg() (Duration, error) {
	if d == math.MinInt64 {
		return 0, fmt.Errorf("-(%v) %w", d, ErrOverflow)
	}
	return -d, nil
}

// Nanoseconds returns d as an integer count of nanoseconds.
func (d Duration) Nanoseconds() int64 { return int64(d) }

// Milliseconds returns d in milliseconds as a float (inexact beyond 2^53 ns).
func (d Duration) Milliseconds() float64 {
	whole, rem := int64(d)/1e6, int64(d)%1e6
	return float64(whole) + float64(rem)/1e6
}

// Std returns d as a time.Duration (the same nanosecond count).
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d as an ISO 8601 duration balanced to hours:
// PT1H30M, PT0.25S, PT0S, -PT1.5S.
func (d Duration) String() string {
	if d == 0 {
		return "PT0S"
	}
	var b strings.Builder
	u := uint64(d)
	if d < 0 {
		b.WriteByte('-')
		u = -u
	}
	b.WriteString("PT")
	h, u := u/uint64(Hour), u%uint64(Hour)
	m, u := u/uint64(Minute), u%uint64(Minute)
	s, ns := u/uint64(Second), u%uint64(Second)
	if h > 0 {
		b.WriteString(strconv.FormatUint(h, 10))
		b.WriteByte('H')
	}
	if m > 0 {
		b.WriteString(strconv.FormatUint(m, 10))
		b.WriteByte('M')
	}
	if s > 0 || ns > 0 {
		b.WriteString(strconv.FormatUint(s, 10))
		if ns > 0 {
			b.WriteString(strings.TrimRight(fmt.Sprintf(".%09d", ns), "0"))
		}
		b.WriteByte('S')
	}
	return b.String()
}

// ParseDuration parses an ISO 8601 duration with time units only:
// an optional sign, "PT", then hours, minutes and seconds in that order, each
// optional but at least one, e.g. "PT1H2M3.5S", "-PT0.25S". Only the last
// component may have a fraction (at most 9 digits). Calendar units (Y, M
// before T, W, D) are refused: their length is not exact.
func ParseDuration(s string) (Duration, error) {
	fail := func(why string) (Duration, error) {
		return 0, fmt.Errorf("duration %s: %s", clip.Quote(s), why)
	}
	rest := s
	neg := false
	if rest != "" && (rest[0] == '-' || rest[0] == '+') {
		neg = rest[0] == '-'
		rest = rest[1:]
	}
	if rest == "" || rest[0] != 'P' {
		return fail("want ISO 8601 such as PT1H2M3.5S")
	}
	rest = rest[1:]
	if rest == "" || rest[0] != 'T' {
		if i := strings.IndexAny(rest, "YMWD"); i >= 0 {
			return fail(fmt.Sprintf("calendar unit %q is not an exact length; use hours, minutes and seconds (PT...)", rest[i]))
		}
		return fail("want ISO 8601 such as PT1H2M3.5S")
	}
	rest = rest[1:]
	if rest == "" {
		return fail("no components after T")
	}
	var total Duration
	order := "HMS"
	sawFraction := false
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.' || rest[i] == ',') {
			i++
		}
		if i == 0 || i == len(rest) {
			return fail("want a number followed by H, M or S")
		}
		num, unitCh := rest[:i], rest[i]
		rest = rest[i+1:]
		pos := strings.IndexByte(order, unitCh)
		if pos < 0 {
			if strings.IndexByte("YWD", unitCh) >= 0 {
				return fail(fmt.Sprintf("calendar unit %q is not an exact length", unitCh))
			}
			return fail(fmt.Sprintf("unknown unit %q", unitCh))
		}
		if sawFraction {
			return fail("only the last component may have a fraction")
		}
		order = order[pos+1:]
		unit := [...]Duration{Hour, Minute, Second}[2-len(order)]
		whole, fracDigits, _ := strings.Cut(strings.Replace(num, ",", ".", 1), ".")
		if whole == "" || strings.ContainsAny(fracDigits, ".,") {
			return fail(fmt.Sprintf("bad number %s", clip.Quote(num)))
		}
		if len(fracDigits) > 9 {
			return fail("more than 9 fractional digits")
		}
		sawFraction = fracDigits != ""
		w, err := strconv.ParseInt(whole, 10, 64)
		if err != nil {
			return fail(ErrOverflow.Error())
		}
		v, err := unit.Mul(w)
		if err == nil && fracDigits != "" {
			f, _ := strconv.ParseInt((fracDigits + "000000000")[:9], 10, 64)
			// unit*f/1e9 is exact for H, M, S at 9 digits.
			var part Duration
			part, err = Duration(f).Mul(int64(unit / Second))
			if err == nil {
				v, err = v.Add(part)
			}
		}
		if err == nil && neg {
			v = -v // sum in the sign's own range: -PT2562047H47M16.854775808S fits, its magnitude does not
		}
		if err == nil {
			total, err = total.Add(v)
		}
		if err != nil {
			return fail(ErrOverflow.Error())
		}
	}
	return total, nil
}

// DecimalSeconds formats d as exact decimal seconds with the fraction
// trimmed: 12.345s, 0s, -1.5s. It never goes through a float.
func (d Duration) DecimalSeconds() string {
	u := uint64(d)
	sign := ""
	if d < 0 {
		sign, u = "-", -u
	}
	s := sign + strconv.FormatUint(u/uint64(Second), 10)
	if ns := u % uint64(Second); ns != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%09d", ns), "0")
	}
	return s + "s"
}

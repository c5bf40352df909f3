package temporal

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/metronome-rt/metronome/internal/clip"
)

// ErrInexact reports a result that is not a whole number of nanoseconds:
// durations are exact, so it is refused rather than rounded.
var ErrInexact = errors.New("is not a whole number of nanoseconds")

// ErrDivideByZero reports a division by zero.
var ErrDivideByZero = errors.New("division by zero")

// Scale returns d*k for a finite k, exactly: 3s scaled by 1.5 is 4.5s, 1ns
// scaled by 1.5 is ErrInexact. k is read as the shortest decimal that
// prints as it (0.1 is 1/10, not the float64 nearest it), so 1s scaled by
// 0.1 is 100ms.
func (d Duration) Scale(k float64) (Duration, error) {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(k, 'g', -1, 64))
	if !ok || math.IsInf(k, 0) {
		return 0, fmt.Errorf("%v * %v: want a finite factor", d, k)
	}
	return exact(new(big.Rat).Mul(big.NewRat(int64(d), 1), r), func() string { return fmt.Sprintf("%v * %v", d, k) })
}

// Div returns d/k for a finite k != 0, exactly: 1s/4 is 250ms, 1s/3 is
// ErrInexact, d/0 is ErrDivideByZero. k is read as the decimal it prints
// as (d/0.1 is d*10).
func (d Duration) Div(k float64) (Duration, error) {
	if k == 0 {
		return 0, fmt.Errorf("%v / 0: %w", d, ErrDivideByZero)
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(k, 'g', -1, 64))
	if !ok || math.IsInf(k, 0) {
		return 0, fmt.Errorf("%v / %v: want a finite divisor", d, k)
	}
	return exact(new(big.Rat).Quo(big.NewRat(int64(d), 1), r), func() string { return fmt.Sprintf("%v / %v", d, k) })
}

// exact returns r as a Duration, or ErrInexact or ErrOverflow naming what.
func exact(r *big.Rat, what func() string) (Duration, error) {
	if !r.IsInt() {
		return 0, fmt.Errorf("%s = %s ns, which %w", what(), r.FloatString(3), ErrInexact)
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("%s %w", what(), ErrOverflow)
	}
	return Duration(r.Num().Int64()), nil
}

// Floor returns the greatest multiple of unit <= d, for unit > 0:
// -1.5s floored to seconds is -2s.
func (d Duration) Floor(unit Duration) (Duration, error) {
	if unit <= 0 {
		return 0, fmt.Errorf("floor: unit %v: want a duration > 0", unit)
	}
	q := d - d%unit
	if d%unit < 0 {
		return q.Sub(unit)
	}
	return q, nil
}

// Round returns the multiple of unit nearest d, for unit > 0; halfway
// values round away from zero, as time.Duration.Round does (1.5s rounds to
// 2s, -1.5s to -2s). A result beyond the range is ErrOverflow.
func (d Duration) Round(unit Duration) (Duration, error) {
	if unit <= 0 {
		return 0, fmt.Errorf("round: unit %v: want a duration > 0", unit)
	}
	r := d % unit
	if r < 0 {
		r = -r
	}
	q := d - d%unit // toward zero
	if r < unit-r { // r < unit/2, without overflow
		return q, nil
	}
	if d < 0 {
		return q.Sub(unit)
	}
	return q.Add(unit)
}

// ParseDurationText parses s as ParseDuration does when it starts with P
// (after a sign), and otherwise in time.ParseDuration's short form ("90s",
// "5m", "1h30m", "1.5ms", "-2h"), refusing a fraction finer than a
// nanosecond, which time.ParseDuration would drop.
func ParseDurationText(s string) (Duration, error) {
	if t := strings.TrimLeft(s, "+-"); strings.HasPrefix(t, "P") {
		return ParseDuration(s)
	}
	std, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %s: want ISO 8601 such as PT1H2M3.5S or a short form such as 90s, 5m, 1h30m", clip.Quote(s))
	}
	for _, m := range fraction.FindAllStringSubmatch(s, -1) {
		unit, _ := time.ParseDuration("1" + m[2])
		f, _ := new(big.Rat).SetString("0." + m[1])
		if !f.Mul(f, big.NewRat(int64(unit), 1)).IsInt() {
			return 0, fmt.Errorf("duration %s %w", clip.Quote(s), ErrInexact)
		}
	}
	return Duration(std), nil
}

// fraction is a number's fractional digits and its unit, in
// time.ParseDuration's form; "ms" comes before "m" and "s", as RE2 tries
// alternatives in order.
var fraction = regexp.MustCompile(`\.([0-9]+)(ns|us|µs|μs|ms|s|m|h)`)

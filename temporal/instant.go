package temporal

import (
	"fmt"
	"math"
	"time"

	"github.com/metronome-rt/metronome/internal/clip"
)

// Instant is an exact point on the UTC timeline: nanoseconds since the Unix
// epoch. Its range is that of int64 nanoseconds (1677-09-21 to 2262-04-11).
// The zero value is the Unix epoch.
type Instant struct{ ns int64 }

var (
	minTime = time.Unix(0, math.MinInt64).UTC()
	maxTime = time.Unix(0, math.MaxInt64).UTC()
)

// FromUnixNano returns the instant ns nanoseconds after the Unix epoch.
func FromUnixNano(ns int64) Instant { return Instant{ns} }

// FromUnixMilli returns the instant ms milliseconds after the Unix epoch,
// or ErrOverflow.
func FromUnixMilli(ms int64) (Instant, error) {
	d, err := Millisecond.Mul(ms)
	if err != nil {
		return Instant{}, fmt.Errorf("epoch milliseconds %d %w", ms, ErrOverflow)
	}
	return Instant{int64(d)}, nil
}

// FromTime converts t, or reports ErrOverflow outside the Instant range.
func FromTime(t time.Time) (Instant, error) {
	if t.Before(minTime) || t.After(maxTime) {
		return Instant{}, fmt.Errorf("%s %w", t.Format(time.RFC3339Nano), ErrOverflow)
	}
	return Instant{t.UnixNano()}, nil
}

// ParseInstant parses an RFC 3339 timestamp. The offset (or Z) is required:
// a local date-time names no instant. Fractions go to the nanosecond.
func ParseInstant(s string) (Instant, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if _, lerr := ParseLocalDateTime(s); lerr == nil {
			return Instant{}, fmt.Errorf("instant %s has no offset: add Z or ±hh:mm (RFC 3339)", clip.Quote(s))
		}
		return Instant{}, fmt.Errorf("instant %s: want RFC 3339 such as 2024-03-10T06:59:00Z", clip.Quote(s))
	}
	// time.Parse drops digits past the ninth; a finer fraction names no
	// instant, as ParseDuration says too.
	if fractionDigits(s) > 9 {
		return Instant{}, fmt.Errorf("instant %s: more than 9 fractional digits", clip.Quote(s))
	}
	i, err := FromTime(t)
	if err != nil {
		return Instant{}, fmt.Errorf("instant %s: %w", clip.Quote(s), err)
	}
	return i, nil
}

// fractionDigits counts the digits after the seconds of s, an RFC 3339
// text time.Parse accepted (so its seconds end at byte 19).
func fractionDigits(s string) int {
	const secondsEnd = len("2006-01-02T15:04:05")
	if len(s) <= secondsEnd || (s[secondsEnd] != '.' && s[secondsEnd] != ',') {
		return 0
	}
	n := 0
	for _, c := range []byte(s[secondsEnd+1:]) {
		if c < '0' || c > '9' {
			break
		}
		n++
	}
	return n
}

// UnixNano returns t as nanoseconds since the Unix epoch.
func (t Instant) UnixNano() int64 { return t.ns }

// UnixMilli returns t as whole milliseconds since the Unix epoch, rounded
// toward negative infinity.
func (t Instant) UnixMilli() int64 {
	ms := t.ns / 1e6
	if t.ns%1e6 < 0 {
		ms--
	}
	return ms
}

// Add returns t+d, or ErrOverflow.
func (t Instant) Add(d Duration) (Instant, error) {
	s, err := Duration(t.ns).Add(d)
	if err != nil {
		return Instant{}, fmt.Errorf("%v + %v %w", t, d, ErrOverflow)
	}
	return Instant{int64(s)}, nil
}

// Sub returns the duration t-u, or ErrOverflow.
func (t Instant) Sub(u Instant) (Duration, error) {
	d, err := Duration(t.ns).Sub(Duration(u.ns))
	if err != nil {
		return 0, fmt.Errorf("%v - %v %w", t, u, ErrOverflow)
	}
	return d, nil
}

// Compare returns -1, 0 or +1 as t is before, equal to or after u.
func (t Instant) Compare(u Instant) int {
	switch {
	case t.ns < u.ns:
		return -1
	case t.ns > u.ns:
		return 1
	}
	return 0
}

// Before reports whether t is strictly before u.
func (t Instant) Before(u Instant) bool { return t.ns < u.ns }

// After reports whether t is strictly after u.
func (t Instant) After(u Instant) bool { return t.ns > u.ns }

// Time returns t as a time.Time in UTC.
func (t Instant) Time() time.Time { return time.Unix(0, t.ns).UTC() }

// String formats t as RFC 3339 in UTC with the fraction trimmed:
// 2024-03-10T06:59:00Z, 2024-03-10T06:59:00.25Z.
func (t Instant) String() string { return t.Time().Format(time.RFC3339Nano) }

// ZonedString formats t in the IANA zone zoneID with its offset and the zone
// in brackets: 2024-03-10T03:00:00-04:00[America/New_York].
func (t Instant) ZonedString(zoneID string) (string, error) {
	z, err := LoadZone(zoneID)
	if err != nil {
		return "", err
	}
	return t.Time().In(z.Location()).Format("2006-01-02T15:04:05.999999999-07:00") + "[" + z.ID() + "]", nil
}

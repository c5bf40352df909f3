package temporal

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/metronome-rt/metronome/internal/clip"
)

// LocalDateTime is a wall-clock reading (a date and a time of day) with no
// zone and no offset. It names no instant until a Zone resolves it.
//
// Fields are not normalised: February 30 is invalid, not March 1 or 2.
// Validate reports the first field out of range.
type LocalDateTime struct {
	Year                                  int
	Month                                 time.Month
	Day, Hour, Minute, Second, Nanosecond int
}

// ParseLocalDateTime parses an ISO 8601 local date-time,
// YYYY-MM-DDTHH:MM:SS with an optional fraction of up to nine digits
// ("2024-03-09T02:30:00", "2024-03-09T02:30:00.25"). An offset or Z is an
// error: a local date-time carries none. Years run from 0001 to 9999.
func ParseLocalDateTime(s string) (LocalDateTime, error) {
	fail := func(why string) (LocalDateTime, error) {
		return LocalDateTime{}, fmt.Errorf("local date-time %s: %s", clip.Quote(s), why)
	}
	const layout = "YYYY-MM-DDTHH:MM:SS"
	if len(s) < len(layout) {
		return fail("want YYYY-MM-DDTHH:MM:SS such as 2024-03-09T02:30:00")
	}
	for i, c := range []byte(s[:len(layout)]) {
		want := layout[i]
		ok := c >= '0' && c <= '9'
		if want == '-' || want == 'T' || want == ':' {
			ok = c == want
		}
		if !ok {
			return fail("want YYYY-MM-DDTHH:MM:SS such as 2024-03-09T02:30:00")
		}
	}
	if zone := offsetSuffix(s[len(layout):]); zone != "" {
		return fail(fmt.Sprintf("a local date-time carries no offset, got %s: drop it (the zone is given separately)", clip.Quote(zone)))
	}
	num := func(i, n int) int { v, _ := strconv.Atoi(s[i : i+n]); return v }
	l := LocalDateTime{
		Year: num(0, 4), Month: time.Month(num(5, 2)), Day: num(8, 2),
		Hour: num(11, 2), Minute: num(14, 2), Second: num(17, 2),
	}
	if frac := s[len(layout):]; frac != "" {
		digits := frac[1:]
		if frac[0] != '.' && frac[0] != ',' || digits == "" || len(digits) > 9 || strings.Trim(digits, "0123456789") != "" {
			return fail("the fraction after the seconds must be 1 to 9 digits after '.'")
		}
		ns, _ := strconv.Atoi(digits + strings.Repeat("0", 9-len(digits)))
		l.Nanosecond = ns
	}
	if err := l.check(); err != "" {
		return fail(err)
	}
	return l, nil
}

// offsetSuffix returns the offset or Z that s (the text after the seconds)
// ends with, or "".
func offsetSuffix(s string) string {
	if i := strings.IndexAny(s, "Zz+-"); i >= 0 {
		return s[i:]
	}
	return ""
}

// Validate reports the first field out of range, or nil. Years run from 1
// to 9999, seconds to 59 (no leap seconds) and the day must exist in its
// month.
func (l LocalDateTime) Validate() error {
	if err := l.check(); err != "" {
		if l.Nanosecond < 0 || l.Nanosecond > 999_999_999 {
			l.Nanosecond = 0 // String would print the bad fraction misleadingly
		}
		return fmt.Errorf("local date-time %s: %s", l, err)
	}
	return nil
}

func (l LocalDateTime) check() string {
	switch {
	case l.Year < 1 || l.Year > 9999:
		return fmt.Sprintf("year %d is out of range 1..9999", l.Year)
	case l.Month < 1 || l.Month > 12:
		return fmt.Sprintf("month %d is out of range 1..12", int(l.Month))
	case l.Day < 1 || l.Day > daysIn(l.Year, l.Month):
		return fmt.Sprintf("day %d is out of range 1..%d for %s %d", l.Day, daysIn(l.Year, l.Month), l.Month, l.Year)
	case l.Hour < 0 || l.Hour > 23:
		return fmt.Sprintf("hour %d is out of range 0..23", l.Hour)
	case l.Minute < 0 || l.Minute > 59:
		return fmt.Sprintf("minute %d is out of range 0..59", l.Minute)
	case l.Second < 0 || l.Second > 59:
		return fmt.Sprintf("second %d is out of range 0..59", l.Second)
	case l.Nanosecond < 0 || l.Nanosecond > 999_999_999:
		return fmt.Sprintf("nanosecond %d is out of range 0..999999999", l.Nanosecond)
	}
	return ""
}

// String formats l as ISO 8601 without offset, the fraction trimmed:
// 2024-03-09T02:30:00, 2024-03-09T02:30:00.25.
func (l LocalDateTime) String() string {
	s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", l.Year, int(l.Month), l.Day, l.Hour, l.Minute, l.Second)
	if l.Nanosecond != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%09d", l.Nanosecond), "0")
	}
	return s
}

// Compare returns -1, 0 or +1 as l is before, equal to or after m on the
// wall clock, field by field.
func (l LocalDateTime) Compare(m LocalDateTime) int {
	a := [...]int{l.Year, int(l.Month), l.Day, l.Hour, l.Minute, l.Second, l.Nanosecond}
	b := [...]int{m.Year, int(m.Month), m.Day, m.Hour, m.Minute, m.Second, m.Nanosecond}
	for i := range a {
		switch {
		case a[i] < b[i]:
			return -1
		case a[i] > b[i]:
			return 1
		}
	}
	return 0
}

// wall returns l's wall-clock seconds: the Unix seconds l would be if it
// were UTC. Resolution works on these, never through time.Date, whose
// normalisation would hide gaps.
func (l LocalDateTime) wall() int64 {
	return daysFromCivil(int64(l.Year), int(l.Month), l.Day)*86400 +
		int64(l.Hour)*3600 + int64(l.Minute)*60 + int64(l.Second)
}

// localFromWall is the inverse of wall.
func localFromWall(w int64, ns int) LocalDateTime {
	days, secs := floorDiv(w, 86400)
	y, m, d := civilFromDays(days)
	return LocalDateTime{
		Year: int(y), Month: time.Month(m), Day: d,
		Hour: int(secs / 3600), Minute: int(secs / 60 % 60), Second: int(secs % 60),
		Nanosecond: ns,
	}
}

func daysIn(y int, m time.Month) int {
	switch m {
	case time.February:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// daysFromCivil counts days from 1970-01-01 in the proleptic Gregorian
// calendar (Howard Hinnant's algorithm: exact, no tables).
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era, yoe := floorDiv(y, 400)
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func civilFromDays(z int64) (y int64, m, d int) {
	z += 719468
	era, doe := floorDiv(z, 146097)
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

// floorDiv returns the floor quotient and the non-negative remainder.
func floorDiv(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

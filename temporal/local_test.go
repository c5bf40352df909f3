package temporal

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestParseLocalDateTime(t *testing.T) {
	for _, c := range []struct {
		in   string
		want LocalDateTime
		str  string
	}{
		{"2024-03-09T02:30:00", LocalDateTime{2024, 3, 9, 2, 30, 0, 0}, "2024-03-09T02:30:00"},
		{"2024-03-09T02:30:00.25", LocalDateTime{2024, 3, 9, 2, 30, 0, 250_000_000}, "2024-03-09T02:30:00.25"},
		{"2024-03-09T02:30:00,000000001", LocalDateTime{2024, 3, 9, 2, 30, 0, 1}, "2024-03-09T02:30:00.000000001"},
		{"2024-02-29T23:59:59", LocalDateTime{2024, 2, 29, 23, 59, 59, 0}, "2024-02-29T23:59:59"},
		{"0001-01-01T00:00:00", LocalDateTime{1, 1, 1, 0, 0, 0, 0}, "0001-01-01T00:00:00"},
		{"9999-12-31T23:59:59.999999999", LocalDateTime{9999, 12, 31, 23, 59, 59, 999_999_999}, "9999-12-31T23:59:59.999999999"},
	} {
		got, err := ParseLocalDateTime(c.in)
		if err != nil || got != c.want || got.String() != c.str {
			t.Errorf("ParseLocalDateTime(%q) = %v (%s), %v", c.in, got, got, err)
		}
	}
}

func TestParseLocalDateTimeErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2024-03-09T02:30:00Z", `local date-time "2024-03-09T02:30:00Z": a local date-time carries no offset, got "Z": drop it (the zone is given separately)`},
		{"2024-03-09T02:30:00-05:00", `local date-time "2024-03-09T02:30:00-05:00": a local date-time carries no offset, got "-05:00": drop it (the zone is given separately)`},
		{"2024-03-09T02:30:00.5+01:00", `local date-time "2024-03-09T02:30:00.5+01:00": a local date-time carries no offset, got "+01:00": drop it (the zone is given separately)`},
		{"2024-03-09", `local date-time "2024-03-09": want YYYY-MM-DDTHH:MM:SS such as 2024-03-09T02:30:00`},
		{"2024-03-09 02:30:00", `local date-time "2024-03-09 02:30:00": want YYYY-MM-DDTHH:MM:SS such as 2024-03-09T02:30:00`},
		{"2024-3-09T02:30:00", `local date-time "2024-3-09T02:30:00": want YYYY-MM-DDTHH:MM:SS such as 2024-03-09T02:30:00`},
		{"2024-03-09T02:30:00.", `local date-time "2024-03-09T02:30:00.": the fraction after the seconds must be 1 to 9 digits after '.'`},
		{"2024-03-09T02:30:00.1234567891", `local date-time "2024-03-09T02:30:00.1234567891": the fraction after the seconds must be 1 to 9 digits after '.'`},
		{"2024-02-30T00:00:00", `local date-time "2024-02-30T00:00:00": day 30 is out of range 1..29 for February 2024`},
		{"2023-02-29T00:00:00", `local date-time "2023-02-29T00:00:00": day 29 is out of range 1..28 for February 2023`},
		{"2024-13-01T00:00:00", `local date-time "2024-13-01T00:00:00": month 13 is out of range 1..12`},
		{"2024-03-09T24:00:00", `local date-time "2024-03-09T24:00:00": hour 24 is out of range 0..23`},
		{"2024-03-09T23:60:00", `local date-time "2024-03-09T23:60:00": minute 60 is out of range 0..59`},
		{"2016-12-31T23:59:60", `local date-time "2016-12-31T23:59:60": second 60 is out of range 0..59`},
		{"0000-01-01T00:00:00", `local date-time "0000-01-01T00:00:00": year 0 is out of range 1..9999`},
	} {
		_, err := ParseLocalDateTime(c.in)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseLocalDateTime(%q) error = %v\nwant %s", c.in, err, c.want)
		}
	}
}

func TestLocalDateTimeValidate(t *testing.T) {
	if err := (LocalDateTime{2024, 2, 29, 0, 0, 0, 0}).Validate(); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		l    LocalDateTime
		want string
	}{
		{LocalDateTime{2024, 2, 30, 0, 0, 0, 0}, "local date-time 2024-02-30T00:00:00: day 30 is out of range 1..29 for February 2024"},
		{LocalDateTime{1900, 2, 29, 0, 0, 0, 0}, "local date-time 1900-02-29T00:00:00: day 29 is out of range 1..28 for February 1900"},
		{LocalDateTime{2024, 4, 31, 0, 0, 0, 0}, "local date-time 2024-04-31T00:00:00: day 31 is out of range 1..30 for April 2024"},
		{LocalDateTime{2024, 1, 1, 0, 0, 0, -1}, "local date-time 2024-01-01T00:00:00: nanosecond -1 is out of range 0..999999999"},
		{LocalDateTime{}, "local date-time 0000-00-00T00:00:00: year 0 is out of range 1..9999"},
	} {
		if err := c.l.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("%#v: %v\nwant %s", c.l, err, c.want)
		}
	}
}

func TestLocalDateTimeCompare(t *testing.T) {
	order := []string{"2023-12-31T23:59:59.999999999", "2024-01-01T00:00:00", "2024-01-01T00:00:00.000000001",
		"2024-01-01T00:00:01", "2024-01-01T00:01:00", "2024-01-01T01:00:00", "2024-01-02T00:00:00", "2024-02-01T00:00:00"}
	for i, a := range order {
		for j, b := range order {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := mustLocal(t, a).Compare(mustLocal(t, b)); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// wall and localFromWall agree with the time package over the whole range.
func TestCivilArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	lo := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	for i := 0; i < 100000; i++ {
		s := lo + rng.Int64N(hi-lo)
		tm := time.Unix(s, 0).UTC()
		l := localFromWall(s, 0)
		if l.Year != tm.Year() || l.Month != tm.Month() || l.Day != tm.Day() || l.Hour != tm.Hour() || l.Minute != tm.Minute() || l.Second != tm.Second() {
			t.Fatalf("localFromWall(%d) = %s, time says %s", s, l, tm)
		}
		if l.wall() != s {
			t.Fatalf("%s.wall() = %d, want %d", l, l.wall(), s)
		}
	}
}

package temporal

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseInstantRequiresAnOffset(t *testing.T) {
	ok := map[string]int64{
		"2024-03-10T06:59:00Z":           1710053940e9,
		"2024-03-10T01:59:00-05:00":      1710053940e9,
		"2024-03-10T06:59:00.123456789Z": 1710053940e9 + 123456789,
		"1970-01-01T00:00:00Z":           0,
		"1969-12-31T23:59:59.999999999Z": -1,
	}
	for in, want := range ok {
		got, err := ParseInstant(in)
		if err != nil || got.UnixNano() != want {
			t.Errorf("ParseInstant(%q) = %d, %v; want %d", in, got.UnixNano(), err, want)
		}
	}
	bad := map[string]string{
		"2024-03-10T06:59:00":  "has no offset: add Z or ±hh:mm",
		"2024-03-10":           "want RFC 3339",
		"yesterday":            "want RFC 3339",
		"2300-01-01T00:00:00Z": "overflows int64 nanoseconds",
		"1600-01-01T00:00:00Z": "overflows int64 nanoseconds",
	}
	for in, want := range bad {
		if _, err := ParseInstant(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseInstant(%q) error = %v, want it to contain %q", in, err, want)
		}
	}
}

func TestInstantStringIsUTCWithTrimmedFraction(t *testing.T) {
	cases := map[int64]string{
		0:                    "1970-01-01T00:00:00Z",
		1710053940e9 + 250e6: "2024-03-10T06:59:00.25Z",
		-1:                   "1969-12-31T23:59:59.999999999Z",
		math.MaxInt64:        "2262-04-11T23:47:16.854775807Z",
	}
	for n, want := range cases {
		if got := FromUnixNano(n).String(); got != want {
			t.Errorf("FromUnixNano(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestUnixMilliFloors(t *testing.T) {
	cases := map[int64]int64{0: 0, 1_999_999: 1, -1: -1, -1_000_000: -1, -1_000_001: -2}
	for n, want := range cases {
		if got := FromUnixNano(n).UnixMilli(); got != want {
			t.Errorf("UnixMilli(%d ns) = %d, want %d", n, got, want)
		}
	}
	if _, err := FromUnixMilli(math.MaxInt64 / 1000); !errors.Is(err, ErrOverflow) {
		t.Error("FromUnixMilli overflow not reported")
	}
}

func TestInstantArithmeticIsChecked(t *testing.T) {
	t0 := FromUnixNano(math.MaxInt64 - 1)
	if _, err := t0.Add(2); !errors.Is(err, ErrOverflow) {
		t.Error("instant + duration overflow not reported")
	}
	if _, err := FromUnixNano(math.MinInt64).Sub(FromUnixNano(1)); !errors.Is(err, ErrOverflow) {
		t.Error("instant - instant overflow not reported")
	}
	a, b := FromUnixNano(10), FromUnixNano(25)
	if d, _ := b.Sub(a); d != 15 || a.Compare(b) != -1 || b.Compare(a) != 1 || a.Compare(a) != 0 || !a.Before(b) || !b.After(a) {
		t.Error("comparison or difference wrong")
	}
}

func TestZonedString(t *testing.T) {
	at, _ := ParseInstant("2024-03-10T07:00:00Z")
	got, err := at.ZonedString("America/New_York")
	if err != nil || got != "2024-03-10T03:00:00-04:00[America/New_York]" {
		t.Fatalf("ZonedString = %q, %v", got, err)
	}
	if _, err := at.ZonedString(""); err == nil {
		t.Fatal("empty zone accepted")
	}
}

func TestClocks(t *testing.T) {
	at := FromUnixNano(42)
	c := Fixed(at)
	if first, second := c.Now(), c.Now(); first != at || second != at {
		t.Fatal("fixed clock moved")
	}
	before := time.Now().UnixNano()
	now := System().Now().UnixNano()
	if now < before {
		t.Fatal("system clock behind time.Now")
	}
}

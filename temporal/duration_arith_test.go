package temporal

import (
	"errors"
	"testing"
)

func TestDurationScaleDiv(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func() (Duration, error)
		want Duration
		err  error
	}{
		{"3s*1.5", func() (Duration, error) { return (3 * Second).Scale(1.5) }, 4500 * Millisecond, nil},
		{"1s*0.1", func() (Duration, error) { return Second.Scale(0.1) }, 100 * Millisecond, nil},
		{"1ns*1.5", func() (Duration, error) { return Nanosecond.Scale(1.5) }, 0, ErrInexact},
		{"max*2.0", func() (Duration, error) { return Duration(1 << 62).Scale(2) }, 0, ErrOverflow},
		{"-1s*-0.25", func() (Duration, error) { return (-Second).Scale(-0.25) }, 250 * Millisecond, nil},
		{"1s/4", func() (Duration, error) { return Second.Div(4) }, 250 * Millisecond, nil},
		{"1s/3", func() (Duration, error) { return Second.Div(3) }, 0, ErrInexact},
		{"1s/0", func() (Duration, error) { return Second.Div(0) }, 0, ErrDivideByZero},
		{"1s/0.5", func() (Duration, error) { return Second.Div(0.5) }, 2 * Second, nil},
		{"1ns/-1", func() (Duration, error) { return Nanosecond.Div(-1) }, -1, nil},
		{"min/-1", func() (Duration, error) { return Duration(-1 << 63).Div(-1) }, 0, ErrOverflow},
	} {
		got, err := c.f()
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("%s = %v, %v; want %v, %v", c.name, got, err, c.want, c.err)
		}
	}
	if _, err := Second.Div(3); err == nil || err.Error() != "PT1S / 3 = 333333333.333 ns, which is not a whole number of nanoseconds" {
		t.Errorf("1s/3: %v", err)
	}
}

func TestDurationFloorRound(t *testing.T) {
	for _, c := range []struct {
		d, unit, floor, round Duration
	}{
		{1500 * Millisecond, Second, Second, 2 * Second},
		{1499 * Millisecond, Second, Second, Second},
		{-1500 * Millisecond, Second, -2 * Second, -2 * Second},
		{-1499 * Millisecond, Second, -2 * Second, -Second},
		{-1 * Second, Second, -Second, -Second},
		{0, Second, 0, 0},
		{7, 2, 6, 8},
		{-7, 2, -8, -8},
	} {
		if got, err := c.d.Floor(c.unit); err != nil || got != c.floor {
			t.Errorf("%v floor %v = %v, %v; want %v", c.d, c.unit, got, err, c.floor)
		}
		if got, err := c.d.Round(c.unit); err != nil || got != c.round {
			t.Errorf("%v round %v = %v, %v; want %v", c.d, c.unit, got, err, c.round)
		}
	}
	if _, err := Duration(-1 << 63).Floor(3); !errors.Is(err, ErrOverflow) {
		t.Errorf("min floor 3: %v", err)
	}
	if _, err := Duration(1<<63 - 1).Round(Hour); !errors.Is(err, ErrOverflow) {
		t.Errorf("max round 1h: %v", err)
	}
	if _, err := Second.Round(0); err == nil {
		t.Error("round 0: no error")
	}
}

func TestParseDurationText(t *testing.T) {
	for s, want := range map[string]Duration{
		"90s": 90 * Second, "5m": 5 * Minute, "1h30m": 90 * Minute, "1.5ms": 1500 * Microsecond,
		"-2h": -2 * Hour, "PT1H30M": 90 * Minute, "-PT0.25S": -250 * Millisecond, "0": 0,
	} {
		if got, err := ParseDurationText(s); err != nil || got != want {
			t.Errorf("ParseDurationText(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for s, want := range map[string]string{
		"1 second":      `duration "1 second": want ISO 8601 such as PT1H2M3.5S or a short form such as 90s, 5m, 1h30m`,
		"1.0000000001s": `duration "1.0000000001s" is not a whole number of nanoseconds`,
		"P1D":           `duration "P1D": calendar unit 'D' is not an exact length; use hours, minutes and seconds (PT...)`,
	} {
		if _, err := ParseDurationText(s); err == nil || err.Error() != want {
			t.Errorf("ParseDurationText(%q): %v, want %s", s, err, want)
		}
	}
}

package temporal

import (
	"strings"
	"testing"
)

// A fraction past nanoseconds is refused, as ParseDuration refuses it,
// rather than cut to nine digits.
func TestParseInstantRefusesSubNanosecondFraction(t *testing.T) {
	for _, s := range []string{
		"2024-03-10T06:59:00.1234567891Z",
		"2024-03-10T06:59:00.0000000000Z",
		"2024-03-10T06:59:00.1234567891+01:00",
	} {
		_, err := ParseInstant(s)
		if err == nil || !strings.Contains(err.Error(), "more than 9 fractional digits") {
			t.Errorf("ParseInstant(%q) = %v, want an error about more than 9 fractional digits", s, err)
		}
	}
	got, err := ParseInstant("2024-03-10T06:59:00.123456789Z")
	if err != nil || got.UnixNano()%1e9 != 123456789 {
		t.Errorf("nine digits: %v, %v", got, err)
	}
}

// User text echoed in an error is cut, so a 10,000-byte argument gives a
// short message.
func TestErrorsClipLongInput(t *testing.T) {
	long := strings.Repeat("A", 10000)
	errs := map[string]func() error{
		"LoadZone":            func() error { _, err := LoadZone(long); return err },
		"ParseInstant":        func() error { _, err := ParseInstant(long); return err },
		"ParseDuration":       func() error { _, err := ParseDuration("PT" + long); return err },
		"ParseLocalDateTime":  func() error { _, err := ParseLocalDateTime(long); return err },
		"ParseDisambiguation": func() error { _, err := ParseDisambiguation(long); return err },
	}
	for name, f := range errs {
		err := f()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if msg := err.Error(); len(msg) > 300 || !strings.Contains(msg, " bytes)") {
			t.Errorf("%s: error of %d bytes, want it clipped: %.200s", name, len(msg), msg)
		}
	}
}

func TestRecurrenceErrorsClipLongInput(t *testing.T) {
	long := strings.Repeat("B", 10000)
	start := LocalDateTime{Year: 2024, Month: 3, Day: 9, Hour: 9}
	for _, rule := range []string{"FREQ=" + long, "FREQ=DAILY;X" + long + "=1", "FREQ=DAILY;WKST=" + long, "FREQ=DAILY;COUNT=" + long, "FREQ=WEEKLY;BYDAY=" + long} {
		_, err := NewRecurrenceSet(RecurrenceSpec{DTStart: start, RRules: []string{rule}})
		if err == nil {
			t.Errorf("%.30s: no error", rule)
			continue
		}
		if msg := err.Error(); len(msg) > 400 {
			t.Errorf("%.30s: error of %d bytes, want it clipped: %.300s", rule, len(msg), msg)
		}
	}
}

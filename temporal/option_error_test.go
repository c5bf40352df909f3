package temporal

import (
	"errors"
	"testing"
)

func TestOptionErrorText(t *testing.T) {
	e := &OptionError{Method: "ScheduleOnce", Param: "delay", Want: "a duration >= 0", Got: Duration(-1)}
	if got, want := e.Error(), "ScheduleOnce: delay: want a duration >= 0, got -PT0.000000001S"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	cause := errors.New("unknown zone")
	e = &OptionError{Method: "ScheduleRecurrence", Param: "Zone", Got: "Mars/Base", Err: cause}
	if got, want := e.Error(), "ScheduleRecurrence: Zone: unknown zone"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(e, cause) {
		t.Fatal("errors.Is does not reach the cause")
	}
}

package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/metronome-rt/metronome/temporal"
)

// The values of `metronome run`'s flags that need more than the flag
// package's types. Each Set checks its text once and keeps the typed value;
// flag reports an error as `invalid value "TEXT" for flag -NAME: ERROR`.

// defaultStart is where virtual time starts without --start: a fixed
// instant, so runs and their output repeat. (testing/synctest's fake clock
// starts at the same instant.)
var defaultStart = temporal.FromUnixNano(946684800 * 1e9) // 2000-01-01T00:00:00Z

const (
	defaultUntil   = 24 * temporal.Hour
	defaultFrameMs = "16.667"
)

// instantFlag is --start: an RFC 3339 instant with an offset or Z.
type instantFlag struct {
	t   temporal.Instant
	set bool
}

func (f *instantFlag) String() string {
	if f == nil {
		return ""
	}
	return f.t.String()
}

func (f *instantFlag) Set(s string) error {
	t, err := temporal.ParseInstant(s)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), fmt.Sprintf("instant %q: ", s)))
	}
	f.t, f.set = t, true
	return nil
}

// spanFlag is --until: a duration > 0, as ISO 8601 (PT1H30M) or as Go
// writes one (90s, 5m, 2h, 1h30m, 1.5s, 250ms).
type spanFlag struct {
	d    temporal.Duration
	text string // as given, for messages
}

func (f *spanFlag) String() string {
	if f == nil {
		return ""
	}
	if f.text != "" {
		return f.text
	}
	return shortDuration(f.d)
}

func (f *spanFlag) Set(s string) error {
	d, err := parseSpan(s)
	if err != nil {
		return err
	}
	f.d, f.text = d, s
	return nil
}

const spanWant = "want an ISO 8601 duration (PT1H30M) or a short one (90s, 5m, 2h, 1h30m)"

// parseSpan parses --until's text as duration.parse does: ISO 8601 when
// it starts with P (after a sign), otherwise time.ParseDuration's form,
// refusing a fraction finer than a nanosecond, which ParseDuration would
// drop.
func parseSpan(s string) (temporal.Duration, error) {
	d, err := temporal.ParseDurationText(s)
	switch {
	case errors.Is(err, temporal.ErrInexact):
		return 0, fmt.Errorf("%s is not a whole number of nanoseconds", s)
	case err != nil && strings.HasPrefix(strings.TrimLeft(s, "+-"), "P"):
		return 0, errors.New(strings.TrimPrefix(err.Error(), fmt.Sprintf("duration %q: ", s)))
	case err != nil:
		return 0, errors.New(spanWant)
	}
	if d <= 0 {
		return 0, fmt.Errorf("want a duration > 0, got %s", s)
	}
	return d, nil
}

// shortDuration formats d > 0 in the short form: 1h30m, 90s -> 1m30s,
// 1.5s, 250ms; a zero or negative d as 0s.
func shortDuration(d temporal.Duration) string {
	if d <= 0 {
		return "0s"
	}
	var b strings.Builder
	h, rest := d/temporal.Hour, d%temporal.Hour
	m, rest := rest/temporal.Minute, rest%temporal.Minute
	if h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if rest > 0 {
		if b.Len() == 0 && rest < temporal.Second && rest%temporal.Millisecond == 0 {
			fmt.Fprintf(&b, "%dms", rest/temporal.Millisecond)
		} else {
			b.WriteString(rest.DecimalSeconds())
		}
	}
	return b.String()
}

// frameFlag is --frame-ms: a finite number of milliseconds > 0, converted
// once to exact nanoseconds (16.667 is 16667000ns).
type frameFlag struct {
	d    temporal.Duration
	text string
}

func (f *frameFlag) String() string {
	if f == nil {
		return ""
	}
	return f.text
}

func (f *frameFlag) Set(s string) error {
	ms, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("want a number of milliseconds > 0, such as 16.667")
	}
	if math.IsNaN(ms) || math.IsInf(ms, 0) || ms <= 0 {
		return fmt.Errorf("want a finite number of milliseconds > 0, got %s", s)
	}
	d, err := temporal.DurationFromMillis(ms)
	if err != nil {
		return fmt.Errorf("want a number of milliseconds within int64 nanoseconds, got %s", s)
	}
	if d <= 0 {
		return fmt.Errorf("%s ms rounds to 0ns; want at least 0.000001 (1ns)", s)
	}
	f.d, f.text = d, s
	return nil
}

// traceMode is what --trace writes.
type traceMode uint8

const (
	traceOff  traceMode = iota
	traceJobs           // one line per fired job
	traceAll            // jobs, facet frames, steps, pause, resume, quit
)

// traceFlag is --trace, --trace=true|false|all: a bool flag that also takes
// "all". (As with every bool flag, "--trace all" is --trace followed by the
// argument "all"; write --trace=all.)
type traceFlag struct{ mode *traceMode }

func (f traceFlag) IsBoolFlag() bool { return true }

func (f traceFlag) String() string {
	if f.mode == nil {
		return ""
	}
	switch *f.mode {
	case traceJobs:
		return "true"
	case traceAll:
		return "all"
	}
	return "false"
}

func (f traceFlag) Set(s string) error {
	switch s {
	case "all":
		*f.mode = traceAll
		return nil
	case "jobs":
		*f.mode = traceJobs
		return nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true, false or all")
	}
	*f.mode = traceOff
	if b {
		*f.mode = traceJobs
	}
	return nil
}

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

// spanFlag is --until: a duration > 0, as ISO 8601 (PT1H30M) or in the
// short form of numbers with units h, m, s, ms (90s, 5m, 2h, 1h30m, 1.5s).
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

// parseSpan parses --until's text; see spanFlag.
func parseSpan(s string) (temporal.Duration, error) {
	var d temporal.Duration
	if t := strings.TrimLeft(s, "+-"); strings.HasPrefix(t, "P") {
		var err error
		if d, err = temporal.ParseDuration(s); err != nil {
			return 0, errors.New(strings.TrimPrefix(err.Error(), fmt.Sprintf("duration %q: ", s)))
		}
	} else {
		var ok bool
		if d, ok = parseShortDuration(s); !ok {
			return 0, errors.New(spanWant)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("want a duration > 0, got %s", s)
	}
	return d, nil
}

// parseShortDuration reads "1h30m", "90s", "1.5h", "250ms", "-5m" exactly:
// units in decreasing order, each at most once, a fraction on any of them
// as long as the total is a whole number of nanoseconds.
func parseShortDuration(s string) (temporal.Duration, bool) {
	neg := strings.HasPrefix(s, "-")
	rest := strings.TrimLeft(s, "+-")
	if len(s)-len(rest) > 1 || rest == "" {
		return 0, false
	}
	units := []struct {
		name string
		ns   int64
	}{{"h", int64(temporal.Hour)}, {"ms", int64(temporal.Millisecond)}, {"m", int64(temporal.Minute)}, {"s", int64(temporal.Second)}}
	order := map[string]int{"h": 0, "m": 1, "s": 2, "ms": 3}
	last := -1
	var total int64
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		num := rest[:i]
		rest = rest[i:]
		unit := int64(0)
		name := ""
		for _, u := range units {
			if strings.HasPrefix(rest, u.name) {
				unit, name = u.ns, u.name
				rest = rest[len(u.name):]
				break
			}
		}
		if num == "" || unit == 0 || order[name] <= last {
			return 0, false
		}
		last = order[name]
		whole, frac, _ := strings.Cut(num, ".")
		if whole == "" || strings.Contains(frac, ".") || len(frac) > 18 {
			return 0, false
		}
		w, err := strconv.ParseInt(whole, 10, 64)
		if err != nil || w > math.MaxInt64/unit {
			return 0, false
		}
		v := w * unit
		if frac != "" {
			f, err := strconv.ParseInt(frac, 10, 64)
			if err != nil {
				return 0, false
			}
			// f/10^len(frac) of unit must be whole nanoseconds.
			p := int64(math.Pow10(len(frac)))
			g := gcd(unit, p)
			u, q := unit/g, p/g
			if f%q != 0 || f/q > (math.MaxInt64-v)/u {
				return 0, false
			}
			v += f / q * u
		}
		if total > math.MaxInt64-v {
			return 0, false
		}
		total += v
	}
	if neg {
		total = -total
	}
	return temporal.Duration(total), true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
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

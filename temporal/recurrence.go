package temporal

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/metronome-rt/metronome/internal/clip"
)

// RecurrenceSpec describes an RFC 5545 recurrence set in wall-clock time.
//
// DTStart is the first occurrence, whether or not a rule produces it, and
// counts toward every RRULE's COUNT. Each RRULE is a value such as
// "FREQ=MONTHLY;BYDAY=2TU" ("RRULE:" may prefix it); RDates add local
// date-times; ExDates and ExRules remove local date-times (matched on the
// wall clock, before resolution), RDATEs included. An EXRULE is expanded
// from DTStart like an RRULE, but DTStart is not forced into it.
type RecurrenceSpec struct {
	DTStart LocalDateTime
	RRules  []string
	RDates  []LocalDateTime
	ExDates []LocalDateTime
	ExRules []string
}

// ErrUnbounded is wrapped by the error Occurrences returns for an endless
// set expanded with neither Limit nor Before.
var ErrUnbounded = errors.New("unbounded recurrence set")

// MaxOccurrences is the most occurrences one Occurrences call returns: a
// window that holds more (FREQ=SECONDLY over a year holds 31 million) is an
// error wrapping ErrTooManyOccurrences, before they are all in memory.
// Iterator has no such bound: it holds one occurrence at a time.
const MaxOccurrences = 1_000_000

// ErrTooManyOccurrences is wrapped by the error Occurrences returns for a
// window with more than MaxOccurrences occurrences.
var ErrTooManyOccurrences = errors.New("too many occurrences")

// ErrStopped is wrapped by the error Occurrences returns when its
// ExpandOptions.Stop said to stop.
var ErrStopped = errors.New("recurrence expansion stopped")

// RecurrenceError reports a bad recurrence set or expansion option. Op is
// "recurrence set" (NewRecurrenceSet) or "occurrences"; Field names the part
// (dtstart, rrule, exrule, rdate, exdate, limit, after, before, zone).
type RecurrenceError struct {
	Op, Field, Value, Reason string
	err                      error
}

func (e *RecurrenceError) Error() string {
	if e.Value == "" && e.Field != "rrule" && e.Field != "exrule" {
		return fmt.Sprintf("%s: %s: %s", e.Op, e.Field, e.Reason)
	}
	return fmt.Sprintf("%s: %s %s: %s", e.Op, e.Field, clip.Quote(e.Value), e.Reason)
}

// Unwrap returns the sentinel behind the error, if any (ErrUnbounded,
// ErrTooManyOccurrences).
func (e *RecurrenceError) Unwrap() error { return e.err }

// RecurrenceSet is a validated, immutable recurrence set, safe for
// concurrent use. Expansion happens in floating wall time (as if the wall
// clock were UTC), so no day is lost to a zone's transitions; each local
// time is then resolved in the zone given to Occurrences or Iterator.
type RecurrenceSet struct {
	dtstart LocalDateTime
	start   int64 // dtstart's wall seconds
	rules   []*rule
	exrules []*rule
	rdates  []int64 // sorted, unique, with dtstart
	exdates []int64 // sorted, unique
	bounded bool
}

// NewRecurrenceSet validates spec. DTStart is required, and DTStart, RDates
// and ExDates must be whole seconds (RFC 5545 DATE-TIME has no fraction).
// A rule is refused, with an error naming the part, when it lacks FREQ, has
// COUNT or INTERVAL below 1, COUNT with UNTIL, an UNTIL before DTStart, a
// BY* value out of range or not allowed with its FREQ, or an unknown part.
func NewRecurrenceSet(spec RecurrenceSpec) (*RecurrenceSet, error) {
	fail := func(field, value, format string, args ...any) (*RecurrenceSet, error) {
		return nil, &RecurrenceError{Op: "recurrence set", Field: field, Value: value, Reason: fmt.Sprintf(format, args...)}
	}
	d := spec.DTStart
	if d == (LocalDateTime{}) {
		return fail("dtstart", "", "required: the first occurrence, a local date-time such as 2024-03-09T09:00:00")
	}
	if err := d.check(); err != "" {
		return fail("dtstart", d.String(), "%s", err)
	}
	if d.Nanosecond != 0 {
		return fail("dtstart", d.String(), "a fraction of a second is not allowed (RFC 5545 DATE-TIME has whole seconds)")
	}
	if d == (LocalDateTime{Year: 1, Month: 1, Day: 1}) {
		// rrule-go reads the zero time.Time as "no DTSTART" and uses the clock.
		return fail("dtstart", d.String(), "0001-01-01T00:00:00 is not supported")
	}
	rs := &RecurrenceSet{dtstart: d, start: d.wall(), bounded: true}
	for i, list := range [][]LocalDateTime{spec.RDates, spec.ExDates} {
		field := [...]string{"rdate", "exdate"}[i]
		walls := []int64{}
		for _, l := range list {
			if err := l.check(); err != "" {
				return fail(field, l.String(), "%s", err)
			}
			if l.Nanosecond != 0 {
				return fail(field, l.String(), "a fraction of a second is not allowed (RFC 5545 DATE-TIME has whole seconds)")
			}
			walls = append(walls, l.wall())
		}
		if i == 0 {
			walls = append(walls, rs.start)
		}
		slices.Sort(walls)
		walls = slices.Compact(walls)
		if i == 0 {
			rs.rdates = walls
		} else {
			rs.exdates = walls
		}
	}
	for _, text := range spec.RRules {
		r, err := parseRule("rrule", text, d)
		if err != nil {
			return nil, err
		}
		rs.rules = append(rs.rules, r)
		if r.count == 0 && !r.until.set {
			rs.bounded = false
		}
	}
	for _, text := range spec.ExRules {
		r, err := parseRule("exrule", text, d)
		if err != nil {
			return nil, err
		}
		rs.exrules = append(rs.exrules, r)
	}
	return rs, nil
}

// DTStart returns the set's first occurrence.
func (rs *RecurrenceSet) DTStart() LocalDateTime { return rs.dtstart }

// Bounded reports whether the set is finite without a window: every RRULE
// has COUNT or UNTIL (or there is none).
func (rs *RecurrenceSet) Bounded() bool { return rs.bounded }

// ExpandOptions selects the occurrences Occurrences returns.
type ExpandOptions struct {
	Zone           string         // IANA id; required
	Disambiguation Disambiguation // for local times in gaps and overlaps; Reject by default
	Limit          int            // at most this many; 0 = no limit; negative is an error
	After          *Instant       // inclusive lower bound, if set
	Before         *Instant       // exclusive upper bound, if set
	// Stop, if set, is asked every few steps of the expansion (a step of
	// rrule-go may pass over many local times that do not match); true
	// ends Occurrences with an error wrapping ErrStopped. A caller's time
	// budget or context goes here.
	Stop func() bool
}

// Occurrences expands the set in opts.Zone and returns its occurrences in
// instant order, each instant once, within [After, Before) and at most
// Limit of them. An unbounded set needs Limit or Before (ErrUnbounded).
// More than MaxOccurrences of them is an error (ErrTooManyOccurrences),
// whatever Limit says. A Stop that says to stop is an error wrapping
// ErrStopped, whatever was found before it.
//
// Only returned occurrences are resolved: a local time that Reject refuses
// is an error (a *ResolveError) only if it would be returned, not when it
// lies before After or beyond Limit or Before.
func (rs *RecurrenceSet) Occurrences(opts ExpandOptions) ([]Instant, error) {
	fail := func(field, value, reason string, err error) ([]Instant, error) {
		return nil, &RecurrenceError{Op: "occurrences", Field: field, Value: value, Reason: reason, err: err}
	}
	switch {
	case opts.Limit < 0:
		return fail("limit", strconv.Itoa(opts.Limit), "must be >= 0 (0 means no limit)", nil)
	case !opts.Disambiguation.valid():
		return fail("disambiguation", opts.Disambiguation.String(), "want Reject, Compatible, Earlier or Later", nil)
	case opts.After != nil && opts.Before != nil && opts.Before.Before(*opts.After):
		return fail("before", opts.Before.String(), "is before after "+opts.After.String(), nil)
	case !rs.bounded && opts.Limit == 0 && opts.Before == nil:
		return fail("limit", "", "the set is unbounded (an RRULE has neither COUNT nor UNTIL): give limit or before", ErrUnbounded)
	}
	z, err := LoadZone(opts.Zone)
	if err != nil {
		return nil, fmt.Errorf("occurrences: %w", err)
	}
	it := rs.Iterator(z, opts.Disambiguation)
	it.halt.stop = opts.Stop
	if opts.After != nil {
		it.Seek(*opts.After)
	}
	out := []Instant{}
	for opts.Limit == 0 || len(out) < opts.Limit {
		if it.halt.check() {
			break
		}
		x, ok, err := it.nextItem()
		if it.halt.stopped {
			break
		}
		if err != nil {
			return nil, err
		}
		if !ok || opts.Before != nil && !keyBefore(x.key, *opts.Before) {
			break
		}
		if len(out) == MaxOccurrences {
			field := "before"
			if opts.Before == nil {
				field = "limit"
			}
			return fail(field, "", fmt.Sprintf("more than %d occurrences: give a smaller limit or an earlier before", MaxOccurrences), ErrTooManyOccurrences)
		}
		at, err := it.emit(x)
		if err != nil {
			return nil, err
		}
		out = append(out, at)
	}
	if it.halt.stopped {
		// The sources ended early: what was found is not the answer.
		return nil, fmt.Errorf("occurrences: %w after %d occurrences", ErrStopped, len(out))
	}
	return out, nil
}

// keyBefore reports whether Unix second s is before t.
func keyBefore(s int64, t Instant) bool {
	tsec, tns := floorDiv(t.ns, 1e9)
	return s < tsec || s == tsec && tns > 0
}

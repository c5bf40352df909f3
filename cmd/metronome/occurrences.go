package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/metronome-rt/metronome/temporal"
)

const occurrencesAbout = `Occurrences previews a recurrence set in a zone, as schedule-recurrence
would fire it: each occurrence with its local time and offset and the
instant in UTC, and a note where a gap or an overlap of the zone moved or
refused a local time. --dtstart and --zone are required; --rrule, --rdate,
--exdate and --exrule may repeat. It prints --count occurrences (default 10)
or those before --until (an instant such as 2025-01-01T00:00:00Z, or a local
date-time in the zone), whichever ends first.

  metronome occurrences --dtstart 2024-03-08T02:30:00 --rrule FREQ=DAILY \
      --zone America/New_York --count 4

With --disambiguation reject (the default) a local time in a gap or an
overlap is listed as refused, and the command exits 1, as
schedule-recurrence would fail.`

// list is a repeatable string flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

type occurrencesFlags struct {
	dtstart, zone, disambiguation, until string
	rrules, rdates, exdates, exrules     list
	count                                int
}

func occurrencesCommand() *command {
	return &command{
		name:     "occurrences",
		synopsis: "--dtstart LOCAL --zone ZONE [flags]",
		summary:  "Preview a recurrence set's occurrences in a zone.",
		about:    occurrencesAbout,
		bind: func(fs *flag.FlagSet, out streams) func(context.Context, []string) error {
			var f occurrencesFlags
			fs.StringVar(&f.dtstart, "dtstart", "", "the first occurrence, a `LOCAL` date-time such as 2024-03-08T02:30:00")
			fs.StringVar(&f.zone, "zone", "", "the IANA `ZONE` id, such as America/New_York")
			fs.Var(&f.rrules, "rrule", "an RFC 5545 `RULE` such as FREQ=DAILY (repeatable)")
			fs.Var(&f.rdates, "rdate", "a `LOCAL` date-time to add (repeatable)")
			fs.Var(&f.exdates, "exdate", "a `LOCAL` date-time to remove (repeatable)")
			fs.Var(&f.exrules, "exrule", "a `RULE` whose dates are removed (repeatable)")
			fs.StringVar(&f.disambiguation, "disambiguation", "reject", "how a local time in a gap or an overlap resolves (`MODE`: reject, compatible, earlier or later)")
			fs.IntVar(&f.count, "count", 0, "print at most `N` occurrences (default 10 without --until)")
			fs.StringVar(&f.until, "until", "", "stop before `WHEN`, an instant or a local date-time")
			return func(_ context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("occurrences takes no arguments, got " + args[0])
				}
				return f.print(out.stdout)
			}
		},
	}
}

func (f *occurrencesFlags) print(w io.Writer) error {
	if f.dtstart == "" || f.zone == "" {
		return usageError("occurrences needs --dtstart and --zone")
	}
	if f.count < 0 {
		return usageError(fmt.Sprintf("--count: want an integer >= 1, got %d", f.count))
	}
	d, err := temporal.ParseDisambiguation(f.disambiguation)
	if err != nil {
		return usageError("--disambiguation: " + err.Error())
	}
	z, err := temporal.LoadZone(f.zone)
	if err != nil {
		return usageError("--zone: " + err.Error())
	}
	spec := temporal.RecurrenceSpec{RRules: f.rrules, ExRules: f.exrules}
	if spec.DTStart, err = temporal.ParseLocalDateTime(f.dtstart); err != nil {
		return usageError("--dtstart: " + err.Error())
	}
	for _, l := range []struct {
		name string
		in   list
		out  *[]temporal.LocalDateTime
	}{{"--rdate", f.rdates, &spec.RDates}, {"--exdate", f.exdates, &spec.ExDates}} {
		for _, s := range l.in {
			v, err := temporal.ParseLocalDateTime(s)
			if err != nil {
				return usageError(l.name + ": " + err.Error())
			}
			*l.out = append(*l.out, v)
		}
	}
	rs, err := temporal.NewRecurrenceSet(spec)
	if err != nil {
		return usageError(err.Error())
	}
	until, bounded, err := f.untilIn(z)
	if err != nil {
		return err
	}
	count := f.count
	if count == 0 && !bounded {
		count = 10
	}
	// Walk under Reject to see each local time the zone refuses, then
	// resolve it as the chosen disambiguation would.
	it := rs.Iterator(z, temporal.Reject)
	var last temporal.Instant
	n, refused, first := 0, 0, ""
	for count == 0 || n < count {
		at, ok, err := it.Next()
		note := ""
		var re *temporal.ResolveError
		switch {
		case errors.As(err, &re) && re.Kind != "range":
			what := "does not exist (a gap)"
			if re.Kind == "overlap" {
				what = "is ambiguous (an overlap)"
			}
			if d == temporal.Reject {
				if refused++; refused == 1 {
					first = re.Local.String()
				}
				if _, err := fmt.Fprintf(w, "   -  refused: local time %s %s in %s\n", re.Local, what, f.zone); err != nil {
					return err
				}
				continue
			}
			if at, err = z.Resolve(re.Local, d); err != nil {
				return err
			}
			note = fmt.Sprintf("  (local time %s %s; %s gives this instant)", re.Local, what, d)
		case err != nil:
			return err
		case !ok:
			count = n
			continue
		}
		if bounded && !at.Before(until) {
			break
		}
		if n > 0 && at == last {
			continue // two local times, one instant: one occurrence
		}
		last = at
		n++
		zoned, err := at.ZonedString(f.zone)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%4d  %-40s %s%s\n", n, zoned, at, note); err != nil {
			return err
		}
	}
	if refused > 0 {
		more := ""
		if refused > 1 {
			more = fmt.Sprintf(" and %d more", refused-1)
		}
		return fmt.Errorf("local time %s%s refused under --disambiguation reject: give compatible, earlier or later", first, more)
	}
	return nil
}

// untilIn reads --until as an instant, else as a local date-time in z.
func (f *occurrencesFlags) untilIn(z *temporal.Zone) (temporal.Instant, bool, error) {
	if f.until == "" {
		return temporal.Instant{}, false, nil
	}
	if t, err := temporal.ParseInstant(f.until); err == nil {
		return t, true, nil
	}
	l, err := temporal.ParseLocalDateTime(f.until)
	if err != nil {
		return temporal.Instant{}, false, usageError("--until: want an instant such as 2025-01-01T00:00:00Z or a local date-time such as 2025-01-01T00:00:00, got " + f.until)
	}
	t, err := z.Resolve(l, temporal.Compatible)
	return t, true, err
}

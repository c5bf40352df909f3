package scripting

import (
	"errors"
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/temporal"
)

// Temporal.recurrence-set: made from RFC 5545 parts, and expanded by
// occurrences.

var (
	recurrenceKeys  = []string{"dtstart", "rrule", "rdate", "exdate", "exrule"}
	occurrencesKeys = []string{"zone-id", "disambiguation", "limit", "after", "before"}
)

// recurrenceSetNew is Temporal["recurrence-set"]{...}: the table is checked
// now, so a bad rule fails where it is written, not where it is expanded.
func recurrenceSetNew(L *lua.LState) int {
	const fn = "recurrence-set"
	o := checkOptions(L, 1, fn, recurrenceKeys, map[string]string{
		"zone-id": "the zone is given to occurrences, not to the set",
		"zone_id": "the zone is given to occurrences, not to the set",
		"rrules":  "use :rrule (a string or a list of strings)",
		"rdates":  "use :rdate (a list of local date-times)",
		"exdates": "use :exdate (a list of local date-times)",
		"exrules": "use :exrule (a string or a list of strings)",
	})
	dt, ok := o.get("dtstart").(lua.LString)
	if !ok {
		o.fail("dtstart", "a local date-time string without offset (such as \"2024-03-09T09:00:00\")")
	}
	var spec temporal.RecurrenceSpec
	var err error
	if spec.DTStart, err = temporal.ParseLocalDateTime(string(dt)); err != nil {
		argError(L, 1, fn, ":dtstart: "+err.Error())
	}
	spec.RRules = ruleList(&o, "rrule")
	spec.ExRules = ruleList(&o, "exrule")
	spec.RDates = localList(&o, "rdate")
	spec.ExDates = localList(&o, "exdate")
	rs, err := temporal.NewRecurrenceSet(spec)
	if err != nil {
		raiseError(L, luaCall{fn, 1, true}, err)
	}
	ud := L.NewUserData()
	ud.Value = &recurrenceValue{rs: rs, dtstart: spec.DTStart.String()}
	ud.Metatable = temporalMetatable(L, recurrenceType)
	L.Push(ud)
	return 1
}

// listItems returns the items of a sequence table 1..n; any other key is an
// error naming the option.
func listItems(o *options, key string, tbl *lua.LTable) []lua.LValue {
	n := tbl.Len()
	var bad lua.LValue
	tbl.ForEach(func(k, _ lua.LValue) {
		if bad != nil {
			return
		}
		if i, ok := toInteger(k); !ok || i < 1 || i > int64(n) {
			bad = k
		}
	})
	if bad != nil {
		argError(o.L, o.arg, o.fn, fmt.Sprintf(":%s must be a list (keys 1..n), got key %s", key, describe(bad)))
	}
	items := make([]lua.LValue, n)
	for i := range items {
		items[i] = tbl.RawGetInt(i + 1)
	}
	return items
}

// ruleList reads an rrule or exrule option: a string or a list of strings.
func ruleList(o *options, key string) []string {
	const want = "a rule string (such as \"FREQ=DAILY;COUNT=3\") or a list of them"
	switch v := o.get(key).(type) {
	case *lua.LNilType:
		return nil
	case lua.LString:
		return []string{string(v)}
	case *lua.LTable:
		items := listItems(o, key, v)
		out := make([]string, len(items))
		for i, it := range items {
			s, ok := it.(lua.LString)
			if !ok {
				argError(o.L, o.arg, o.fn, fmt.Sprintf(":%s[%d] must be a rule string (such as \"FREQ=DAILY;COUNT=3\"), got %s", key, i+1, describe(it)))
			}
			out[i] = string(s)
		}
		return out
	}
	o.fail(key, want)
	return nil
}

// localList reads an rdate or exdate option: a list of local date-time
// strings.
func localList(o *options, key string) []temporal.LocalDateTime {
	v := o.get(key)
	if v == lua.LNil {
		return nil
	}
	tbl, ok := v.(*lua.LTable)
	if !ok {
		o.fail(key, "a list of local date-time strings (such as {\"2024-03-09T09:00:00\"})")
	}
	items := listItems(o, key, tbl)
	out := make([]temporal.LocalDateTime, len(items))
	for i, it := range items {
		s, ok := it.(lua.LString)
		if !ok {
			argError(o.L, o.arg, o.fn, fmt.Sprintf(":%s[%d] must be a local date-time string (such as \"2024-03-09T09:00:00\"), got %s", key, i+1, describe(it)))
		}
		l, err := temporal.ParseLocalDateTime(string(s))
		if err != nil {
			argError(o.L, o.arg, o.fn, fmt.Sprintf(":%s[%d]: %v", key, i+1, err))
		}
		out[i] = l
	}
	return out
}

// recurrenceOccurrences is rs:occurrences{...}: the set's instants in order,
// as a list.
func recurrenceOccurrences(L *lua.LState) int {
	const fn = "occurrences"
	rs, ok := toRecurrenceSet(L.Get(1))
	if !ok {
		argError(L, 1, fn, "a Temporal.recurrence-set expected (call it as rs:occurrences{...}), got "+describe(L.Get(1)))
	}
	opts, o := expandOptions(L, 2, fn)
	opts.Stop = sandbox.StopCheck(L) // a rule that rarely matches scans long between occurrences
	list, err := rs.Occurrences(opts)
	if errors.Is(err, temporal.ErrStopped) {
		sandbox.CheckBudget(L)
	}
	if err != nil {
		raiseError(L, luaCall{fn, o.arg, true}, err)
	}
	out := L.CreateTable(len(list), 0)
	for _, t := range list {
		out.Append(newInstant(L, t))
	}
	L.Push(out)
	return 1
}

// expandOptions reads argument n of fn as occurrences' option table.
func expandOptions(L *lua.LState, n int, fn string) (temporal.ExpandOptions, *options) {
	o := checkOptions(L, n, fn, occurrencesKeys, map[string]string{
		"zone": "use :zone-id",
	})
	opts := temporal.ExpandOptions{
		Zone:           zoneOption(&o, "zone-id"),
		Disambiguation: disambiguationOption(&o, "disambiguation"),
		Limit:          limitOption(&o, "limit"),
	}
	for _, key := range []string{"after", "before"} {
		v := o.get(key)
		if v == lua.LNil {
			continue
		}
		t, ok := toInstant(v)
		if !ok {
			o.fail(key, "a Temporal.instant")
		}
		if key == "after" {
			opts.After = &t
		} else {
			opts.Before = &t
		}
	}
	return opts, &o
}

// zoneOption returns a required IANA zone id option, checked against the
// embedded database.
func zoneOption(o *options, key string) string {
	zone, ok := o.get(key).(lua.LString)
	if !ok {
		o.fail(key, "an IANA zone id string (such as \"America/New_York\"); there is no default zone")
	}
	if _, err := temporal.LoadZone(string(zone)); err != nil {
		argError(o.L, o.arg, o.fn, fmt.Sprintf(":%s: %v", key, err))
	}
	return string(zone)
}

// disambiguationOption returns an optional disambiguation name; absent is
// Reject.
func disambiguationOption(o *options, key string) temporal.Disambiguation {
	s, ok := o.str(key, false)
	if !ok {
		return temporal.Reject
	}
	d, err := temporal.ParseDisambiguation(s)
	if err != nil {
		argError(o.L, o.arg, o.fn, ":"+err.Error())
	}
	return d
}

// limitOption returns an optional limit, an integer >= 1; absent is 0 (no
// limit). An integral number beyond the int range means no practical limit.
func limitOption(o *options, key string) int {
	v := o.get(key)
	if v == lua.LNil {
		return 0
	}
	f, isNum := v.(lua.LNumber)
	switch {
	case !isNum || math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) || float64(f) != math.Trunc(float64(f)):
		o.fail(key, "an integer")
	case f < 1:
		o.fail(key, "an integer >= 1")
	case float64(f) >= float64(maxInt):
		return maxInt
	}
	return int(f)
}

const maxInt = int(^uint(0) >> 1)

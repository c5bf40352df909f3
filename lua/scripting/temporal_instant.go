package scripting

import (
	"errors"
	"fmt"
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/internal/clip"
	"github.com/metronome-rt/metronome/temporal"
)

// Temporal.instant: parsed, made from the epoch or a local date-time in a
// zone, and its methods.

func instantParse(L *lua.LState) int {
	const fn = "instant.parse"
	s, ok := L.Get(1).(lua.LString)
	if !ok {
		argError(L, 1, fn, "RFC 3339 string expected (such as \"2024-03-10T06:59:00Z\"), got "+describe(L.Get(1)))
	}
	t, err := temporal.ParseInstant(string(s))
	if err != nil {
		raiseError(L, luaCall{fn: fn}, err)
	}
	L.Push(newInstant(L, t))
	return 1
}

func instantFromEpochMs(L *lua.LState) int {
	const fn = "instant.from-epoch-ms"
	v := L.Get(1)
	ms, ok := toInteger(v)
	if !ok {
		argError(L, 1, fn, "epoch milliseconds must be an integer number, got "+describe(v))
	}
	t, err := temporal.FromUnixMilli(ms)
	if err != nil {
		raiseError(L, luaCall{fn: fn}, err)
	}
	L.Push(newInstant(L, t))
	return 1
}

func instantFromEpochNs(L *lua.LState) int {
	const fn = "instant.from-epoch-ns"
	var ns int64
	switch v := L.Get(1).(type) {
	case lua.LString:
		n, err := parseDecimal(string(v))
		if err != nil {
			argError(L, 1, fn, fmt.Sprintf("epoch nanoseconds %s %v", clip.Quote(string(v)), err))
		}
		ns = n
	case lua.LNumber:
		n, ok := toInteger(v)
		if !ok {
			argError(L, 1, fn, "epoch nanoseconds must be an integer, got "+describe(v))
		}
		if n > maxExactNumber || n < -maxExactNumber {
			argError(L, 1, fn, "epoch nanoseconds "+describe(v)+" is beyond 2^53, where Lua numbers stop being exact; pass a decimal string such as t:epoch_ns() gives")
		}
		ns = n
	default:
		argError(L, 1, fn, "epoch nanoseconds must be a decimal string or an integer number, got "+describe(v))
	}
	L.Push(newInstant(L, temporal.FromUnixNano(ns)))
	return 1
}

// parseDecimal reads an optionally signed decimal integer: digits only, no
// spaces, no base prefix, no exponent.
func parseDecimal(s string) (int64, error) {
	digits := s
	if digits != "" && (digits[0] == '-' || digits[0] == '+') {
		digits = digits[1:]
	}
	if digits == "" {
		return 0, errors.New("is not a decimal integer")
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, errors.New("is not a decimal integer")
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, temporal.ErrOverflow
	}
	return n, nil
}

func instantFromLocal(L *lua.LState) int {
	const fn = "instant.from-local"
	ldtS, ok := L.Get(1).(lua.LString)
	if !ok {
		argError(L, 1, fn, "local date-time string expected (such as \"2024-03-10T02:30:00\"), got "+describe(L.Get(1)))
	}
	zoneS, ok := L.Get(2).(lua.LString)
	if !ok {
		argError(L, 2, fn, "zone id string expected (such as \"America/New_York\"), got "+describe(L.Get(2)))
	}
	dis := temporal.Reject
	switch v := L.Get(3).(type) {
	case *lua.LNilType:
	case lua.LString:
		d, err := temporal.ParseDisambiguation(string(v))
		if err != nil {
			argError(L, 3, fn, err.Error())
		}
		dis = d
	default:
		argError(L, 3, fn, "disambiguation must be a string (reject, compatible, earlier or later), got "+describe(v))
	}
	ldt, err := temporal.ParseLocalDateTime(string(ldtS))
	if err != nil {
		raiseError(L, luaCall{fn: fn}, err)
	}
	zone, err := temporal.LoadZone(string(zoneS))
	if err != nil {
		raiseError(L, luaCall{fn: fn}, err)
	}
	t, err := zone.Resolve(ldt, dis)
	if err != nil {
		raiseError(L, luaCall{fn: fn}, err)
	}
	L.Push(newInstant(L, t))
	return 1
}

func checkInstantSelf(L *lua.LState, method string) temporal.Instant {
	t, ok := toInstant(L.Get(1))
	if !ok {
		argError(L, 1, method, fmt.Sprintf("a Temporal.instant expected (call it as t:%s()), got %s", snake(method), describe(L.Get(1))))
	}
	return t
}

func instantEpochMs(L *lua.LState) int {
	t := checkInstantSelf(L, "epoch-ms")
	L.Push(lua.LNumber(t.UnixMilli()))
	return 1
}

func instantEpochNs(L *lua.LState) int {
	t := checkInstantSelf(L, "epoch-ns")
	L.Push(lua.LString(strconv.FormatInt(t.UnixNano(), 10)))
	return 1
}

func instantToZonedString(L *lua.LState) int {
	const fn = "to-zoned-string"
	t := checkInstantSelf(L, fn)
	zone, ok := L.Get(2).(lua.LString)
	if !ok {
		argError(L, 2, fn, "zone id string expected (such as \"America/New_York\"), got "+describe(L.Get(2)))
	}
	s, err := t.ZonedString(string(zone))
	if err != nil {
		raiseError(L, luaCall{fn: fn}, err)
	}
	L.Push(lua.LString(s))
	return 1
}

// instantFields gives the calendar fields of an instant in a zone, so that
// scripts need not pattern-match to-zoned-string.
func instantFields(L *lua.LState) int {
	const fn = "fields"
	t := checkInstantSelf(L, fn)
	zone, ok := L.Get(2).(lua.LString)
	if !ok {
		argError(L, 2, fn, "zone id string expected (such as \"America/New_York\"), got "+describe(L.Get(2)))
	}
	f, err := t.Fields(string(zone))
	if err != nil {
		raiseError(L, luaCall{fn: fn}, err)
	}
	r := newRecord(L, 10)
	for _, kv := range [...]struct {
		k string
		v int
	}{{"year", f.Year}, {"month", f.Month}, {"day", f.Day}, {"hour", f.Hour}, {"minute", f.Minute},
		{"second", f.Second}, {"nanosecond", f.Nanosecond}, {"weekday", f.Weekday}, {"day-of-year", f.DayOfYear}} {
		r.RawSetString(kv.k, lua.LNumber(kv.v))
	}
	r.RawSetString("offset", lua.LString(f.OffsetString()))
	L.Push(r)
	return 1
}

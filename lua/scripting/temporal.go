package scripting

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/internal/clip"
	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/temporal"
)

// The Lua module temporal: exact durations, instants, clocks and recurrence
// sets as userdata. Every value keeps its Go value in LUserData.Value
// (durationValue, instantValue, *clockValue, *recurrenceValue), so the type
// checks below (toDuration, toInstant, ...) look at the Go type and work for a
// value whichever state made it. The metatables are made once per state, all
// four together, and kept in its registry under the types' names.
//
// Lua numbers are float64: exact integers stop at 2^53, so durations and
// instants are never handed out as plain numbers except where the contract
// says so (total-ms, total-ns below 2^53, epoch-ms).

// The temporal types' names: what getmetatable returns for a value, and
// the registry names of their metatables.
const (
	durationType   = "Temporal.duration"
	instantType    = "Temporal.instant"
	clockType      = "Temporal.clock"
	recurrenceType = "Temporal.recurrence-set"
)

// maxExactNumber is 2^53: the largest magnitude up to which every integer is
// a float64 (Lua number) exactly.
const maxExactNumber = 1 << 53

// durationValue is a temporal.Duration inside a userdata.
type durationValue temporal.Duration

func (v durationValue) luaTypeName() string {
	return durationType + " " + temporal.Duration(v).String()
}

// instantValue is a temporal.Instant inside a userdata.
type instantValue temporal.Instant

func (v instantValue) luaTypeName() string {
	return instantType + " " + temporal.Instant(v).String()
}

// clockValue is a temporal.Clock inside a userdata; desc says which kind.
type clockValue struct {
	c    temporal.Clock
	desc string
}

func (v *clockValue) luaTypeName() string { return v.desc }

// recurrenceValue is a checked recurrence set inside a userdata.
type recurrenceValue struct {
	rs      *temporal.RecurrenceSet
	dtstart string
}

func (v *recurrenceValue) luaTypeName() string {
	return recurrenceType + " DTSTART " + v.dtstart
}

// temporalMetatable returns L's metatable of the temporal type named typ,
// making the four on first use, so the helpers work in a state that never
// required the module.
func temporalMetatable(L *lua.LState, typ string) *lua.LTable {
	if mt, ok := L.GetTypeMetatable(typ).(*lua.LTable); ok {
		return mt
	}
	newTemporalMetatables(L)
	return L.GetTypeMetatable(typ).(*lua.LTable)
}

// newTemporalMetatables makes the four temporal metatables together: a
// duration's and an instant's must hold the same operator functions.
func newTemporalMetatables(L *lua.LState) {
	// Durations and instants share their operator functions: gopher-lua calls
	// __eq, __lt and __le only when both operands have the same function, and
	// a shared one can name both types when they are mixed.
	ops := map[string]lua.LGFunction{
		"__add": temporalAdd,
		"__sub": temporalSub,
		"__mul": temporalMul,
		"__div": temporalDiv,
		"__mod": temporalMod,
		"__pow": temporalPow,
		"__unm": temporalUnm,
		"__eq":  temporalEq,
		"__lt":  temporalLt,
		"__le":  temporalLe,
	}
	opFns := make(map[string]*lua.LFunction, len(ops))
	for name, f := range ops {
		opFns[name] = L.NewFunction(f)
	}
	tostring := L.NewFunction(temporalToString)
	misuse := temporalMisuse(L, opFns["__lt"], opFns["__le"])
	newMeta := func(kind string, methods map[string]lua.LGFunction, withOps bool) {
		mt := L.NewTypeMetatable(kind)
		idx := L.NewTable()
		setFuncs(L, idx, methods)
		strictMethods(L, kind, idx)
		mt.RawSetString("__index", idx)
		mt.RawSetString("__tostring", tostring)
		mt.RawSetString("__metatable", lua.LString(kind))
		for name, fn := range misuse {
			mt.RawSetString(name, fn)
		}
		if withOps {
			for name, fn := range opFns {
				mt.RawSetString(name, fn)
			}
		}
	}
	newMeta(durationType, map[string]lua.LGFunction{
		"total-ms": durationTotalMs,
		"total-ns": durationTotalNs,
		"round":    durationRound,
		"floor":    durationFloor,
	}, true)
	newMeta(instantType, map[string]lua.LGFunction{
		"epoch-ms":        instantEpochMs,
		"epoch-ns":        instantEpochNs,
		"to-zoned-string": instantToZonedString,
		"fields":          instantFields,
	}, true)
	newMeta(clockType, map[string]lua.LGFunction{
		"now": clockNow,
	}, false)
	newMeta(recurrenceType, map[string]lua.LGFunction{
		"occurrences": recurrenceOccurrences,
	}, false)
}

// ---- helpers for other bindings ----

// newDuration returns a duration userdata for d.
func newDuration(L *lua.LState, d temporal.Duration) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = durationValue(d)
	ud.Metatable = temporalMetatable(L, durationType)
	return ud
}

// pushDuration pushes a duration userdata for d.
func pushDuration(L *lua.LState, d temporal.Duration) { L.Push(newDuration(L, d)) }

// toDuration returns the duration in v; ok only for a duration userdata.
func toDuration(v lua.LValue) (temporal.Duration, bool) {
	if ud, ok := v.(*lua.LUserData); ok {
		if d, ok := ud.Value.(durationValue); ok {
			return temporal.Duration(d), true
		}
	}
	return 0, false
}

// newInstant returns an instant userdata for t.
func newInstant(L *lua.LState, t temporal.Instant) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = instantValue(t)
	ud.Metatable = temporalMetatable(L, instantType)
	return ud
}

// toInstant returns the instant in v; ok only for an instant userdata.
func toInstant(v lua.LValue) (temporal.Instant, bool) {
	if ud, ok := v.(*lua.LUserData); ok {
		if t, ok := ud.Value.(instantValue); ok {
			return temporal.Instant(t), true
		}
	}
	return temporal.Instant{}, false
}

// newClock returns a clock userdata for c; desc is what tostring shows
// after "Temporal.clock" (for example "fixed 2024-03-10T06:59:00Z"), empty
// for nothing.
func newClock(L *lua.LState, c temporal.Clock, desc string) *lua.LUserData {
	name := clockType
	if desc != "" {
		name += " " + desc
	}
	ud := L.NewUserData()
	ud.Value = &clockValue{c: c, desc: name}
	ud.Metatable = temporalMetatable(L, clockType)
	return ud
}

// toClock returns the clock in v; ok only for a clock userdata.
func toClock(v lua.LValue) (temporal.Clock, bool) {
	if ud, ok := v.(*lua.LUserData); ok {
		if c, ok := ud.Value.(*clockValue); ok {
			return c.c, true
		}
	}
	return nil, false
}

// toRecurrenceSet returns the set in v; ok only for a recurrence-set
// userdata.
func toRecurrenceSet(v lua.LValue) (*temporal.RecurrenceSet, bool) {
	if ud, ok := v.(*lua.LUserData); ok {
		if r, ok := ud.Value.(*recurrenceValue); ok {
			return r.rs, true
		}
	}
	return nil, false
}

// ---- the module ----

// loadTemporal is the loader of require "temporal".
func loadTemporal(L *lua.LState) int {
	mod := L.CreateTable(0, 6)

	duration := L.NewTable()
	setFuncs(L, duration, map[string]lua.LGFunction{
		"parse":   durationParse,
		"from-ms": durationFromMs,
	})
	dmt := L.NewTable()
	dmt.RawSetString("__call", L.NewFunction(durationCall))
	L.SetMetatable(duration, dmt)
	mod.RawSetString("duration", duration)

	instant := L.NewTable()
	setFuncs(L, instant, map[string]lua.LGFunction{
		"parse":         instantParse,
		"from-epoch-ms": instantFromEpochMs,
		"from-epoch-ns": instantFromEpochNs,
		"from-local":    instantFromLocal,
	})
	mod.RawSetString("instant", instant)

	clock := L.NewTable()
	setFuncs(L, clock, map[string]lua.LGFunction{
		"fixed":  clockFixed,
		"system": clockSystem,
	})
	mod.RawSetString("clock", clock)
	strictModule(L, "temporal.instant", instant)
	strictModule(L, "temporal.clock", clock)

	setFuncs(L, mod, map[string]lua.LGFunction{
		"recurrence-set": recurrenceSetNew,
	})
	strictModule(L, "temporal", mod)
	L.Push(mod)
	return 1
}

// ---- durations ----

var durationKeys = []string{"hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"}

func durationKeyIndex(k string) int {
	switch k {
	case "hours":
		return 0
	case "minutes":
		return 1
	case "seconds":
		return 2
	case "milliseconds":
		return 3
	case "microseconds":
		return 4
	case "nanoseconds":
		return 5
	}
	return -1
}

// durationCall is Temporal.duration{...}: the first argument is the callable
// table itself, the user's first argument is the field table.
func durationCall(L *lua.LState) int {
	const fn = "duration"
	tbl, ok := L.Get(2).(*lua.LTable)
	if !ok {
		argError(L, 1, fn, "option table expected, got "+describe(L.Get(2)))
	}
	// The warm path: one pass, no maps. On anything odd, the slow path below
	// finds the first problem and raises the error it deserves.
	var f [6]int64
	var seen uint8
	bad := false
	tbl.ForEach(func(k, v lua.LValue) {
		if bad {
			return
		}
		ks, ok := k.(lua.LString)
		if !ok {
			bad = true
			return
		}
		i := durationKeyIndex(string(ks))
		if i < 0 || seen&(1<<i) != 0 {
			bad = true
			return
		}
		seen |= 1 << i
		n, ok := toInteger(v)
		if !ok {
			bad = true
			return
		}
		f[i] = n
	})
	if bad {
		durationFieldsSlow(L, tbl)
	}
	d, err := temporal.DurationOf(temporal.DurationFields{
		Hours: f[0], Minutes: f[1], Seconds: f[2],
		Milliseconds: f[3], Microseconds: f[4], Nanoseconds: f[5],
	})
	if err != nil {
		argError(L, 1, fn, fmt.Sprintf(":%s %d: %v", durationKeys[overflowField(f)], f[overflowField(f)], err))
	}
	pushDuration(L, d)
	return 1
}

// overflowField returns the index of the field (in durationKeys order)
// whose product or whose addition to the fields before it overflows, as
// temporal.DurationOf sums them.
func overflowField(f [6]int64) int {
	units := [...]temporal.Duration{temporal.Hour, temporal.Minute, temporal.Second, temporal.Millisecond, temporal.Microsecond, temporal.Nanosecond}
	var sum temporal.Duration
	for i, u := range units {
		v, err := u.Mul(f[i])
		if err == nil {
			sum, err = sum.Add(v)
		}
		if err != nil {
			return i
		}
	}
	return len(units) - 1
}

// durationFieldsSlow raises the error for a field table the warm path
// refused: the key checks of readOptions first, then each field in order.
func durationFieldsSlow(L *lua.LState, tbl *lua.LTable) {
	o := readOptions(L, tbl, 1, "duration", durationKeys, map[string]string{
		"days":  "days are not an exact length; use hours",
		"weeks": "weeks are not an exact length; use hours",
		"ms":    "use :milliseconds",
		"us":    "use :microseconds",
		"ns":    "use :nanoseconds",
	})
	for _, k := range durationKeys {
		if o.has(k) {
			integerOption(&o, k)
		}
	}
	raise(L, "duration: bad field table") // not reached: the warm path refused it for a reason
}

// integerOption returns an integer-valued option; an integral number out of
// the int64 range is reported as an overflow, not as "not an integer".
func integerOption(o *options, key string) int64 {
	v := o.get(key)
	n, ok := toInteger(v)
	if !ok {
		if f, isNum := v.(lua.LNumber); isNum && !math.IsInf(float64(f), 0) && float64(f) == math.Trunc(float64(f)) {
			argError(o.L, o.arg, o.fn, fmt.Sprintf(":%s %s %v", key, formatNumber(float64(f)), temporal.ErrOverflow))
		}
		o.fail(key, "an integer")
	}
	return n
}

func durationParse(L *lua.LState) int {
	const fn = "duration.parse"
	s, ok := L.Get(1).(lua.LString)
	if !ok {
		argError(L, 1, fn, "string expected (ISO 8601 such as \"PT1.5S\" or a short form such as \"90s\"), got "+describe(L.Get(1)))
	}
	d, err := temporal.ParseDurationText(string(s))
	if err != nil {
		raiseError(L, luaCall{fn: fn}, err)
	}
	pushDuration(L, d)
	return 1
}

func durationFromMs(L *lua.LState) int {
	const fn = "duration.from-ms"
	ms := checkNumber(L, 1, fn, "milliseconds")
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		argError(L, 1, fn, "milliseconds must be finite, got number "+formatNumber(ms))
	}
	d, err := temporal.DurationFromMillis(ms)
	if err != nil {
		raiseError(L, luaCall{fn: fn}, err)
	}
	pushDuration(L, d)
	return 1
}

// checkDurationSelf returns the duration a method was called on.
func checkDurationSelf(L *lua.LState, method string) temporal.Duration {
	d, ok := toDuration(L.Get(1))
	if !ok {
		argError(L, 1, method, fmt.Sprintf("a Temporal.duration expected (call it as d:%s()), got %s", snake(method), describe(L.Get(1))))
	}
	return d
}

// durationRound is d:round(unit): the multiple of unit nearest d, halfway
// away from zero.
func durationRound(L *lua.LState) int {
	return durationToUnit(L, "round", temporal.Duration.Round)
}

// durationFloor is d:floor(unit): the greatest multiple of unit <= d.
func durationFloor(L *lua.LState) int {
	return durationToUnit(L, "floor", temporal.Duration.Floor)
}

func durationToUnit(L *lua.LState, method string, f func(temporal.Duration, temporal.Duration) (temporal.Duration, error)) int {
	d := checkDurationSelf(L, method)
	unit, ok := toDuration(L.Get(2))
	if !ok || unit <= 0 {
		argError(L, 2, method, "unit must be a Temporal.duration > 0, got "+describe(L.Get(2)))
	}
	r, err := f(d, unit)
	if err != nil {
		raise(L, "%s: %v", method, err)
	}
	pushDuration(L, r)
	return 1
}

func durationTotalMs(L *lua.LState) int {
	d := checkDurationSelf(L, "total-ms")
	L.Push(lua.LNumber(d.Milliseconds()))
	return 1
}

func durationTotalNs(L *lua.LState) int {
	d := checkDurationSelf(L, "total-ns")
	ns := d.Nanoseconds()
	if ns > maxExactNumber || ns < -maxExactNumber {
		raise(L, "total-ns: duration %s is %d ns, beyond 2^53 where Lua numbers stop being exact; use tostring(d) or total-ms", d, ns)
	}
	L.Push(lua.LNumber(ns))
	return 1
}

// ---- instants ----

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

// ---- operators shared by durations and instants ----

func badOperands(L *lua.LState, op string, a, b lua.LValue, want string) {
	raise(L, "bad operands to '%s' (%s %s %s; %s)", op, describe(a), op, describe(b), want)
}

func temporalAdd(L *lua.LState) int {
	a, b := L.Get(1), L.Get(2)
	if x, ok := toDuration(a); ok {
		if y, ok := toDuration(b); ok {
			r, err := x.Add(y)
			if err != nil {
				raise(L, "bad operands to '+' (%v)", err)
			}
			pushDuration(L, r)
			return 1
		}
		if t, ok := toInstant(b); ok {
			return pushInstantPlus(L, t, x)
		}
	} else if t, ok := toInstant(a); ok {
		if y, ok := toDuration(b); ok {
			return pushInstantPlus(L, t, y)
		}
	}
	badOperands(L, "+", a, b, "want duration + duration or instant + duration")
	return 0
}

func pushInstantPlus(L *lua.LState, t temporal.Instant, d temporal.Duration) int {
	r, err := t.Add(d)
	if err != nil {
		raise(L, "bad operands to '+' (%v)", err)
	}
	L.Push(newInstant(L, r))
	return 1
}

func temporalSub(L *lua.LState) int {
	a, b := L.Get(1), L.Get(2)
	if x, ok := toDuration(a); ok {
		if y, ok := toDuration(b); ok {
			r, err := x.Sub(y)
			if err != nil {
				raise(L, "bad operands to '-' (%v)", err)
			}
			pushDuration(L, r)
			return 1
		}
	} else if t, ok := toInstant(a); ok {
		if y, ok := toDuration(b); ok {
			r, err := instantMinus(t, y)
			if err != nil {
				raise(L, "bad operands to '-' (%v - %v %v)", t, y, temporal.ErrOverflow)
			}
			L.Push(newInstant(L, r))
			return 1
		}
		if u, ok := toInstant(b); ok {
			r, err := t.Sub(u)
			if err != nil {
				raise(L, "bad operands to '-' (%v)", err)
			}
			pushDuration(L, r)
			return 1
		}
	}
	badOperands(L, "-", a, b, "want duration - duration, instant - duration or instant - instant")
	return 0
}

// instantMinus returns t-d, also for the most negative d, whose negation
// does not fit.
func instantMinus(t temporal.Instant, d temporal.Duration) (temporal.Instant, error) {
	if d == math.MinInt64 {
		r, err := t.Add(math.MaxInt64) // t - d = t + (2^63 - 1) + 1
		if err == nil {
			r, err = r.Add(1)
		}
		return r, err
	}
	return t.Add(-d)
}

func temporalMul(L *lua.LState) int {
	a, b := L.Get(1), L.Get(2)
	d, ok := toDuration(a)
	k := b
	if !ok {
		d, ok = toDuration(b)
		k = a
	}
	if ok {
		if n, isInt := toInteger(k); isInt {
			r, err := d.Mul(n)
			if err != nil {
				raise(L, "bad operands to '*' (%v)", err)
			}
			pushDuration(L, r)
			return 1
		}
		if n, isNum := k.(lua.LNumber); isNum && !math.IsNaN(float64(n)) && !math.IsInf(float64(n), 0) {
			r, err := d.Scale(float64(n))
			if err != nil {
				raise(L, "bad operands to '*' (%v)", err)
			}
			pushDuration(L, r)
			return 1
		}
	}
	badOperands(L, "*", a, b, "a duration multiplies by a finite number only")
	return 0
}

// temporalDiv is d / n, exact: a quotient that is not a whole number of
// nanoseconds is an error, never rounded.
func temporalDiv(L *lua.LState) int {
	a, b := L.Get(1), L.Get(2)
	if d, ok := toDuration(a); ok {
		if n, isNum := b.(lua.LNumber); isNum && !math.IsNaN(float64(n)) && !math.IsInf(float64(n), 0) {
			r, err := d.Div(float64(n))
			if err != nil {
				hint := ""
				if errors.Is(err, temporal.ErrInexact) {
					hint = "; floor or round it first, such as d:floor(unit) / n, with a unit n divides"
				}
				raise(L, "bad operands to '/' (%v%s)", err, hint)
			}
			pushDuration(L, r)
			return 1
		}
		if _, isDur := toDuration(b); isDur {
			badOperands(L, "/", a, b, "a duration divides by a number only; for a ratio use d1:total_ns() / d2:total_ns()")
		}
	}
	badOperands(L, "/", a, b, "a duration divides by a finite number only")
	return 0
}

func temporalMod(L *lua.LState) int {
	badOperands(L, "%", L.Get(1), L.Get(2), "durations and instants have no remainder")
	return 0
}

func temporalPow(L *lua.LState) int {
	badOperands(L, "^", L.Get(1), L.Get(2), "durations and instants have no power")
	return 0
}

func temporalUnm(L *lua.LState) int {
	a := L.Get(1)
	d, ok := toDuration(a)
	if !ok {
		raise(L, "bad operand to unary '-' (%s; only a duration negates)", describe(a))
	}
	r, err := d.Neg()
	if err != nil {
		raise(L, "bad operand to unary '-' (%v)", err)
	}
	pushDuration(L, r)
	return 1
}

// compare returns a<=>b for two durations or two instants; ok is false for
// any other pair.
func compare(a, b lua.LValue) (int, bool) {
	if x, ok := toDuration(a); ok {
		if y, ok := toDuration(b); ok {
			switch {
			case x < y:
				return -1, true
			case x > y:
				return 1, true
			}
			return 0, true
		}
		return 0, false
	}
	if t, ok := toInstant(a); ok {
		if u, ok := toInstant(b); ok {
			return t.Compare(u), true
		}
	}
	return 0, false
}

func temporalEq(L *lua.LState) int {
	c, ok := compare(L.Get(1), L.Get(2))
	L.Push(lua.LBool(ok && c == 0))
	return 1
}

func temporalLt(L *lua.LState) int {
	c, ok := compare(L.Get(1), L.Get(2))
	if !ok {
		badOperands(L, "<", L.Get(1), L.Get(2), "compare durations with durations and instants with instants")
	}
	L.Push(lua.LBool(c < 0))
	return 1
}

func temporalLe(L *lua.LState) int {
	c, ok := compare(L.Get(1), L.Get(2))
	if !ok {
		badOperands(L, "<=", L.Get(1), L.Get(2), "compare durations with durations and instants with instants")
	}
	L.Push(lua.LBool(c <= 0))
	return 1
}

// temporalToString is __tostring for every temporal userdata: ISO 8601 for
// durations, RFC 3339 UTC for instants, a description for the others.
func temporalToString(L *lua.LState) int {
	ud, ok := L.Get(1).(*lua.LUserData)
	if ok {
		switch v := ud.Value.(type) {
		case durationValue:
			L.Push(lua.LString(temporal.Duration(v).String()))
			return 1
		case instantValue:
			L.Push(lua.LString(temporal.Instant(v).String()))
			return 1
		case interface{ luaTypeName() string }:
			L.Push(lua.LString(v.luaTypeName()))
			return 1
		}
	}
	L.Push(lua.LString(describe(L.Get(1))))
	return 1
}

// ---- clocks ----

func clockFixed(L *lua.LState) int {
	const fn = "clock.fixed"
	t, ok := toInstant(L.Get(1))
	if !ok {
		argError(L, 1, fn, "a Temporal.instant expected (make one with Temporal.instant.parse), got "+describe(L.Get(1)))
	}
	L.Push(newClock(L, temporal.Fixed(t), "fixed "+t.String()))
	return 1
}

func clockSystem(L *lua.LState) int {
	checkWallClock(L, "clock.system", "Temporal.clock.fixed(t)")
	L.Push(newClock(L, temporal.System(), "system"))
	return 1
}

func clockNow(L *lua.LState) int {
	c, ok := toClock(L.Get(1))
	if !ok {
		argError(L, 1, "now", "a Temporal.clock expected (call it as clock:now()), got "+describe(L.Get(1)))
	}
	L.Push(newInstant(L, c.Now()))
	return 1
}

// ---- recurrence sets ----

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

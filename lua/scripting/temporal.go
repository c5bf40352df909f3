package scripting

import (
	lua "github.com/yuin/gopher-lua"

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

// Temporal.clock: fixed and system clocks.

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

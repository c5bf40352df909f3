package scripting

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/temporal"
)

// Temporal.duration: made from fields, ISO 8601 text or milliseconds, and
// its methods.

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

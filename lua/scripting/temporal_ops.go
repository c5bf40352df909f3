package scripting

import (
	"errors"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/temporal"
)

// The operators of durations and instants: arithmetic, comparison and
// tostring, shared by both types' metatables.

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

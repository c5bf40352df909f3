package sandbox

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// An error value is rendered after the call that raised it has returned,
// outside every budget: its __tostring runs with a budget of its own, and
// the text is cut to MaxErrorText, so that an error object cannot hang or
// swell the report of the error.

// MaxErrorText is the most bytes of an error's text ErrorText gives.
const MaxErrorText = 16 << 10

// toStringBudget bounds a __tostring call in a state whose budget is off.
const toStringBudget = time.Second

// ErrorText is the text of the error value v for a report: a string or a
// number as it is, another value through its __tostring (see ToString);
// "(error object is a table value)" for a value without one, and
// "(error object is a table value whose __tostring failed: ...)" when that
// fails, runs past its budget or returns no string. A text longer than
// MaxErrorText is cut there and says its length.
func ErrorText(L *lua.LState, v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return ClipText(string(v))
	case lua.LNumber:
		return v.String()
	}
	s, ok, err := ToString(L, v)
	switch {
	case !ok:
		return fmt.Sprintf("(error object is a %s value)", v.Type())
	case err != nil:
		return fmt.Sprintf("(error object is a %s value whose __tostring failed: %s)", v.Type(), FailureText(err))
	}
	return s
}

// ToString calls v's __tostring metamethod, if it has one (ok), as PCall
// calls a main chunk but with a budget of its own, L's Options.Budget (one
// second when that is off), and returns its result, cut to MaxErrorText. A
// result other than a string or a number is an error.
func ToString(L *lua.LState, v lua.LValue) (s string, ok bool, err error) {
	meta := L.GetMetaField(v, "__tostring")
	if meta == lua.LNil {
		return "", false, nil
	}
	L.Push(meta)
	L.Push(v)
	if err := boundedCall(L, 1, 1); err != nil {
		return "", true, err
	}
	r := L.Get(-1)
	L.Pop(1)
	switch r := r.(type) {
	case lua.LString:
		return ClipText(string(r)), true, nil
	case lua.LNumber:
		return r.String(), true, nil
	}
	return "", true, fmt.Errorf("'__tostring' must return a string, got a %s value", r.Type())
}

// FailureText is the message of err, an error out of ToString, on one
// line and at most a few hundred bytes.
func FailureText(err error) string {
	msg := err.Error()
	if api, ok := err.(*lua.ApiError); ok {
		msg = fmt.Sprintf("(a %s value)", api.Object.Type())
		if s, ok := api.Object.(lua.LString); ok {
			msg = string(s)
		}
	}
	msg, _, _ = strings.Cut(msg, "\n")
	return clipTo(msg, 256)
}

// boundedCall is PCall(L, nargs, nret, nil) with a budget of its own:
// Options.Budget, else toStringBudget.
func boundedCall(L *lua.LState, nargs, nret int) error {
	g := governorOf(L)
	if g == nil {
		prev := L.Context()
		base := prev
		if base == nil {
			base = context.Background()
		}
		ctx, cancel := context.WithTimeout(base, toStringBudget)
		defer cancel()
		L.SetContext(ctx)
		defer func() {
			if prev != nil {
				L.SetContext(prev)
			} else {
				L.RemoveContext()
			}
		}()
		return protectedCall(L, nargs, nret, nil)
	}
	limit := g.budget
	if limit <= 0 {
		limit = toStringBudget
	}
	fn, _ := L.Get(-nargs - 1).(*lua.LFunction)
	if err := g.enter(kindCall, fn, "", limit, g.ticks(limit)); err != nil {
		L.Pop(nargs + 1)
		return err
	}
	return g.leave(protectedCall(L, nargs, nret, nil))
}

// ClipText is s when it has at most MaxErrorText bytes, else a copy of its
// first MaxErrorText bytes (cut on a UTF-8 boundary) and its length.
func ClipText(s string) string {
	return clipTo(s, MaxErrorText)
}

func clipTo(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n]) + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

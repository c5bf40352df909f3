package scripting

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/internal/clip"
	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// The Go core (runtime/sched, hostservices, compat, temporal) names its
// methods and parameters in Go terms. This file is the one place that says
// its errors in the Lua API's terms. The Lua names come from the binding,
// never from the Go error: the binding knows which Lua function it is and
// which of its arguments the Go call it made may refuse (luaCall), so that
// renaming a Go method or parameter changes nothing a script sees.

// luaCall says where the Lua function fn took the arguments a Go error is
// about: argument arg, an option table when opts is set (0: none, the error
// is not about an argument of this call).
type luaCall struct {
	fn   string
	arg  int
	opts bool
}

// refusedKeys names, for each Lua function, the one argument or option its
// Go call may refuse; the binding checks its other arguments itself. A Lua
// function not listed checks them all, and a refusal that still comes back
// is shown as the Go core says it. schedule-once and schedule-every say
// theirs at the call (raiseErrorAbout).
var refusedKeys = map[string]string{
	"schedule-once":       "delay",
	"schedule-recurrence": "zone-id",
	"reset":               "duration",
	"advance":             "duration",
	"jump":                "duration",
	"update":              "delta-ms",
	"step":                "delta-ms",
	"run-all":             "loop-limit",
	"run-to-last":         "loop-limit",
	"set-loop-limit":      "limit",
	"set-max-pending":     "limit",
	"register-timer":      "delay",
	"Timeout":             "delay-ms",
	"Interval":            "interval-ms",
	"Debouncer":           "delay-ms",
}

// refusal is a refused argument as the Go core reports it: a
// *temporal.OptionError.
type refusal struct {
	want string
	got  any
	err  error
}

// asRefusal finds the refused argument in err's chain.
func asRefusal(err error) (refusal, bool) {
	if oe := (*temporal.OptionError)(nil); errors.As(err, &oe) {
		return refusal{oe.Want, oe.Got, oe.Err}, true
	}
	return refusal{}, false
}

// raiseRefusal raises r, the refusal of c's argument or option key.
func raiseRefusal(L *lua.LState, c luaCall, key string, r refusal) {
	switch {
	case r.err != nil:
		raise(L, "%s: %s: %v", c.fn, key, r.err)
	case c.arg == 0:
		raise(L, "%s: %s: want %s, got %v", c.fn, key, r.want, r.got)
	case c.opts:
		got := fmt.Sprint(r.got)
		if f, ok := r.got.(float64); ok {
			got = describe(lua.LNumber(f))
		}
		argError(L, c.arg, c.fn, fmt.Sprintf(":%s must be %s, got %s", key, r.want, got))
	default:
		argError(L, c.arg, c.fn, fmt.Sprintf("%s must be %s, got %v", key, r.want, r.got))
	}
}

// raiseError raises err, returned by the Go core to the binding c, as the
// Lua error scripts see: a bad argument as Lua's own argument errors read, a
// callback's error with its message and one traceback, anything else with
// the Lua function's name and the caller's position. It does nothing when
// err is nil.
func raiseError(L *lua.LState, c luaCall, err error) {
	raiseErrorAbout(L, c, refusedKeys[c.fn], err)
}

// raiseErrorAbout is raiseError for a call whose Go call may refuse its
// argument or option key ("" when it may refuse none).
func raiseErrorAbout(L *lua.LState, c luaCall, key string, err error) {
	if err == nil {
		return
	}
	var (
		ce  *sched.CallError
		le  *sched.LoopError
		re  *sched.RunLimitError
		rce *temporal.RecurrenceError
	)
	if isScriptError(err) {
		raiseValue(L, scriptErrorValue(L, err))
	}
	if r, ok := asRefusal(err); ok && key != "" {
		raiseRefusal(L, c, key, r)
	}
	switch {
	case errors.As(err, &le):
		raise(L, "%s", loopLimitText(le))
	case errors.As(err, &re):
		raise(L, "%s: more than %d fires and work is still pending; the next is %v (an active interval never ends; use advance, or raise loop-limit)", c.fn, re.MaxFires, re.Next)
	case errors.As(err, &ce):
		raise(L, "%s: %s%s", c.fn, ce.Err, remedy(err))
	case errors.As(err, &rce) && c.opts:
		// Field is the RFC 5545 part or occurrences option, which the
		// Lua option of the same name carries.
		key := rce.Field
		if rce.Value == "" {
			argError(L, c.arg, c.fn, fmt.Sprintf(":%s: %s", key, rce.Reason))
		}
		argError(L, c.arg, c.fn, fmt.Sprintf(":%s %s: %s", key, clip.Quote(rce.Value), rce.Reason))
	default:
		msg := err.Error() + remedy(err)
		if strings.HasPrefix(msg, c.fn+": ") {
			raise(L, "%s", msg)
		}
		raise(L, "%s: %s", c.fn, msg)
	}
}

// remedy completes the message of an error that says what is wrong but
// not what would be accepted: "" for the others.
func remedy(err error) string {
	var re *temporal.ResolveError
	switch {
	case errors.Is(err, sched.ErrDropped):
		return " (after drop, only drop may be called on it)"
	case errors.Is(err, sched.ErrReentrant):
		return " (its time moves only from outside its callbacks)"
	case errors.As(err, &re) && (re.Kind == "gap" || re.Kind == "overlap"):
		return `; disambiguation "reject" refuses it: give "compatible", "earlier" or "later"`
	}
	return ""
}

// A callback's error: a job's, a facet's or a flushed Debouncer's. It is
// the *lua.ApiError sandbox.Callbacks.Call returns, whose StackTrace holds the
// callback's own frames, from where the error was raised out to the
// callback, without a last line.

// isScriptError reports whether err carries a callback's Lua error.
func isScriptError(err error) bool {
	var api *lua.ApiError
	return errors.As(err, &api)
}

// Traceback returns the traceback of err when it carries the error of a
// script's callback (a job's or a facet's, as a host's Update returns it):
// the callback's frames from where it raised the error, ending with a line
// that names the job or facet, such as "\t[job] every #3 scheduled at
// f.lua:12". When the error came out of a callback that another scheduler
// ran inside this one (its advance called from this callback), the
// traceback starts with that callback's frames and job, then goes on with
// this one's: one traceback, the whole way out. Any other Lua error (a
// main chunk's, say) gives its traceback as it is; ok is false for an
// error that carries none.
func Traceback(err error) (traceback string, ok bool) {
	var api *lua.ApiError
	if !errors.As(err, &api) {
		return "", false
	}
	if name := callbackName(err); name != "" {
		tb := api.StackTrace
		if tb == "" {
			tb = sandbox.TracebackHeading // a callback's error without frames: name the job alone
		}
		return tb + "\n\t" + name, true
	}
	return api.StackTrace, true
}

// callbackName names what ran the callback whose error err carries, or
// "" when no callback did.
func callbackName(err error) string {
	var (
		je *sched.JobError
		fe *hostservices.FacetError
		fl *flushError
		he *handlerError
		de *debouncerCallbackError
	)
	switch {
	case errors.As(err, &je):
		return "[job] " + je.Job.String()
	case errors.As(err, &fe):
		return "[facet] " + strconv.Quote(fe.Name)
	case errors.As(err, &fl):
		return "[flush] Debouncer scheduled at " + fl.label
	case errors.As(err, &de):
		return "[debouncer] made at " + de.label
	case errors.As(err, &he):
		return "[on-error] handler set at " + he.label
	}
	return ""
}

// scriptErrorValue is the Lua value a binding raises for a callback's
// error (see callbackErrorValue), recorded so that a callback that lets it
// through continues its traceback instead of starting a second one.
func scriptErrorValue(L *lua.LState, err error) lua.LValue {
	v, msgLen := callbackErrorValue(err)
	if s, ok := v.(lua.LString); ok {
		callbacksOf(L).NoteRaised(string(s), msgLen)
	}
	return v
}

// callbackErrorValue is the Lua value of a callback's error: an error object
// (a table, say) as it is, a message with the callback's traceback appended,
// so that it carries one traceback. msgLen is the message's length.
func callbackErrorValue(err error) (v lua.LValue, msgLen int) {
	var api *lua.ApiError
	errors.As(err, &api)
	if _, isStr := api.Object.(lua.LString); !isStr && api.Object != lua.LNil {
		return api.Object, 0
	}
	tb, _ := Traceback(err)
	msg := api.Object.String()
	return lua.LString(msg + "\n" + tb), len(msg)
}

// flushError is the error of a Debouncer's callback run by flush.
type flushError struct {
	label string
	err   error
}

func (e *flushError) Error() string { return e.err.Error() }
func (e *flushError) Unwrap() error { return e.err }

// loopLimitText is a *sched.LoopError as a script reads it: the job that
// kept re-arming (or the host), and set-loop-limit as the way to raise it.
func loopLimitText(le *sched.LoopError) string {
	by := "the host"
	if le.By != nil {
		by = le.By.String()
	}
	return fmt.Sprintf("loop limit: %s put more than %d jobs on one instant (%s after the epoch) in one call; a callback keeps re-arming at zero delay (raise it with set-loop-limit)", by, le.Limit, temporal.Duration(le.AtNs).DecimalSeconds())
}

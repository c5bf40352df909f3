package scripting

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/internal/clip"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// The Go core (runtime/sched, hostservices, compat, temporal) names its
// methods and parameters in Go terms. This file is the one place that says
// them in the Lua API's terms.

// luaFuncs maps a Go method to the Lua function that calls it.
var luaFuncs = map[string]string{
	"ScheduleOnce":       "schedule-once",
	"ScheduleEvery":      "schedule-every",
	"ScheduleRecurrence": "schedule-recurrence",
	"Advance":            "advance",
	"Jump":               "jump",
	"Next":               "next",
	"RunAll":             "run-all",
	"RunToLast":          "run-to-last",
	"Clear":              "clear",
	"SetLoopLimit":       "set-loop-limit",
	"SetMaxPending":      "set-max-pending",
	"Update":             "update",
	"Step":               "step",
	"Register":           "register",
	"Timeout":            "Timeout",
	"Interval":           "Interval",
	"Debouncer":          "Debouncer",
	"Debouncer.Call":     "Debouncer",

	"ScheduleOnceAt":    "schedule-once", // handles.go
	"ScheduleEveryWith": "schedule-every",
	"Handle.Reset":      "reset",
	"Spawn":             "spawn",
	"Step.Wait":         "wait",

	"RegisterTimer": "register-timer", // keyed timers
	"NewOwner":      "owner",
	"Renew":         "renew",
	"Transfer":      "transfer",
}

// luaParams maps a Go parameter to the Lua option key or argument that
// carries it.
var luaParams = map[string]string{
	"delay":      "delay",
	"interval":   "interval",
	"fn":         "callback",
	"r.Set":      "recurrence-set",
	"r.Zone":     "zone-id",
	"r.Limit":    "limit",
	"d":          "duration",
	"deltaMs":    "delta-ms",
	"maxFires":   "loop-limit",
	"n":          "limit",
	"delayMs":    "delay-ms",
	"intervalMs": "interval-ms",
	"name":       "name",
	"f":          "facet",

	"at":         "at", // handles.go
	"e.Interval": "interval",
	"e.Delay":    "delay",
	"e.Count":    "count",

	"opts.Interval": "interval", // keyed timers
	"opts.Delay":    "delay",
}

func luaName(names map[string]string, goName string) string {
	if n, ok := names[goName]; ok {
		return n
	}
	return goName
}

// luaCall says where the Lua function fn took the arguments a Go error is
// about: argument arg, an option table when opts is set (0: none, the error
// is not about an argument of this call).
type luaCall struct {
	fn   string
	arg  int
	opts bool
}

// raiseError raises err, returned by the Go core to the binding c, as the
// Lua error scripts see: a bad argument as Lua's own argument errors read, a
// callback's error with its message and one traceback, anything else with
// the Lua function's name and the caller's position. It does nothing when
// err is nil.
func raiseError(L *lua.LState, c luaCall, err error) {
	if err == nil {
		return
	}
	var (
		oe  *temporal.OptionError
		ce  *sched.CallError
		le  *sched.LoopError
		re  *sched.RunLimitError
		rce *temporal.RecurrenceError
	)
	switch {
	case isScriptError(err):
		raiseValue(L, scriptErrorValue(L, err))
	case errors.As(err, &oe):
		fn, key := luaName(luaFuncs, oe.Method), luaName(luaParams, oe.Param)
		switch {
		case oe.Err != nil:
			raise(L, "%s: %s: %v", fn, key, oe.Err)
		case c.arg == 0:
			raise(L, "%s: %s: want %s, got %v", fn, key, oe.Want, oe.Got)
		case c.opts:
			got := fmt.Sprint(oe.Got)
			if f, ok := oe.Got.(float64); ok {
				got = describe(lua.LNumber(f))
			}
			argError(L, c.arg, c.fn, fmt.Sprintf(":%s must be %s, got %s", key, oe.Want, got))
		default:
			argError(L, c.arg, c.fn, fmt.Sprintf("%s must be %s, got %v", key, oe.Want, oe.Got))
		}
	case errors.As(err, &le):
		raise(L, "%s", le.Text("set-loop-limit"))
	case errors.As(err, &re):
		raise(L, "%s", re.Text(luaName(luaFuncs, re.Method), "advance", "loop-limit"))
	case errors.As(err, &ce):
		fn := c.fn
		if fn == "" {
			fn = luaName(luaFuncs, ce.Method)
		}
		raise(L, "%s: %s%s", fn, ce.Err, remedy(err))
	case errors.As(err, &rce) && c.opts:
		key := luaName(luaParams, rce.Field)
		if rce.Field == "zone" {
			key = "zone-id"
		}
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
// the *lua.ApiError callbacks.call returns, whose StackTrace holds the
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
			tb = tracebackHeading // a callback's error without frames: name the job alone
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
		c := callbacksOf(L)
		c.raised, c.raisedMsg = string(s), msgLen
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

// callbacks runs a state's callbacks: each call is protected by a message
// handler that records the traceback of the callback's frames while they
// still exist.
type callbacks struct {
	gov     *governor // nil without budgets
	handler *lua.LFunction
	fn      *lua.LFunction // the callback running now (innermost)

	// The last message with a traceback scriptErrorValue made, and the
	// length of its message: a callback that lets it through continues
	// that traceback rather than adding one.
	raised    string
	raisedMsg int
	p         *protector
	lookup    *lua.LFunction // looks up a table callback's method (see method)
	method    string         // the method lookup is looking up
}

const callbacksKey = "metronome.callbacks"

// callbacksOf returns the callback runner of L's main thread.
func callbacksOf(L *lua.LState) *callbacks {
	reg := L.G.Registry
	if ud, ok := reg.RawGetString(callbacksKey).(*lua.LUserData); ok {
		return ud.Value.(*callbacks)
	}
	c := &callbacks{p: protectorOf(L), gov: governorOf(L)}
	c.handler = L.NewFunction(c.handle)
	ud := L.NewUserData()
	ud.Value = c
	reg.RawSetString(callbacksKey, ud)
	return c
}

// call calls f with the nargs arguments above it on L's stack, in
// protected mode; an error comes back as a *lua.ApiError whose StackTrace
// describes the callback's frames.
func (c *callbacks) call(L *lua.LState, f *lua.LFunction, nargs int) error {
	return c.callN(L, f, nargs, 0)
}

// callN is call leaving nret results on the stack (none on error).
func (c *callbacks) callN(L *lua.LState, f *lua.LFunction, nargs, nret int) error {
	if c.gov != nil {
		if err := c.gov.callbackFrame(f); err != nil {
			L.Pop(nargs + 1)
			return err
		}
	}
	prev := c.fn
	c.fn = f
	done := false
	defer func() {
		if !done { // a registry overflow escaping to the guard below
			c.fn = prev
			if c.gov != nil {
				c.gov.leave(nil)
			}
		}
	}()
	err := c.p.call(L, nargs, nret, c.handler)
	done = true
	c.fn = prev
	if c.gov != nil {
		err = c.gov.leave(err)
	}
	if err == nil {
		return nil
	}
	return c.unwrap(err)
}

// unwrap gives the error of a call made with c.handler the value and
// traceback the handler recorded.
func (c *callbacks) unwrap(err error) error {
	var api *lua.ApiError
	if errors.As(err, &api) {
		if ud, ok := api.Object.(*lua.LUserData); ok {
			if r, ok := ud.Value.(*raised); ok {
				c.setTraceback(api, r.value, r.traceback)
			}
		}
	}
	return err
}

// setTraceback gives api the value v a callback raised and traceback, its
// frames. A nested callback's error, raised by the advance this callback
// called, keeps its own traceback, which goes on with this callback's
// frames under one heading.
func (c *callbacks) setTraceback(api *lua.ApiError, v lua.LValue, traceback string) {
	api.Object, api.StackTrace = v, traceback
	if s, ok := v.(lua.LString); ok && c.raised != "" && string(s) == c.raised {
		api.Object = lua.LString(c.raised[:c.raisedMsg])
		api.StackTrace = c.raised[c.raisedMsg+1:] + strings.TrimPrefix(traceback, tracebackHeading)
	}
}

const tracebackHeading = "stack traceback:"

// raised carries an error and its traceback from the message handler to
// call.
type raised struct {
	value     lua.LValue
	traceback string
}

// handle is the message handler: it describes the frames from the one that
// raised the error out to the callback (the innermost call of c.fn made by a
// Go function), and returns the error with them.
func (c *callbacks) handle(L *lua.LState) int {
	var b strings.Builder
	b.WriteString(tracebackHeading)
	more := WalkStack(L, 1, func(f StackFrame) bool {
		fn := f.Fn
		switch {
		case fn != nil && fn == c.fn && fn == c.lookup:
			fmt.Fprintf(&b, "\n\t[G]: in the lookup of method '%s'", c.method)
			return false
		case fn != nil && !fn.IsG && fn == c.fn && !calledFromLua(L, f.Level+1+f.TailCalls):
			traceLine(&b, f, fmt.Sprintf("function <%s:%d>", f.Debug.Source, f.Debug.LineDefined))
			return false
		}
		traceLine(&b, f, f.What())
		return true
	})
	if more {
		b.WriteString("\n\t...")
	}
	ud := L.NewUserData()
	ud.Value = &raised{value: L.Get(1), traceback: b.String()}
	L.Push(ud)
	return 1
}

// calledFromLua reports whether the frame at level is a Lua function's.
func calledFromLua(L *lua.LState, level int) bool {
	dbg, ok := L.GetStack(level)
	if !ok {
		return false
	}
	fv, err := L.GetInfo("f", dbg, lua.LNil)
	if err != nil {
		return false
	}
	fn, ok := fv.(*lua.LFunction)
	return ok && !fn.IsG
}

// frameName is how a traceback names a frame's function, as gopher-lua's
// own tracebacks do.
func frameName(name string) string {
	switch {
	case name == "":
		return "function <?>"
	case name == "main chunk":
		return name
	case name[0] == '(' || name[0] == '<':
		return "function " + name
	}
	return "function '" + name + "'"
}

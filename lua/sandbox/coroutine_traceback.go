package sandbox

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// A callback run as a coroutine (a keyed tick, a spawned function) raises
// its error with no message handler: gopher-lua starts each coroutine with
// a panic function that records no traceback. When the error kills the
// thread, gopher-lua pops one frame, the one that raised, and leaves the
// rest: deadTraceback walks them and rebuilds the popped one, so the error
// reads as a plain callback's does.

// deadTraceback describes the frames of th, a thread that died of the
// error v while running cb, in the message handler's format (Callbacks.handle):
// from the frame that raised v out to cb.
func deadTraceback(th *lua.LState, cb *lua.LFunction, v lua.LValue) string {
	var frames []StackFrame
	more := WalkStack(th, 0, func(f StackFrame) bool {
		frames = append(frames, f)
		return true
	})
	msg, _ := v.(lua.LString)
	pos := messagePosition(string(msg))
	for _, f := range frames {
		if pos != "" && f.Fn != nil && !f.Fn.IsG && pos == f.Where() {
			pos = "" // the message names a frame still there: a Go function raised it
			break
		}
	}
	var b strings.Builder
	b.WriteString(TracebackHeading)
	// The popped frame: a Lua function when the message names a position
	// no frame left is at (the VM raised the error in it), else a Go one.
	// Its name is the one its caller called it by.
	name := ""
	if len(frames) > 0 {
		name = poppedName(th, frames[0].Debug, frames[0].Fn, pos)
	}
	switch {
	case len(frames) == 0 && pos != "":
		fmt.Fprintf(&b, "\n\t%s in function <%s:%d>", pos, cb.Proto.SourceName, cb.Proto.LineDefined)
	case len(frames) == 0:
	case pos != "":
		fmt.Fprintf(&b, "\n\t%s in %s", pos, frameName(name))
	default:
		fmt.Fprintf(&b, "\n\t[G]: in %s", frameName(name))
	}
	for i, f := range frames {
		what := f.What()
		if i == len(frames)-1 && !more && f.Fn != nil && !f.Fn.IsG {
			// The coroutine's first frame: the callback.
			what = fmt.Sprintf("function <%s:%d>", f.Debug.Source, f.Debug.LineDefined)
		}
		traceLine(&b, f, what)
	}
	if more {
		b.WriteString("\n\t...")
	}
	return b.String()
}

// messagePosition is the "file:line:" an error message starts with, or "".
func messagePosition(msg string) string {
	i := strings.Index(msg, ": ")
	if i < 0 {
		return ""
	}
	j := strings.LastIndexByte(msg[:i], ':')
	if j <= 0 {
		return ""
	}
	if _, err := strconv.Atoi(msg[j+1 : i]); err != nil {
		return ""
	}
	return msg[:i+1]
}

// poppedName is the name the Lua function fn, at the frame dbg of th,
// called the popped function by: the name of the call on its current line,
// as gopher-lua names a frame by its caller's call. When the line calls
// functions by several names, the one naming a function of the popped
// frame's kind (a Go function when pos is "", else a Lua function whose
// lines hold pos) decides; "" when none or several do.
func poppedName(th *lua.LState, dbg *lua.Debug, fn *lua.LFunction, pos string) string {
	if fn == nil || fn.IsG {
		return ""
	}
	p := fn.Proto
	var names []string
	for _, c := range p.DbgCalls {
		if c.Pc < len(p.DbgSourcePositions) && p.DbgSourcePositions[c.Pc] == dbg.CurrentLine && c.Name != "?" && !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	if len(names) < 2 {
		if len(names) == 1 {
			return names[0]
		}
		return ""
	}
	found := ""
	for _, n := range names {
		f, ok := resolveName(th, dbg, fn, n).(*lua.LFunction)
		if !ok || f.IsG != (pos == "") || !f.IsG && !protoHolds(f.Proto, pos) {
			continue
		}
		if found != "" {
			return ""
		}
		found = n
	}
	return found
}

// resolveName is what name means in fn's frame dbg: a local, an upvalue or
// a global.
func resolveName(th *lua.LState, dbg *lua.Debug, fn *lua.LFunction, name string) lua.LValue {
	var v lua.LValue
	for i := 1; ; i++ {
		n, lv := th.GetLocal(dbg, i)
		if n == "" {
			break
		}
		if n == name {
			v = lv // a later local shadows an earlier one
		}
	}
	if v != nil {
		return v
	}
	for i, n := range fn.Proto.DbgUpvalues {
		if n == name && i < len(fn.Upvalues) {
			return fn.Upvalues[i].Value()
		}
	}
	return th.GetGlobal(name)
}

// protoHolds reports whether pos ("file:line:") lies in p's lines.
func protoHolds(p *lua.FunctionProto, pos string) bool {
	pos = strings.TrimSuffix(pos, ":")
	i := strings.LastIndexByte(pos, ':')
	n, err := strconv.Atoi(pos[i+1:])
	return i > 0 && err == nil && pos[:i] == p.SourceName && p.LineDefined <= n && n <= p.LastLineDefined
}

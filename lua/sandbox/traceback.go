package sandbox

import (
	"fmt"
	"reflect"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Every traceback Metronome writes (a callback's, a main chunk's, a dead
// coroutine's, a luatest failure's) walks the stack with WalkStack, which
// lists at most maxTraceLevels frames. A runaway recursion or tail call
// leaves millions of levels, and gopher-lua's own traceback writes a line
// for each before it cuts the list.

// maxTraceLevels is the most frames a traceback lists.
const maxTraceLevels = 40

// StackFrame is one frame of a traceback.
type StackFrame struct {
	// Debug is the frame, with what GetInfo("Slnf") fills in.
	Debug *lua.Debug
	// Fn is the frame's function; nil when gopher-lua cannot say.
	Fn *lua.LFunction
	// Level is the frame's level, as L.GetStack counts.
	Level int
	// TailCalls is how many calls in tail position ran in this frame
	// before its function: their frames are gone.
	TailCalls int
	// Bottom is set on the frame with none below it.
	Bottom bool
}

// Where is "file:line:" for a Lua function's frame, "[G]:" for a Go one's.
func (f StackFrame) Where() string {
	if f.Fn == nil || f.Fn.IsG {
		return "[G]:"
	}
	return fmt.Sprintf("%s:%d:", f.Debug.Source, f.Debug.CurrentLine)
}

// What names the frame's function: "main chunk", "function 'name'" or
// "function <file:line>".
func (f StackFrame) What() string {
	if f.Fn != nil && !f.Fn.IsG && f.Fn.Proto.LineDefined == 0 {
		return "main chunk"
	}
	return frameName(f.Debug.Name)
}

// TailCallLine is the line a traceback writes after a frame with tail
// calls, as Lua's own tracebacks do.
const TailCallLine = "(tail call): ?"

// WalkStack calls visit with the frames of L from level outwards, the
// innermost first, until visit returns false or the stack ends. It visits
// at most maxTraceLevels frames: more reports whether the stack goes on
// past them. The Go function at the bottom of a stack that Go entered
// through PCall or a callback (the guard those calls open) is not a
// script's frame: it is not visited.
func WalkStack(L *lua.LState, level int, visit func(StackFrame) bool) (more bool) {
	for n := 0; ; n++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return false
		}
		if n == maxTraceLevels {
			return true
		}
		fv, err := L.GetInfo("Slnf", dbg, lua.LNil)
		fn, _ := fv.(*lua.LFunction)
		f := StackFrame{Debug: dbg, Fn: fn, Level: level}
		if fn != nil && !fn.IsG {
			f.TailCalls = tailCalls(dbg)
		}
		level += 1 + f.TailCalls
		_, below := L.GetStack(level)
		f.Bottom = !below
		if f.Bottom && (fn == nil || fn.IsG) && n > 0 {
			return false
		}
		if err == nil && !visit(f) {
			return false
		}
	}
}

// tailCalls is how many tail calls the Lua function's frame dbg made.
// gopher-lua's GetStack counts each as a level but keeps no frame for it
// (the levels they take all give the bottom frame), and tells the count
// only through the unexported frame: read it there, so that a walk skips
// those levels in one step.
func tailCalls(dbg *lua.Debug) int {
	if tailCallField == nil {
		return 0
	}
	fr := reflect.ValueOf(dbg).Elem().FieldByIndex(tailCallField[:1])
	if fr.IsNil() {
		return 0
	}
	return int(fr.Elem().FieldByIndex(tailCallField[1:]).Int())
}

// tailCallField is the path to the count in lua.Debug: its frame pointer's
// index, then the TailCall field's; nil if gopher-lua has neither.
var tailCallField = func() []int {
	fr, ok := reflect.TypeFor[lua.Debug]().FieldByName("frame")
	if !ok || fr.Type.Kind() != reflect.Pointer || fr.Type.Elem().Kind() != reflect.Struct {
		return nil
	}
	tc, ok := fr.Type.Elem().FieldByName("TailCall")
	if !ok || tc.Type.Kind() != reflect.Int || len(tc.Index) != 1 {
		return nil
	}
	return []int{fr.Index[0], tc.Index[0]}
}()

// traceLine writes the frame f as a callback's traceback does: a tab, where
// and what, then a line for its tail calls.
func traceLine(b *strings.Builder, f StackFrame, what string) {
	fmt.Fprintf(b, "\n\t%s in %s", f.Where(), what)
	if f.TailCalls > 0 {
		b.WriteString("\n\t" + TailCallLine)
	}
}

package scripting

import (
	"github.com/metronome-rt/metronome/temporal"
	lua "github.com/yuin/gopher-lua"
)

// LoopEvent is one task an event loop of the event-loop module is about
// to run, as the function SetLoopTrace installs receives it.
type LoopEvent struct {
	// Loop numbers the state's loops in the order EventLoop.new made
	// them, from 1.
	Loop int
	// At is the loop's own time (its clock starts at 0 on a virtual
	// clock), not the host's.
	At temporal.Duration
	// Kind is "task" (queue_task), "microtask", "timeout", "interval",
	// "frame" (an animation frame callback) or "source" (a registered
	// source's run).
	Kind string
	// ID is the timer's or the frame callback's id; 0 for the other kinds.
	ID int
	// Label is where the script queued the task, set the timer or
	// requested the frame (file:line), or a source's name.
	Label string
}

// loopTrace is a state's event-loop trace: its sink and how many loops
// the state has made.
type loopTrace struct {
	fn    func(LoopEvent)
	loops int
}

const loopTraceKey = "metronome.looptrace"

// SetLoopTrace makes fn see each task the event loops of L's state run,
// just before it runs, loops made earlier included; nil stops it. The task
// hook and a source's ready and deadline calls are not tasks. While no
// function is set a task pays one comparison. It is how `metronome run --trace` shows a script's event loop.
func SetLoopTrace(L *lua.LState, fn func(LoopEvent)) { loopTraceOf(L).fn = fn }

// loopTraceOf returns the trace of L's state, making it on first use.
func loopTraceOf(L *lua.LState) *loopTrace {
	reg := L.G.Registry
	if ud, ok := reg.RawGetString(loopTraceKey).(*lua.LUserData); ok {
		return ud.Value.(*loopTrace)
	}
	tr := &loopTrace{}
	ud := L.NewUserData()
	ud.Value = tr
	reg.RawSetString(loopTraceKey, ud)
	return tr
}

// traced reports a task of l about to run to the state's trace, if on,
// and keeps it as the last that ran, for the loop-limit error.
func (l *luaLoop) traced(kind string, id int, label string) {
	l.lastKind, l.lastAt = kind, label
	if fn := l.trace.fn; fn != nil {
		fn(LoopEvent{Loop: l.number, At: l.s.Now(), Kind: kind, ID: id, Label: label})
	}
}

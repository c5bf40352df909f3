package scripting

import (
	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/sched/snapshot"
)

// A saved state for the host a state belongs to (metronome run --state):
// host.handlers{ label = fn, ... } binds the labels and, when a saved
// state waits (SetSavedState), restores it into the host at that call,
// returning true; SaveHostState writes the host's state again.

const savedStateKey = "metronome.saved-state"

// savedState is a state's saved text waiting for host.handlers.
type savedState struct {
	text    []byte
	pending bool
}

func savedStateOf(L *lua.LState) *savedState {
	reg := L.G.Registry
	if ud, ok := reg.RawGetString(savedStateKey).(*lua.LUserData); ok {
		return ud.Value.(*savedState)
	}
	st := &savedState{}
	ud := L.NewUserData()
	ud.Value = st
	reg.RawSetString(savedStateKey, ud)
	return st
}

// SetSavedState makes the next host.handlers{...} of L restore text, the
// JSON text of an hs:snapshot(), into the host of L's app-host module.
func SetSavedState(L *lua.LState, text []byte) {
	st := savedStateOf(L)
	st.text, st.pending = text, true
}

// SavedStatePending reports whether a state SetSavedState gave L still
// waits for host.handlers.
func SavedStatePending(L *lua.LState) bool { return savedStateOf(L).pending }

// SaveHostState returns the JSON text of h's snapshot, as hs:snapshot{
// skip = true } and RuntimeScheduler.encode write it, and the jobs it left
// out. h is the host of L's app-host module.
func SaveHostState(L *lua.LState, h *hostservices.Host) ([]byte, []snapshot.Refused, error) {
	snap, refused, err := takeSnapshot(L, h.Scheduler())
	if err != nil {
		return nil, nil, err
	}
	p := h.Paused()
	snap.Paused = &p
	text, err := encodeSnapshot(snap)
	return []byte(text), refused, err
}

// hostHandlers is host.handlers(handlers, opts?) on hs, the module's
// scheduler: with a saved state waiting, it restores it into the host
// with these handlers (opts as hs:restore's: misfire, skip, ...) and
// returns true; else it returns false.
func hostHandlers(hs lua.LValue) lua.LGFunction {
	return func(L *lua.LState) int {
		const fn = "handlers"
		tbl, ok := L.Get(1).(*lua.LTable)
		if !ok {
			argError(L, 1, fn, "a table of label = function expected, got "+describe(L.Get(1))+" (call it with '.': host.handlers{...})")
		}
		opts := L.NewTable()
		if o := L.Get(2); o != lua.LNil {
			ot, ok := o.(*lua.LTable)
			if !ok {
				argError(L, 2, fn, "option table expected, got "+describe(o))
			}
			ot.ForEach(func(k, v lua.LValue) { opts.RawSet(k, v) })
			if opts.RawGetString("handlers") != lua.LNil {
				argError(L, 2, fn, "give the handlers as argument 1, not :handlers")
			}
		}
		opts.RawSetString("handlers", tbl)
		st := savedStateOf(L)
		if !st.pending {
			L.Push(lua.LFalse)
			return 1
		}
		L.Push(L.GetField(hs, "restore"))
		L.Push(hs)
		L.Push(lua.LString(st.text))
		L.Push(opts)
		L.Call(3, 0)
		st.pending, st.text = false, nil
		L.Push(lua.LTrue)
		return 1
	}
}

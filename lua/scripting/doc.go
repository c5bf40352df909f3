// Package scripting embeds Metronome's Lua in a Go program: gopher-lua
// states whose scripts schedule work on a Go host through preloaded modules.
// The state itself, its budgets and the one way Go calls Lua are package
// sandbox's; this package binds the modules on it.
//
// The Go program makes a hostservices.Host, gives its modules to a state,
// runs a script, and moves the host; what the script scheduled runs when
// the host's frames do:
//
//	h := hostservices.New(temporal.System())
//	L := scripting.NewState(scripting.Options{ScriptDir: "scripts", Modules: scripting.HostModules(h, nil)})
//	defer L.Close()
//	fn, err := scripting.LoadFile(L, "scripts/game.lua")
//	... L.Push(fn); err = scripting.PCall(L, 0, 0, nil)
//	... each frame: err = scripting.Drain(L, "update", func() error { return h.UpdateBy(dt) })
//
// # States
//
// NewState returns a sandboxed *lua.LState: the base library without dofile
// and loadfile (load and loadstring take source text, never binary chunks),
// string, table, math, coroutine, and os with time, clock and date only.
// os.time and os.date read Options.Now (default Options.Clock, else
// time.Now) and work in UTC. A program on a virtual clock passes the host as
// Options.Clock: a runtime-scheduler or make-scheduler made without a clock
// then starts at the host's instant, os.time reads it, and
// Temporal.clock.system() raises unless Options.AllowWallClock (with Clock
// nil or temporal.System(), the zero Options, the wall clock is allowed).
// Options.AllowIO opens io and the full os library. print writes to
// Options.Stdout.
//
// No module is a global. require finds package.preload entries, then
// NAME.lua in Options.ScriptDir (dots in NAME are folders; ".." and links
// leading out of the folder are refused; package.path is ignored). Every
// state preloads temporal (durations, instants, clocks, recurrence sets),
// runtime-scheduler (a typed scheduler the script owns and moves itself)
// and app-host.services (make-scheduler, a host of the script's own);
// docs/lua-api.md is their contract.
// Options.Modules adds loaders beside them, or replaces one by name.
//
// # Hosts
//
// HostModules(h, quit) returns the loaders that bind a state to a Go host:
// app-host, whose scheduler is h and whose quit calls quit, and
// runtime-timers, millisecond timers on h's scheduler. Pass them in
// Options.Modules, or add them to a state made without them with
// PreloadHostModules. Several states may share a host; each state's
// runtime-timers are a group of their own, so its clear() leaves the other
// states' timers alone. HostSlotModules(slot, quit) binds them to a
// HostSlot instead: Set swaps the host behind the same Lua objects (the
// script-test harness gives each test a fresh host this way).
//
// The script's jobs and timers and the jobs Go schedules on h (h.ScheduleOnce,
// or a sched.Group of h.Scheduler()) run in one timeline, by deadline and
// then creation order, and only when the Go program moves h: UpdateBy or
// Step in its own frame loop, or a hostservices.Runner, which runs the host
// in virtual time or is stepped in wall time by runtime/driver.
//
// # Go values
//
// Expose(L, name, v) makes a Go value the module name, through gopher-luar:
// scripts see its exported fields and methods only. It is the cold path,
// about ten times the cost of a hand-written binding: for state a script
// reads now and then, not for per-frame work.
//
// # Loading scripts
//
// LoadFile compiles a file into a function without running it. It refuses
// binary chunks, drops a first line that starts with "#" (keeping line
// numbers), and reports a syntax error as "path:line: message near 'token'".
// Run the function with PCall, not L.PCall: PCall runs it under the
// budgets and returns every error, including the registry overflow that
// L.PCall with a message handler lets escape as a Go panic. Move a host
// from Go inside Drain for the same reasons: without it, a frame has no
// drain budget and each callback pays for a guard of its own.
//
// # Budgets
//
// Options.Budget, DrainBudget, MemoryLimit and Context are the sandbox's
// (see package sandbox): Budget bounds each call Go makes with PCall and
// each callback, DrainBudget one advance, update, step, next, run-all,
// run-to-last or jump of a script, or a Go call wrapped in Drain
// (UpdateBy, Runner.Step), across the callbacks it runs; a
// sandbox.DrainSpan makes several such calls one (a Runner's steps until
// the host's time moves on). A runaway gets a Lua error naming the budget
// and the function, and the state and its schedulers go on afterwards.
//
// # Threading
//
// A state and its host belong to one goroutine: the one that runs the
// scripts and moves the host. Callbacks, timers and facets run on the main
// thread of the state that registered them, inside the Go call that moved
// the host. Nothing here starts a goroutine but the budget timer, which
// runs only while Lua does. Other goroutines reach a state
// or its host only by handing work to that goroutine between frames, as
// runtime/driver's Options.Calls does.
//
// # Errors
//
// A Lua error in a job, timer or facet stops the frame that ran it and comes
// back from the Go call that moved the host (UpdateBy, Step, Runner.Step) as
// a *sched.JobError or a *hostservices.FacetError wrapping the *lua.ApiError
// of the callback's protected call: errors.As finds it, with the message and
// the traceback. The frame's later jobs and facets have not run; the next
// frame goes on from the failed job's deadline. A script's bad argument is a
// Lua error naming the function and the argument. Misuse only Go code can
// commit (a nil loader in Options.Modules, a nil host, an empty module name)
// panics.
package scripting

// Package sandbox is the Lua state Metronome's bindings run on: a
// gopher-lua state with a restricted standard library, budgets that stop a
// runaway script, and the one way Go calls into Lua. It knows no module;
// package scripting preloads the modules on it.
//
// # States
//
// NewState returns a *lua.LState with the base library without dofile and
// loadfile (load and loadstring take source text, never binary chunks),
// string, table, math, coroutine, and os with time, clock and date only,
// which read Options.Now and work in UTC. Options.AllowIO opens io and the
// full os library. print writes to Options.Stdout. math.random is a
// generator of the state's own, seeded with Options.Seed (SeedRandom
// reseeds it). string.find, match, gmatch and gsub run on a matcher of
// their own that a budget can stop. Results that would swell past the
// state's string limit (string.rep, format, gsub, table.concat) or fill
// the value stack (unpack, string.byte, a pattern's captures) are refused
// with an argument error, and every chunk the state compiles is checked
// against Options.Source first.
//
// # Calling Lua
//
// Go enters a state's Lua in three ways, and only these: PCall for a call
// Go makes (a main chunk, a test body, a hook), Drain (or a DrainSpan) for
// a Go call that moves a scheduler whose callbacks are Lua functions, and
// Callbacks for each such callback. They run the call under the budgets
// and return every error the call raises, including the ones gopher-lua's
// own L.PCall lets escape as a Go panic (an error raised while the value
// stack is full). A callback's error comes back as a *lua.ApiError whose
// StackTrace lists the callback's frames, at most 40, tail calls as one
// line (WalkStack).
//
// # Budgets
//
// Options.Budget bounds the wall time of each call Go makes with PCall and
// of each callback; a call inside another gets what is left of the outer
// one when that is less. Options.DrainBudget bounds one Drain across the
// callbacks it runs; a DrainSpan makes several calls one. Options.MemoryLimit
// bounds how far the heap grows past its size at NewState while Lua runs
// under one of those, and Options.Context stops the state's Lua when it is
// done. A runaway gets a Lua error naming the budget and the function,
// within the budget plus about 5ms; pcall, xpcall and coroutines re-raise it
// until it reaches the call whose budget ran out, and the state goes on
// afterwards. All are off by default; then the state has no context and
// costs nothing. With any of them the state has a context (L.Context())
// that gopher-lua checks before every instruction and that is cancelled
// when a budget runs out, as any context.Context is: Err is nil until Done
// is closed, derived contexts and context.AfterFunc see it. Once the call
// whose budget ran out has caught the error, the state runs under a new
// context.
//
// # Threading
//
// A state belongs to one goroutine. Nothing here starts a goroutine but
// the budget timer, which runs only while Lua does.
package sandbox

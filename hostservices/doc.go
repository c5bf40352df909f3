// Package hostservices is a host: one typed scheduler and a registry of
// update facets, moved together by the host's frame loop.
//
// A Host owns a private sched.Scheduler (its epoch is the clock's Now at
// New). Its own typed jobs live in one sched.Group of that scheduler
// (Jobs); a compatibility layer such as compat.Timers joins the same
// timeline through a group of its own (compat.New(h.Scheduler())), so both
// run in one (deadline, creation) order while each clears only its own.
// RunNext, RunAll, RunToLast and Jump move every job of the timeline as a
// test drives a fake clock, never the facets.
//
// # Frames
//
// Update(deltaMs) is one frame: when the host is not paused it advances the
// scheduler by deltaMs (converted once to exact nanoseconds) and then calls
// every facet with deltaMs, in registration order:
//
//	h.Update(16)      jobs due within the next 16 ms run (in order), then facets
//	h.SetPaused(true)
//	h.Update(1000)    nothing runs and nothing is remembered: no hidden time
//	h.Step(16)        a single step while paused: jobs, then facets
//	h.SetPaused(false)
//	h.Update(16)      only what is due within these 16 ms runs
//
// A paused Update still checks its delta: a malformed one is an error.
// UpdateBy and StepBy take an exact temporal.Duration; their facets get the
// duration's milliseconds as a float. SetPaused takes effect from the next
// frame: a facet that pauses the host does not stop the facets after it.
//
// # Facets
//
// The facet registry is separate from the scheduled jobs: Register,
// Unregister and Facets see facets only, never jobs, and Clear clears jobs
// only.
//
//   - Register with a name already taken is an error naming it; an empty name
//     or a nil facet is an error.
//   - Unregister of an unknown name returns false.
//   - Facets returns the names in registration order. A name unregistered and
//     registered again goes to the end.
//   - A facet registered during a frame (by a job or another facet) first runs
//     in the next frame.
//   - A facet unregistered during a frame does not run later in that frame.
//   - No facet is skipped or run twice in a frame, whatever the facets before
//     it register or unregister.
//   - Every facet of a frame gets the frame's delta in milliseconds.
//
// # Errors
//
// Malformed deltas (NaN, ±Inf, negative, or too large for int64
// nanoseconds; temporal.Millis decides) are a *temporal.OptionError naming
// the method and "deltaMs" (or "d"), and change nothing, paused or not. By
// default a job's error stops the frame: the scheduler stays at that job's
// deadline (the rest of the delta is not applied), no facet runs, and the
// error comes back wrapped in a *sched.JobError. A facet's error stops the
// frame too: the facets after it do not run, and the error comes back in a
// *FacetError naming the facet.
// Nothing is swallowed. Update or Step called from inside a job or facet of
// the same host is a *sched.CallError wrapping sched.ErrReentrant, paused
// or not.
//
// That is the default policy. SetErrorHandler(fn) chooses the other one, a
// game's: report and go on. A job's or facet's error goes to fn (in its
// *sched.JobError or *FacetError) and the frame goes on: every other due
// job runs, in order, then every facet, and the frame's whole delta is
// applied; a failing interval keeps repeating, and fn sees each failure.
//
//	jobs a, b, c due at 5 ms, b fails; facets f, g, h, g fails; Update(16):
//	default   a, b                 returns b's error; time stays at 5 ms
//	fn set    a, b, c, f, g, h     fn(b's error), fn(g's error); time at 16 ms
//
// fn runs inside the frame under a callback's rules (it may schedule; Update
// or Step from it is ErrReentrant). fn's own error stops the frame as the
// default would and is returned as fn returned it, so a handler that
// returns the error it was given keeps the default for that error. A
// *sched.LoopError still stops the frame. The policy applies to Update,
// Step and their By forms, and a frame keeps the one set when it starts.
//
// # Running a host
//
// A Runner moves a host by itself: to each next deadline while no facet is
// registered, frame by frame (RunnerOptions.Frame) while facets are, until
// nothing is pending, the host is paused, RunnerOptions.Until is reached
// or Quit is called (Stopped says which). Its Next only asks how long until
// the next step; Step moves the host. It is a driver.Steppable, so
// runtime/driver's Run steps it in wall time; driver.RunVirtual runs the same loop
// in virtual time, without sleeping.
//
// # Concurrency
//
// A Host belongs to one goroutine, like its scheduler and a *lua.LState. It
// starts no goroutines.
package hostservices

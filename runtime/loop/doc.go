// Package loop is HTML's event loop for one agent: a FIFO of queued tasks,
// pull sources, timers with HTML's nesting clamp, animation frame
// callbacks, the microtask checkpoint's bracket, and a clock that is real
// or virtual. It knows no subsystem by name and owns no script: it calls
// the host through LoopHost and the task hook.
//
// # Hosts
//
// A host keeps one Scheduler per agent, registers its sources once and
// implements LoopHost; Run, NeedsFrame, NextTimer and RunFrames work over
// it. TaskEnded is the host's safe point, after every task (queued, a
// source's, a timer's, an animation frame callback) and after the task
// hook. SimpleHost is a complete minimal host to embed.
//
// # A run
//
// Run(h, until) works in turns; its doc lists their order, which is
// the contract. In short: queued tasks run a batch at a time (a task
// queued by the batch runs in a later one); Turn and Batch sources run in
// rank order, one task each after a batch; with no batch, turn sources
// drain before a due timer runs; Settle sources share one empty task; the
// Rendering sources run after a batch once a frame's time (FramePeriod) has
// passed since they last did. A turn source that always has work, or a
// chain of tasks each queuing the next, cannot keep a run from returning
// once until has passed and the run has run for FramePeriod.
//
// # Timers
//
// Script timers (SetTimer) follow HTML's timer initialization steps:
// negative delays are 0; a timer set while a timer task more than five
// levels deep runs waits at least 4 ms (an interval's repeats count as
// nesting; inside BeginCheckpoint/EndCheckpoint the level is 0); an
// interval's repeat is keyed after its callback, so it is sequenced after
// the timers that callback set. Timers fire in (due, sequence)
// order, and a cleared timer never fires, even cleared by an earlier task
// of the same turn. Delays over MaxDelay (2^31-1 ms) are refused rather
// than wrapped. Timers live in the runtime's deadline queue.
//
//	set at 0, each 0 ms timer setting the next:
//	levels 1..6 fire at 0; the 7th at 4 ms, the 8th at 8 ms, ...
//
// # Frames
//
// Animation frames fall on a FramePeriod (16 ms) grid: the frame is due at the
// first boundary after the oldest pending request, and a callback
// requested inside a frame runs in the next one. A frame goes before a
// timer only when it is due strictly earlier.
//
//	request at 5 ms: frame at 16 ms; requested in it: frame at 32 ms
//	timer at 16 ms and frame at 16 ms: the timer, then the frame
//
// # Guarantees
//
// NeedsFrame holds exactly when a frame is requested, a source wants one,
// or a run has work now: a queued task, a due timer or a ready source.
// NextTimer is now while a run has work, else max(now, the earliest timer
// or source deadline), and Never when nothing is scheduled: never before
// now. A run makes progress exactly when NextTimer is now or a frame is
// due (a held or over-budget source aside: it is ready but runs nothing).
// NeedsFrame and NextTimer allocate nothing and run no task.
//
// # Clocks and waiting
//
// On a virtual clock a run with no live source moves the clock only to the
// next due item and never waits; it leaves the clock at the last item run,
// at most until. With a live source and nothing due by until it parks
// until a wake; when the last live source stops being live (it must wake
// the host then), the parked run returns. On a real clock the host's Park
// sleeps until the item, until, or a wake: SimpleHost sleeps on one timer
// and its wake channel, so an idle host is never woken. The loop's clock
// is its own: a duration since the clock's start, not an instant.
//
// # Test clock and loop limit
//
// Advance, Next, Jump, RunToFrame and RunToLast move a virtual clock the
// way a test's fake clock does; Pending counts what is queued and Reset
// drops it. SetLoopLimit bounds the callbacks of a run, in all or at one
// instant (so work that never lets time move stops); past it the run
// returns ErrLoopLimit and what did not run stays queued. A host counts
// its own callbacks (a binding's microtasks) with Admit.
//
// # Sources
//
// A Source is Ready and Run; Deadliner, Settler and the optional methods
// its doc lists add the rest. The loop asks sources in the order of their
// names. A budgeted source takes per run what it had when the run began,
// plus one allotment (a Replenish) before the clock moves. While a source
// is held and no timer is due, the run returns, before settle and
// rendering. Package looptest has test sources and the source suite.
//
// # Concurrency
//
// A Scheduler and its host belong to one goroutine. Another goroutine
// makes a live source ready and then wakes the host, whose Park returns.
package loop

// Package sched is the typed scheduler: exact-nanosecond deadlines,
// one-shot, interval and recurrence jobs, moved only by its host.
//
// A scheduler in a few lines:
//
//	s := sched.New(temporal.Fixed(start)) // virtual time: only Advance moves it
//	h, err := s.ScheduleEvery(250*temporal.Millisecond, func() error {
//		fmt.Println("tick at", s.Now())
//		return nil
//	})
//	if err != nil { ... }                       // an *OptionError names the parameter
//	err = s.Advance(temporal.Second)             // four ticks, then Now() is start+1s
//	h.Cancel()                                   // no more ticks; true if it stopped one
//
// # Time
//
// New reads the clock once to fix the epoch; nothing here reads a clock after
// that. Deadlines are int64 nanoseconds after the epoch. Advance(d) runs every
// job due at or before Now()+d and then sets Now() to Now()+d. While a job
// runs, Now() is that job's deadline, so work a callback schedules inside the
// window also runs in the same call.
//
// # Ordering
//
// Due jobs run by deadline, then by creation order. A job keeps its creation
// number for every repeat, so an interval created before a one-shot runs
// first when both are due at one instant.
//
// # Catch-up
//
// An interval fires once for each period it missed within one call:
//
//	every 10ms from 0, Advance(35ms): fires at 10, 20, 30; next due at 40
//	every 10ms from 0, Jump(35ms):    fires once at 35;    next due at 40
//
// Jump models a host that was suspended: each due job runs once.
//
// # Handles
//
// A Handle's Due and Remaining report the job's next deadline (inside an
// interval's callback, its next tick); an inactive handle reports none.
// Reset re-arms a once or every job as time.Timer.Reset does, even one
// that fired or was cancelled: it keeps the job's id, callback and
// options, and is ordered as if scheduled at the call. A job with options
// opts in with Rearmable, so that hot paths that never reset allocate
// nothing for it. ScheduleOnceAt
// takes an instant (not before Now()); ScheduleEveryWith takes the first
// delay, which anchors the grid, and a count of fires, after which the
// job is inactive. WithName gives a job a user's name, which errors and
// traces show beside WithLabel's position: "every #3 'regen' scheduled at
// game.lua:14".
//
// # Tasks
//
// Spawn runs a TaskFunc at once; Task.Wait names the step to run after a
// span of virtual time, so code that waits reads straight through. A
// waiting task is pending work (KindSpawn) in the (deadline, creation)
// order; each resumption is one fire, counted by RunAll and, at zero wait,
// by the loop guard. Cancel ends a task at its current wait.
//
// # Keyed timers
//
// RegisterTimer registers a repeating timer by key under an Owner (the
// scheduler's own has no lease). Its ticks share the (deadline, creation)
// order with plain jobs, so Count, List, Next, RunAll and the observer see
// them. A handler may call Tick.Wait to keep running across virtual time;
// ticks due meanwhile are late, and the timer's cadence.Policy decides what
// is delivered when it ends. Advance observes every deadline in order, so
// without a waiting handler or a Jump no tick is late. Re-registering a key
// ends the old generation as Cancel does; the new one's first tick waits
// for the old handler. Cancel returns the generation's one Completion,
// done after the running handler (never interrupted) and OnCancel. Under a
// lease no tick is queued or started past the owner's deadline (a tick
// due exactly at it runs); such a timer is not pending, and Renew goes on
// from its next nominal tick, so a long stall releases no burst. Transfer
// drops the ticks due under the old authority. Clear and Drop cancel keyed
// timers too.
//
// An owner made with NewOwnerAdmitter takes its admission from outside
// virtual time instead (a lease held in etcd: cluster/etcdlease): its
// Admitter is asked, at that instant, before each tick is queued and
// before it starts; Tick.Fence carries the fence it answered. A timer not
// admitted parks until Refresh, which resumes it from its next nominal
// tick, and under a new fence drops what came due under the old one.
//
// # Observing
//
// SetObserver's function sees each callback just before it runs (a Fire
// with Event EventFire, at the job's deadline) and each job whose pending
// work stops (EventCancel: Handle.Cancel, Clear, Group.Clear,
// Timer.Cancel, a key registered again; EventDrop: Handle.Drop,
// Timer.Drop, Drop), once, at Now() when it stops; Clear and Drop report
// in (deadline, creation) order. A one-shot that fired, or a job stopped
// before, reports nothing. With no observer every path pays one nil check.
//
// # Errors
//
// A callback error stops the drain and is returned, wrapped in a *JobError.
// Now() stays at the failing job's deadline; nothing pending is lost or run
// twice, and the next call goes on from there. AdvanceReporting is the
// policy that reports and goes on: it hands each callback error to a
// function and runs the rest of the window. Bad arguments return an
// *OptionError and change nothing. Errors speak Go: they name the method
// and its parameter ("ScheduleOnce: delay: want a duration >= 0, got
// -PT0.000000001S"); a dropped scheduler and a call from inside its own
// callback are a *CallError wrapping ErrDropped or ErrReentrant.
//
// Time is a temporal.Duration here; milliseconds belong to the layers that
// take them (compat, hostservices' frames, the Lua bindings), which convert
// them once with temporal.Millis.
//
// # Limits
//
// A scheduler holds at most DefaultMaxPending (1,000,000) pending jobs,
// whatever their group; SetMaxPending changes the cap. The job past it is
// refused with a *CallError wrapping ErrTooManyPending ("ScheduleOnce: too
// many pending jobs: the cap is 1000000") and nothing changes; an interval
// or recurrence that re-arms is never refused. Jobs callbacks schedule for
// the instant being drained are bounded by the loop limit
// (DefaultLoopLimit, 10,000 per instant per call; SetLoopLimit).
//
// # Queues
//
// New keeps pending work in a 4-ary heap: O(log n) to schedule, cancel and
// re-arm, memory that follows what is pending. NewOnWheel keeps it in a
// hierarchical timer wheel instead (DefaultWheelGeometry: 50 x 1 ms,
// 10 x 50 ms, 36 x 500 ms, 4800 x 18 s, 24 hours at 1 ms; deadlines past
// the horizon wait on an overflow level and are never dropped): O(1) to
// schedule and cancel, whatever is pending, with memory that follows the
// most jobs ever pending at once. The choice is made at construction and
// changes nothing else: deadlines stay exact to the nanosecond (a slot is
// sorted by (deadline, creation) when it comes due), so both queues fire
// the same jobs at the same instants in the same order, and report the
// same List, Count, NextDeadline, observer events and errors. A bad
// geometry is an *OptionError ("NewOnWheel: g.Tick: want a duration > 0,
// got PT0S").
//
// The wheel's own costs are elsewhere: a drain moves its time a
// finest-level rotation (50 ms by default) at a time, sorting each slot's
// due jobs, and NextDeadline, Next and RunAll read the earliest occupied
// slot's list. Which queue is faster depends on the work;
// BenchmarkVirtualDay runs 10,000 intervals of 1 to 60 s for a day
// (58,105,332 fires) on both, requires the same trace, and reports ns per
// fire for each.
//
// # Concurrency
//
// A Scheduler belongs to one goroutine, like a *lua.LState. It starts no
// goroutines and holds no OS timers, however many jobs are pending.
package sched

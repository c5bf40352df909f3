// Package sched is the typed scheduler: exact-nanosecond deadlines,
// one-shot, interval and recurrence jobs, spawned tasks and keyed timers,
// moved only by its host.
//
// A scheduler in a few lines:
//
//	s := sched.New(temporal.Fixed(start)) // virtual time: only Advance moves it
//	h, err := s.ScheduleEvery(sched.Every{Interval: 250 * temporal.Millisecond}, func() error {
//		fmt.Println("tick at", s.Now())
//		return nil
//	})
//	if err != nil { ... }                       // a *temporal.OptionError names the parameter
//	err = s.Advance(temporal.Second)             // four ticks, then Now() is start+1s
//	h.Cancel()                                   // no more ticks; true if it stopped one
//
// # Time
//
// New reads the clock once to fix the epoch; nothing here reads a clock after
// that. Deadlines are int64 nanoseconds after the epoch. Advance(d) runs every
// job due at or before Now()+d and then sets Now() to Now()+d. While a job
// runs, Now() is that job's deadline, so work a callback schedules inside the
// window also runs in the same call. RunAll runs until nothing is pending,
// RunToLast up to the latest deadline pending at the call; both stop after a
// given number of fires. NextDeadline says when the next job is due.
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
// Every scheduling method returns a Handle: for a once, every or
// recurrence job, a spawned task, or one generation of a keyed timer. ID
// names the job as List does; Active says whether it will run again; Due
// gives its next deadline and the time left to it (inside an interval's
// callback, its next tick); Cancel stops it, as time.Timer.Stop does, and
// never interrupts a running callback. Reset re-arms a once or every job
// as time.Timer.Reset does, even one that fired or was cancelled: it keeps
// the job's id, callback and options, and is ordered as if scheduled at
// the call. A job with options opts in with Rearmable, so that hot paths
// that never reset allocate nothing for it. Every's Delay is the first
// delay, which anchors the grid, and its Count the number of fires, after
// which the job is inactive.
//
// Job options say more about a job: WithLabel records where it was
// scheduled, WithName gives it a user's name, which errors and traces show
// beside the position ("every #3 'regen' scheduled at game.lua:14"),
// WithData attaches a value List reports, and InGroup puts it in a Group.
//
// # Groups
//
// A Group is a named share of the timeline: its jobs keep the scheduler's
// time and order, and Count, List and Clear given the group see only them.
// A host's own jobs and a compatibility layer's timers each have one, so
// both advance together while clearing one leaves the other alone.
//
// # Tasks
//
// Spawn runs a function at once as a task's first step; Step.Wait names the
// step to run after a span of virtual time, so code that waits reads
// straight through. A waiting task is pending work (KindSpawn) in the
// (deadline, creation) order; each resumption is one fire, counted by
// RunAll and, at zero wait, by the loop guard. Cancel ends a task at its
// current wait.
//
// # Keyed timers
//
// RegisterTimer registers a repeating timer by key under an Owner: by
// default the standing owner of the timer's group, which never expires.
// Its ticks share the (deadline, creation) order with plain jobs, so Count,
// List, RunAll and the observer see them. A handler may call Step.Wait to
// keep running across virtual time; ticks due meanwhile are late, and the
// timer's cadence.Overrun policy decides what is delivered when it ends.
// Advance observes every deadline in order, so without a waiting handler
// or a Jump no tick is late. Registering a key again ends the old
// generation as Cancel does; the new one's first tick waits for the old
// handler. A generation ends once cancelled and its running handler (never
// interrupted) returned; its TimerOptions.OnCancel runs then.
//
// NewOwner makes an owner with a lease in virtual time: no tick is queued
// or started past its deadline (a tick due exactly at it runs); such a
// timer is not pending, and Renew goes on from its next nominal tick, so a
// long stall releases no burst. Transfer starts a new fence and drops the
// ticks due under the old one. An owner under a cadence.Authority (a lease
// held in etcd: cluster/etcdlease) takes its admission from outside
// virtual time instead: the authority is asked, at that instant, before
// each tick is queued and before it starts, and Step.Fence carries the
// fence it answered. A timer not admitted parks until Renew, which asks
// again, resumes it from its next nominal tick, and under a new fence
// drops what came due under the old one. Clear and Drop cancel keyed
// timers too.
//
// # Observing
//
// SetObserver's function sees each callback just before it runs (a Fire
// with Event EventFire, at the job's deadline) and each job whose pending
// work stops (EventCancel: Handle.Cancel, Clear, a key registered again;
// EventDrop: Handle.Drop, Scheduler.Drop), once, at Now() when it stops;
// Clear and Drop report in (deadline, creation) order. A one-shot that
// fired, or a job stopped before, reports nothing. With no observer every
// path pays one nil check.
//
// # Save and restore
//
// Snapshot writes the pending work as plain data (package
// runtime/sched/snapshot holds its format, which encoding/json writes):
// every once, every, recurrence and keyed timer with its label (WithName),
// deadline and creation order, and the owners with a lease by their id
// (OwnerOptions.ID). Restore builds it again in a scheduler with nothing
// pending, binding each label to a callback (RestoreOptions.Handlers);
// restored at the snapshot's now, the run goes on exactly as if never
// interrupted, and after downtime RestoreOptions.Misfire says what the
// missed runs do. A task and a job without a label cannot be saved.
//
// # Errors
//
// A callback error stops the drain and is returned, wrapped in a *JobError.
// Now() stays at the failing job's deadline; nothing pending is lost or run
// twice, and the next call goes on from there. Advance given a report
// function reports and goes on instead: it hands each callback error to the
// function and runs the rest of the window. Bad arguments return a
// *temporal.OptionError and change nothing. Errors speak Go: they name the
// method and its parameter ("ScheduleOnce: delay: want a duration >= 0, got
// -PT0.000000001S"); a dropped scheduler and a call from inside its own
// callback are a *CallError wrapping ErrDropped or ErrReentrant.
//
// Time is a temporal.Duration here; milliseconds belong to the layers that
// take them (compat, hostservices' frames, the Lua bindings), which convert
// them once with temporal.Millis.
//
// # Limits
//
// A scheduler holds at most 1,000,000 pending jobs, whatever their group.
// The job past it is refused with a *CallError wrapping ErrTooManyPending
// ("ScheduleOnce: too many pending jobs: the cap is 1000000") and nothing
// changes; an interval or recurrence that re-arms is never refused. Jobs
// callbacks schedule for the instant being drained are bounded by the loop
// limit, 10,000 per instant per call. SetLimits changes either.
//
// # Queues
//
// Pending work waits in a 4-ary heap: O(log n) to schedule, cancel and
// re-arm, memory that follows what is pending. The package's tests run
// every case a second time on a hierarchical timer wheel (runtime/wheel's
// default geometry), which must fire the same jobs at the same instants in
// the same order and report the same List, Count, NextDeadline, observer
// events and errors.
//
// # Concurrency
//
// A Scheduler belongs to one goroutine, like a *lua.LState. It starts no
// goroutines and holds no OS timers, however many jobs are pending.
package sched

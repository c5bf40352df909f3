// Package driver moves a virtual-time target in wall time: one goroutine
// sleeps until the target's next due item, then steps the target by the wall
// time that really passed.
//
// Run and the timer [Service] (below) are the real-time pieces of
// Metronome. The schedulers below them never read the wall clock; Run is
// what turns wall time into their Advance calls.
//
// `metronome run --realtime` runs on Run, not on the Service: its target
// (a Lua host) keeps its own queue and must be stepped on one goroutine,
// so Run's one timer at the target's next deadline is all it needs, where
// the Service would add a second queue and a hop to that goroutine at every
// wake-up. The Service is for Go callbacks scheduled from any goroutine.
//
// # Time
//
// Run reads the time package's clock (time.Now, with its monotonic reading)
// when it starts, before each sleep (to subtract the time the last step
// took) and at each wake-up. Each wake-up steps the
// target by the wall time measured since the previous step (never by the
// time it meant to sleep), so late wake-ups and slow callbacks are caught
// up rather than lost:
//
//	target due at 1s and 5s, step at 1s takes 300ms of work:
//	wake at 1s     Step(1s)      (the 1s item runs; work ends at 1.3s)
//	sleep 3.7s     (until 5s on the target's timeline)
//	wake at 5s     Step(4s)      (measured since the step at 1s)
//
// A timer sleeps "at least d", as time.Timer does, so when Run wakes the
// item it slept for is due.
//
// # Idle
//
// There is one timer, reset to the next due item; nothing polls. While the
// target has nothing pending (Next reports ok false) Run returns, or, when
// Options.Calls is set, blocks on Calls and ctx alone: an idle target costs
// no wake-ups at all.
//
// # Concurrency
//
// The target is stepped only on the goroutine that called Run, so a target
// that owns a *lua.LState stays on one goroutine. Other goroutines reach it
// only through Options.Calls, whose functions run on that goroutine between
// steps. Run blocks on channels and a timer, never on a mutex, so it is
// testable inside testing/synctest, whose bubble fakes the time package: the
// fake clock moves to the next wake-up as soon as Run is idle. Run takes no
// clock of its own for that reason.
//
// # Timer service
//
// [Service] runs Go callbacks at real-time deadlines, AfterFunc style, from
// any goroutine: Schedule(d, f) returns a [Timer] (a small value) whose
// Stop cancels it. Deadlines live in a sharded timer wheel (timerq); one
// goroutine sleeps on one timer until the earliest of them:
//
//   - An earlier Schedule wakes it at once: the loop publishes the deadline
//     it sleeps until only after reading every shard, and holds MaxInt64
//     before that, so a Schedule either lands in a shard the loop has yet
//     to read or sees a deadline it undercuts and leaves a wake-up token in
//     a one-slot channel. No wake-up is lost.
//   - With nothing pending it sleeps on channels alone: no timer, no
//     polling, no wake-up until a Schedule or Stop. Deadlines beyond the
//     wheel's 24-hour horizon wait in its overflow level; none is dropped.
//   - Wake-ups: one per deadline the loop sleeps for, one per Schedule
//     that is earlier than the loop's sleep (the first into an idle
//     service included), and rarely one spurious after a race with such a
//     Schedule.
//
// [Inline] runs due callbacks on the service goroutine, in deadline order;
// a slow one delays the rest. [Pool](n) hands them, in deadline order, to n
// workers through a queue that never blocks the wheel. Callbacks with equal
// deadlines run in no promised order. A callback may Schedule and stop Timers.
// A callback that panics crashes the program, as with time.AfterFunc.
//
// A callback runs at most once: fire and Stop both take the entry out of
// its shard under the shard's lock, and only the first finds it.
// Timer.Stop returns true only if the callback will never run; false once
// it was taken out to run.
//
// Bad input is a *temporal.OptionError that names the method, the
// parameter and what was expected, and changes nothing: a nil f, a negative
// d, a d whose deadline passes 2^63-1 ns of the service's clock; NewService
// rejects Pool(n < 1), a geometry wheel.Geometry.Check rejects and Shards
// out of [0, 256]. A Schedule on a stopped service returns
// [ErrServiceStopped].
//
// Service.Stop(ctx): from the call on, no callback starts. Schedule fails;
// pending callbacks are dropped (a Schedule that returned before Stop's
// lock of its shard is among them), and so are due ones that have not
// started: the rest of a batch due at one instant, the pool's queue. The loop and each worker load one atomic
// flag just before each callback and drop it once Stop has set it, so
// only the callbacks already running when Stop is called finish (one
// with Inline, one per worker with Pool):
//
//	Inline, 100 callbacks due at 1s, the first calls Stop:
//	1s   callback 1 runs, calls Stop     the other 99 are dropped
//	     Stop from another goroutine while callback 1 runs: the same
//
// Stop waits for the running callbacks, the loop and every worker: nil
// when they are gone (after that nothing runs), or ctx.Err() first (they
// still exit once the running callbacks return). It is idempotent. A
// callback that calls Stop cannot be waited for by it: Stop returns only
// when ctx ends, so a callback passes a context that is already done.
//
// With ServiceOptions.Logger set, the service logs its decisions (sleep
// until, idle, woken by an earlier deadline, fire, stop) and the wheel its
// own, at debug level; with none, the default, each costs one nil check
// and nothing is allocated.
//
// Time is the time package's monotonic clock, read through time.Now, so
// the service runs inside a testing/synctest bubble on its fake clock.
package driver

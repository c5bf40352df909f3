// Package driver moves a virtual-time target in wall time: one goroutine
// sleeps until the target's next due item, then steps the target by the wall
// time that really passed.
//
// It is the only real-time piece of Metronome. The schedulers below it never
// read the wall clock; Run is what turns wall time into their Advance calls.
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
package driver

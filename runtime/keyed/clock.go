package keyed

import "time"

// Clock is the monotonic time the scheduler and its owners' leases read,
// in int64 nanoseconds from an origin of the clock's choosing. The
// scheduler goroutine sleeps on the clock's Alarm, so a fake clock moves
// the whole scheduler, suspensions included.
type Clock interface {
	// Now returns the current time. It never decreases, and it is called
	// from the scheduler goroutine and from the workers.
	Now() int64
	// NewAlarm returns an unset alarm. The scheduler takes one.
	NewAlarm() Alarm
}

// Alarm is a one-shot wake-up on a Clock, like a time.Timer.
type Alarm interface {
	// C delivers a value once the clock reached the instant of the last Set.
	C() <-chan time.Time
	// Set arms the alarm for at, replacing any earlier setting and
	// discarding a value not yet received. An at not after Now fires at
	// once.
	Set(at int64)
	// Stop disarms the alarm.
	Stop()
}

// SystemClock returns the clock of the time package: Now is the monotonic
// time since the call, Alarm a time.Timer. Inside a testing/synctest
// bubble it is the bubble's fake clock.
func SystemClock() Clock { return sysClock{time.Now()} }

type sysClock struct{ base time.Time }

func (c sysClock) Now() int64 { return int64(time.Since(c.base)) }

func (c sysClock) NewAlarm() Alarm {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &sysAlarm{c, t}
}

type sysAlarm struct {
	c sysClock
	t *time.Timer
}

func (a *sysAlarm) C() <-chan time.Time { return a.t.C }

// Set relies on Go 1.23 timers: Reset discards a value not yet received.
func (a *sysAlarm) Set(at int64) { a.t.Reset(time.Duration(at - a.c.Now())) }

func (a *sysAlarm) Stop() { a.t.Stop() }

package keyed

import (
	"time"

	"github.com/metronome-rt/metronome/temporal"
)

// Alarm is a one-shot wake-up on a clock, like a time.Timer. A clock that
// also has a NewAlarm() Alarm method (SystemClock's, a test's fake clock)
// is what the scheduler sleeps on, so a fake clock moves the whole
// scheduler, suspensions included.
type Alarm interface {
	// C delivers a value once the clock reached the instant of the last Set.
	C() <-chan time.Time
	// Set arms the alarm for at, replacing any earlier setting and
	// discarding a value not yet received. An at not after Now fires at
	// once.
	Set(at temporal.Instant)
	// Stop disarms the alarm.
	Stop()
}

// alarmClock is a clock with its own alarms.
type alarmClock interface {
	NewAlarm() Alarm
}

// SystemClock returns the time package's monotonic clock: Now is the wall
// time of the call plus the monotonic time since, so it never goes back
// when the wall clock is set, and its alarms are time.Timers. Inside a
// testing/synctest bubble it is the bubble's fake clock.
func SystemClock() temporal.Clock {
	b := time.Now()
	return sysClock{b, b.UnixNano()}
}

type sysClock struct {
	base time.Time
	ns   int64 // base's wall time
}

func (c sysClock) Now() temporal.Instant {
	return temporal.FromUnixNano(c.ns + int64(time.Since(c.base)))
}

func (c sysClock) NewAlarm() Alarm { return newTimeAlarm(c) }

// timeAlarm is an Alarm on a time.Timer, for any clock that moves as the
// time package's does.
type timeAlarm struct {
	c temporal.Clock
	t *time.Timer
}

func newTimeAlarm(c temporal.Clock) *timeAlarm {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &timeAlarm{c, t}
}

func (a *timeAlarm) C() <-chan time.Time { return a.t.C }

// Set relies on Go 1.23 timers: Reset discards a value not yet received.
func (a *timeAlarm) Set(at temporal.Instant) {
	a.t.Reset(time.Duration(at.UnixNano() - a.c.Now().UnixNano()))
}

func (a *timeAlarm) Stop() { a.t.Stop() }

// newAlarm returns c's own alarm, or a time.Timer measured on c.
func newAlarm(c temporal.Clock) Alarm {
	if ac, ok := c.(alarmClock); ok {
		return ac.NewAlarm()
	}
	return newTimeAlarm(c)
}

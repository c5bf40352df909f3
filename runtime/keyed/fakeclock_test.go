package keyed_test

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// fakeClock is a clock with alarms that moves only when told. Advance moves it in
// one jump, as a suspended process sees time: the alarm fires once, late.
type fakeClock struct {
	mu     sync.Mutex
	now    atomic.Int64 // written under mu
	alarms []*fakeAlarm
}

type fakeAlarm struct {
	c   *fakeClock
	ch  chan time.Time
	at  int64
	set bool
}

func (c *fakeClock) Now() temporal.Instant { return temporal.FromUnixNano(c.now.Load()) }

// ns is Now in nanoseconds.
func (c *fakeClock) ns() int64 { return c.now.Load() }

func (c *fakeClock) NewAlarm() keyed.Alarm {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := &fakeAlarm{c: c, ch: make(chan time.Time, 1)}
	c.alarms = append(c.alarms, a)
	return a
}

func (a *fakeAlarm) C() <-chan time.Time { return a.ch }

func (a *fakeAlarm) Set(t temporal.Instant) {
	at := t.UnixNano()
	a.c.mu.Lock()
	defer a.c.mu.Unlock()
	select {
	case <-a.ch:
	default:
	}
	a.at, a.set = at, true
	if at <= a.c.now.Load() {
		a.fire()
	}
}

func (a *fakeAlarm) Stop() {
	a.c.mu.Lock()
	defer a.c.mu.Unlock()
	a.set = false
}

// fire sends a wake-up; c.mu held.
func (a *fakeAlarm) fire() {
	a.set = false
	select {
	case a.ch <- time.Time{}:
	default:
	}
}

// Advance moves the clock by d at once and fires the alarms that came due.
func (c *fakeClock) Advance(d temporal.Duration) { c.Set(c.ns() + int64(d)) }

// Set moves the clock to at (never back) and fires the alarms due.
func (c *fakeClock) Set(at int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at > c.now.Load() {
		c.now.Store(at)
	}
	for _, a := range c.alarms {
		if a.set && a.at <= c.now.Load() {
			a.fire()
		}
	}
}

// NextAlarm returns the earliest armed alarm's instant.
func (c *fakeClock) NextAlarm() (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := int64(0), false
	for _, a := range c.alarms {
		if a.set && (!ok || a.at < at) {
			at, ok = a.at, true
		}
	}
	return at, ok
}

// ToNextAlarm moves the clock to the earliest armed alarm and fires it.
func (c *fakeClock) ToNextAlarm() bool {
	at, ok := c.NextAlarm()
	if ok {
		c.Set(at)
	}
	return ok
}

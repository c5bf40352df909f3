package debounce

import (
	"time"

	"github.com/metronome-rt/metronome/temporal"
)

// Timers is the time a Debouncer runs on: a clock and one-shot callbacks.
// Only differences of Now matter. AfterFunc runs f once, at least d after
// Now, unless the returned Timer is stopped first; key is the debouncer key
// the callback is for, which a scheduler may show beside its job. Timers
// that also have a Tag(key any) any method get Tag's result instead, made
// once per key in play, so that what describes a key is built once. An
// error means nothing was scheduled. f's error is the Timers' to report: a
// virtual-time scheduler returns it from the call that moved time,
// RealTime hands it to its error function.
//
// A Timer may also have an Active() bool method, reporting whether it is
// still pending; a Debouncer then notices a timer that was cancelled behind
// its back (a scheduler's Clear) and treats the key as idle.
//
// A Debouncer calls AfterFunc and Stop without its lock held, so the
// Timers may run f before AfterFunc returns, or make Stop wait for a
// callback that has started. It calls Now and Active with its lock held:
// they must not wait for a callback.
type Timers interface {
	temporal.Clock
	AfterFunc(d temporal.Duration, key any, f func() error) (Timer, error)
}

// Timer is a callback Timers scheduled. Stop prevents it from running and
// reports whether it did so, as time.Timer.Stop does; it may or may not
// wait for a callback that has started.
type Timer interface {
	Stop() bool
}

// tagger is Timers that describe a key once.
type tagger interface {
	Tag(key any) any
}

// activeTimer is a Timer that knows whether it is pending.
type activeTimer interface {
	Active() bool
}

// RealTime returns Timers in wall time on the time package: Now is the
// monotonic time since the call, offset to the wall time of the call, and
// each timer is a time.AfterFunc, whose callback runs on a goroutine of its
// own. A callback's error goes to onError (nil: dropped), on the callback's
// goroutine. The Timers are safe for concurrent use.
func RealTime(onError func(error)) Timers {
	b := time.Now()
	return &realTimers{start: b, ns: b.UnixNano(), onError: onError}
}

type realTimers struct {
	start   time.Time
	ns      int64 // start's wall time
	onError func(error)
}

func (c *realTimers) Now() temporal.Instant {
	return temporal.FromUnixNano(c.ns + int64(time.Since(c.start)))
}

// AfterFunc runs f on its own goroutine at least d from now. It never fails.
func (c *realTimers) AfterFunc(d temporal.Duration, _ any, f func() error) (Timer, error) {
	return time.AfterFunc(d.Std(), func() {
		if err := f(); err != nil && c.onError != nil {
			c.onError(err)
		}
	}), nil
}

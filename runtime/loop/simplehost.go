package loop

import (
	"time"

	"github.com/metronome-rt/metronome/temporal"
)

// SimpleHost is a complete minimal LoopHost: it parks on its waker, runs
// the animation frame callbacks as its rendering steps, does nothing at
// TaskEnded and never closes. A host with more to do embeds it and
// overrides what it needs.
//
// On a real clock Park sleeps on one time.Timer and the waker channel:
// nothing polls, and an idle host with no live source is not woken at all.
// Everything but the wake a live source sends belongs to the loop's
// goroutine.
type SimpleHost struct {
	s     *Scheduler
	wake  chan struct{}
	timer *time.Timer
	ended func()
}

// NewSimpleHost returns a host with a new Scheduler on c (virtual if nil).
func NewSimpleHost(c *Clock) *SimpleHost {
	return &SimpleHost{s: NewScheduler(c), wake: make(chan struct{}, 1)}
}

// Scheduler returns the host's scheduler.
func (h *SimpleHost) Scheduler() *Scheduler { return h.s }

// wakeUp wakes a parked run, or the next Park if none is parked. Any
// goroutine may call it; wakes before one Park coalesce.
func (h *SimpleHost) wakeUp() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// TaskEnded calls the function onTaskEnded set, if any.
func (h *SimpleHost) TaskEnded() {
	if h.ended != nil {
		h.ended()
	}
}

// UpdateRendering runs the animation frame callbacks of the frame at at.
func (h *SimpleHost) UpdateRendering(at temporal.Duration) { RunFrames(h, at) }

// Closing reports false: a SimpleHost's runs end by themselves.
func (h *SimpleHost) Closing() bool { return false }

// Park blocks until a wake or, on a real clock, until the clock reaches
// deadline. With deadline Never and no live source it reports false at
// once; after a wake it reports false when no source is live or ready. A
// virtual clock never reaches a deadline by itself, so there Park waits
// only for a wake.
func (h *SimpleHost) Park(deadline temporal.Duration) bool {
	if (deadline == Never || !h.s.clock.real) && !h.s.anyLive() {
		return false
	}
	var expiry <-chan time.Time
	if deadline != Never && h.s.clock.real {
		d := (deadline - h.s.clock.Now()).Std()
		if d <= 0 {
			return true
		}
		if h.timer == nil {
			h.timer = time.NewTimer(d)
		} else {
			h.timer.Reset(d)
		}
		defer h.timer.Stop()
		expiry = h.timer.C
	}
	select {
	case <-h.wake:
		return h.s.anyLive() || h.s.ready()
	case <-expiry:
		return true
	}
}

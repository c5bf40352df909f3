package loop

import "time"

// SimpleHost is a complete minimal LoopHost: it parks on its waker, runs
// the animation frame callbacks as its rendering steps, and calls an
// optional function at every TaskEnded (where a host without a binding
// ends its microtask checkpoint).
//
// On a real clock Park sleeps on one time.Timer and the waker channel:
// nothing polls, and an idle host with no live source is not woken at all.
// Everything but Wake belongs to the loop's goroutine.
type SimpleHost struct {
	s        *Scheduler
	wake     chan struct{}
	timer    *time.Timer
	ended    func()
	closing  bool
	rendered func(at time.Duration)
}

// NewSimpleHost returns a host with a new Scheduler on c (virtual if nil).
func NewSimpleHost(c *Clock) *SimpleHost {
	return &SimpleHost{s: NewScheduler(c), wake: make(chan struct{}, 1)}
}

// Scheduler returns the host's scheduler.
func (h *SimpleHost) Scheduler() *Scheduler { return h.s }

// Wake wakes a parked run, or the next Park if none is parked. Any
// goroutine may call it; wakes before one Park coalesce.
func (h *SimpleHost) Wake() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// OnTaskEnded sets the function TaskEnded calls (nil: none).
func (h *SimpleHost) OnTaskEnded(f func()) { h.ended = f }

// OnRendering sets a function UpdateRendering calls before it runs the
// frame callbacks (nil: none).
func (h *SimpleHost) OnRendering(f func(at time.Duration)) { h.rendered = f }

// TaskEnded calls the function OnTaskEnded set.
func (h *SimpleHost) TaskEnded() {
	if h.ended != nil {
		h.ended()
	}
}

// UpdateRendering runs the frame at at: the OnRendering function, then the
// animation frame callbacks.
func (h *SimpleHost) UpdateRendering(at time.Duration) {
	if h.rendered != nil {
		h.rendered(at)
	}
	RunFrames(h, at)
}

// Close makes the current or next run return at its next turn.
func (h *SimpleHost) Close() { h.closing = true }

// Closing reports whether Close was called.
func (h *SimpleHost) Closing() bool { return h.closing }

// Park blocks until Wake or, on a real clock, until the clock reaches
// deadline. With deadline Never and no live source it returns ParkNotLive
// at once; after a wake it returns ParkNotLive when no source is live or
// ready. A virtual clock never reaches a deadline by itself, so there Park
// waits only for a wake.
func (h *SimpleHost) Park(deadline time.Duration) ParkResult {
	if (deadline == Never || !h.s.clock.real) && !h.s.anyLive() {
		return ParkNotLive
	}
	var expiry <-chan time.Time
	if deadline != Never && h.s.clock.real {
		d := deadline - h.s.clock.Now()
		if d <= 0 {
			return ParkTimedOut
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
		if h.s.anyLive() || h.s.ready() {
			return ParkWoken
		}
		return ParkNotLive
	case <-expiry:
		return ParkTimedOut
	}
}

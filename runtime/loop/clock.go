package loop

import (
	"math"
	"time"
)

// Never is the time of nothing: NextTimer's answer when nothing is
// scheduled, and the until of a run that ends only when the loop is idle.
const Never = time.Duration(math.MaxInt64)

// A Clock is a loop's time, as a duration since the clock's start. A
// virtual clock starts at 0 and moves only through Advance and AdvanceTo
// (the loop calls them when it skips ahead to the next due item); a real
// clock follows the time package's monotonic clock from NewRealClock.
type Clock struct {
	real  bool
	start time.Time
	now   time.Duration
}

// NewVirtualClock returns a virtual clock at 0.
func NewVirtualClock() *Clock { return &Clock{} }

// NewVirtualClockAt returns a virtual clock at t (0 if t is negative).
func NewVirtualClockAt(t time.Duration) *Clock { return &Clock{now: min(max(t, 0), Never-1)} }

// NewRealClock returns a real clock whose 0 is now.
func NewRealClock() *Clock { return &Clock{real: true, start: time.Now()} }

// Real reports whether c follows wall time.
func (c *Clock) Real() bool { return c.real }

// Now returns c's current time.
func (c *Clock) Now() time.Duration {
	if c.real {
		return time.Since(c.start)
	}
	return c.now
}

// Advance moves a virtual clock forward by d; a d <= 0, or any d on a real
// clock, changes nothing. The clock stops at Never - 1 rather than wrap.
func (c *Clock) Advance(d time.Duration) {
	if c.real || d <= 0 {
		return
	}
	if d > Never-1-c.now {
		c.now = Never - 1
		return
	}
	c.now += d
}

// AdvanceTo moves a virtual clock to t if t is later than now.
func (c *Clock) AdvanceTo(t time.Duration) {
	if !c.real && t > c.now {
		c.now = min(t, Never-1)
	}
}

// InstantAt returns the wall instant of loop time t: the real clock's start
// plus t, and for a virtual clock the zero time.Time plus t.
func (c *Clock) InstantAt(t time.Duration) time.Time { return c.start.Add(t) }

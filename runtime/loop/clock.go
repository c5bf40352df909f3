package loop

import (
	"math"
	"time"

	"github.com/metronome-rt/metronome/temporal"
)

// Never is the time of nothing: NextTimer's answer when nothing is
// scheduled, and the until of a run that ends only when the loop is idle.
const Never = temporal.Duration(math.MaxInt64)

// A Clock is a loop's own time, as a duration since the clock's start. A
// virtual clock starts where NewVirtualClock puts it and moves only when a
// run or a test verb moves it to the next due item; a real clock follows
// the time package's monotonic clock from NewRealClock.
type Clock struct {
	real  bool
	start time.Time
	now   temporal.Duration
}

// NewVirtualClock returns a virtual clock at t (0 if t is negative).
func NewVirtualClock(t temporal.Duration) *Clock { return &Clock{now: min(max(t, 0), Never-1)} }

// NewRealClock returns a real clock whose 0 is now.
func NewRealClock() *Clock { return &Clock{real: true, start: time.Now()} }

// Real reports whether c follows wall time.
func (c *Clock) Real() bool { return c.real }

// Now returns c's current time.
func (c *Clock) Now() temporal.Duration {
	if c.real {
		return temporal.Duration(time.Since(c.start))
	}
	return c.now
}

// advance moves a virtual clock forward by d; a d <= 0, or any d on a real
// clock, changes nothing. The clock stops at Never - 1 rather than wrap.
func (c *Clock) advance(d temporal.Duration) {
	if c.real || d <= 0 {
		return
	}
	if d > Never-1-c.now {
		c.now = Never - 1
		return
	}
	c.now += d
}

// advanceTo moves a virtual clock to t if t is later than now.
func (c *Clock) advanceTo(t temporal.Duration) {
	if !c.real && t > c.now {
		c.now = min(t, Never-1)
	}
}

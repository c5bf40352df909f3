package cadence

import (
	"fmt"
	"math"
	"math/bits"
)

// Policy decides what a repeating timer delivers when ticks came due while
// its handler was still running or while the host was suspended. On time, all
// three policies deliver every nominal tick on the grid.
//
//	period 10ms, first due at 10ms, host stalled until 35ms:
//	SkipLateTicks   once at 35 (scheduled index 3, skipped 2), then 40, 50, ...
//	CatchUpBounded  max 2: at 35 for 20 and 30 (10 skipped), then 40, 50, ...
//	DelayNextTick   once at 35, then 45, 55, ...   (re-anchored on the late run)
type Policy uint8

const (
	// SkipLateTicks delivers only the latest due nominal tick; the ones
	// before it are skipped. It is the default.
	SkipLateTicks Policy = iota
	// CatchUpBounded delivers the elapsed nominal ticks in order, at most
	// MaxCatchUpTicks of them per catch-up; older ones are skipped.
	CatchUpBounded
	// DelayNextTick delivers one late tick and re-anchors the grid: the next
	// tick is one period after the late one ran, or after a handler that
	// overran ended.
	DelayNextTick
)

var policyNames = [...]string{"skip-late-ticks", "catch-up-bounded", "delay-next-tick"}

// String returns the policy's Lua name, such as "skip-late-ticks".
func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// ParsePolicy maps a Lua name ("skip-late-ticks", "catch-up-bounded",
// "delay-next-tick") to its Policy.
func ParsePolicy(name string) (Policy, bool) {
	for i, n := range policyNames {
		if n == name {
			return Policy(i), true
		}
	}
	return 0, false
}

// PolicyNames lists the Lua names of the policies, for error messages.
func PolicyNames() []string { return policyNames[:] }

// MaxCatchUpTicksLimit is the largest MaxCatchUpTicks CatchUpBounded accepts.
const MaxCatchUpTicksLimit = math.MaxInt32

// Overrun is a timer's overrun policy. The zero value is SkipLateTicks.
type Overrun struct {
	Policy Policy
	// MaxCatchUpTicks bounds one catch-up under CatchUpBounded: 1 to
	// MaxCatchUpTicksLimit, and 0 means the default, 1. The other policies
	// ignore it.
	MaxCatchUpTicks int64
}

// Check reports what is wrong with o, naming the field, or nil.
func (o Overrun) Check() error {
	if int(o.Policy) >= len(policyNames) {
		return fmt.Errorf("policy: want one of %v, got %d", policyNames, o.Policy)
	}
	if o.Policy == CatchUpBounded && (o.MaxCatchUpTicks < 0 || o.MaxCatchUpTicks > MaxCatchUpTicksLimit) {
		return fmt.Errorf("max catch-up ticks: want 1..%d under %s, got %d", MaxCatchUpTicksLimit, CatchUpBounded, o.MaxCatchUpTicks)
	}
	return nil
}

// Tick is the timing a callback observes; these three fields are the whole
// timing contract.
//
// DeliveryIndex counts the callbacks started in this generation, from 1,
// by exactly one per callback. ScheduledIndex is the nominal tick the
// callback stands for, where the first nominal due time is 1; it never
// decreases and is at least DeliveryIndex. SkippedTicks is ScheduledIndex-1
// on the first callback and afterwards the nominal ticks between the
// previous delivery's ScheduledIndex and this one that got no callback.
type Tick struct {
	DeliveryIndex  int64
	ScheduledIndex int64
	SkippedTicks   int64
}

// Never is the deadline of a tick that cannot come: the grid ran past the
// end of int64 nanoseconds.
const Never = math.MaxInt64

// Cadence is the tick arithmetic of one timer generation, in int64
// nanoseconds on the caller's clock. It keeps no history: its size is fixed
// however many ticks it delivered. It reads no clock and does no
// scheduling; the caller asks Due, calls Take when the handler is free and
// Ended when a handler returns.
type Cadence struct {
	interval  int64
	anchorIdx int64 // nominal index whose deadline is anchorAt
	anchorAt  int64
	next      int64 // lowest nominal index not yet delivered or skipped
	lastSched int64 // ScheduledIndex of the last delivery, 0 before the first
	delivered int64
	max       int32 // MaxCatchUpTicks: fits, and keeps a Timer's hot fields in two cache lines
	policy    Policy
}

// New starts a generation whose first nominal tick is due at first
// and repeats every interval (> 0). o must pass Check.
func New(first, interval int64, o Overrun) Cadence {
	if interval <= 0 {
		panic("cadence: New: interval must be > 0")
	}
	max := o.MaxCatchUpTicks
	if max <= 0 {
		max = 1
	}
	max = min(max, MaxCatchUpTicksLimit) // the other policies ignore it, unchecked
	return Cadence{interval: interval, anchorIdx: 1, anchorAt: first, next: 1, policy: o.Policy, max: int32(max)}
}

// at is the deadline of nominal tick i >= anchorIdx, saturating at Never.
// It runs for every tick a scheduler queues, so the overflow check is a
// widening multiply rather than a division.
func (c *Cadence) at(i int64) int64 {
	k := i - c.anchorIdx
	hi, lo := bits.Mul64(uint64(k), uint64(c.interval))
	if hi != 0 || lo > uint64(Never-c.anchorAt) {
		return Never
	}
	return c.anchorAt + int64(lo)
}

// latest is the highest nominal index due at or before now (>= next-1).
func (c *Cadence) latest(now int64) int64 {
	if now < c.anchorAt {
		return c.anchorIdx - 1
	}
	return c.anchorIdx + (now-c.anchorAt)/c.interval
}

// Due is the deadline of the next tick to deliver, or Never.
func (c *Cadence) Due() int64 { return c.at(c.next) }

// Delivered is the number of ticks delivered so far.
func (c *Cadence) Delivered() int64 { return c.delivered }

// Interval is the period.
func (c *Cadence) Interval() int64 { return c.interval }

// Take delivers the tick due at now, if any, applying the overrun policy to
// the nominal ticks that passed: call it when the handler is free. It
// returns false when the next tick is not due yet.
func (c *Cadence) Take(now int64) (Tick, bool) {
	due := c.Due()
	if now < due {
		return Tick{}, false
	}
	last := c.next // on time, the usual case: no division
	if due == Never || uint64(now)-uint64(due) >= uint64(c.interval) {
		last = c.latest(now)
	}
	s := last
	switch c.policy {
	case CatchUpBounded:
		if from := last - int64(c.max) + 1; from > c.next {
			s = from
		} else {
			s = c.next
		}
	case DelayNextTick:
		// Counting goes on from the new anchor: the next tick is one
		// period after this one ran.
		c.anchorIdx, c.anchorAt = last+1, satAdd(now, c.interval)
	}
	c.delivered++
	t := Tick{DeliveryIndex: c.delivered, ScheduledIndex: s, SkippedTicks: s - c.lastSched - 1}
	c.lastSched, c.next = s, s+1
	return t, true
}

// Ended tells the cadence a handler returned at end. Under DelayNextTick a
// handler that overran (ended after the next tick's deadline) re-anchors
// the grid one period after end; the nominal ticks that passed meanwhile
// are skipped. The other policies keep their grid.
func (c *Cadence) Ended(end int64) {
	if c.policy != DelayNextTick || end <= c.Due() {
		return
	}
	c.next = c.latest(end) + 1
	c.anchorIdx, c.anchorAt = c.next, satAdd(end, c.interval)
}

// Resume drops the nominal ticks due before at, as after an owner's lease
// was renewed past its expiry: delivery goes on from the next nominal tick,
// and the next tick's SkippedTicks counts the gap.
func (c *Cadence) Resume(at int64) {
	if at <= c.Due() {
		return
	}
	// latest(at-1) is the last tick strictly before at.
	c.next = c.latest(at-1) + 1
}

func satAdd(a, b int64) int64 {
	if b > 0 && a > Never-b {
		return Never
	}
	return a + b
}

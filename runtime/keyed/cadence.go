package keyed

import "github.com/metronome-rt/metronome/runtime/cadence"

// The tick arithmetic is package cadence's, which virtual time shares; these
// names keep it reachable from the options of this package.
type (
	// Policy is cadence.Policy.
	Policy = cadence.Policy
	// Overrun is cadence.Overrun.
	Overrun = cadence.Overrun
	// Tick is cadence.Tick.
	Tick = cadence.Tick
)

// The overrun policies (see package cadence).
const (
	SkipLateTicks  = cadence.SkipLateTicks
	CatchUpBounded = cadence.CatchUpBounded
	DelayNextTick  = cadence.DelayNextTick
)

// MaxCatchUpTicksLimit is cadence.MaxCatchUpTicksLimit.
const MaxCatchUpTicksLimit = cadence.MaxCatchUpTicksLimit

// satAdd is a+b, saturating at cadence.Never.
func satAdd(a, b int64) int64 {
	if b > 0 && a > cadence.Never-b {
		return cadence.Never
	}
	return a + b
}

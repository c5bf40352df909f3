package timerq

import (
	"fmt"
	"math"
	"math/bits"
)

// Geometry is the shape of a [Wheel]: the width of its finest slot and the
// number of slots on each level, finest first. Level i's slots are as wide
// as all of level i-1, so the wheel spans Tick times the product of Slots:
// its horizon.
type Geometry struct {
	Tick  int64 // width of a finest slot, in ns (> 0)
	Slots []int // slots per level, finest first (each >= 2)
}

// DefaultGeometry is 50 x 1 ms, 10 x 50 ms, 36 x 500 ms and 4800 x 18 s:
// 24 hours at 1 ms.
func DefaultGeometry() Geometry {
	return Geometry{Tick: 1e6, Slots: []int{50, 10, 36, 4800}}
}

// Horizon returns the span of the wheel's levels in ns, or 0 for a
// geometry that Validate rejects.
func (g Geometry) Horizon() int64 {
	if g.Validate() != nil {
		return 0
	}
	h := g.Tick
	for _, n := range g.Slots {
		h *= int64(n)
	}
	return h
}

// Validate reports why g cannot shape a wheel, or nil.
func (g Geometry) Validate() error {
	if g.Tick <= 0 {
		return fmt.Errorf("timerq.Geometry: Tick is %d ns, want > 0", g.Tick)
	}
	if len(g.Slots) == 0 || len(g.Slots) > 8 {
		return fmt.Errorf("timerq.Geometry: %d levels, want 1 to 8", len(g.Slots))
	}
	span, total := uint64(g.Tick), 0
	for i, n := range g.Slots {
		if n < 2 || n > 1<<20 {
			return fmt.Errorf("timerq.Geometry: Slots[%d] is %d, want 2 to 2^20", i, n)
		}
		hi, lo := bits.Mul64(span, uint64(n))
		if hi != 0 || lo > math.MaxInt64 {
			return fmt.Errorf("timerq.Geometry: the horizon overflows int64 ns at level %d", i)
		}
		span, total = lo, total+n
	}
	if total > 1<<22 {
		return fmt.Errorf("timerq.Geometry: %d slots in all, want at most 2^22", total)
	}
	return nil
}

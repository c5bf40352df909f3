// Package wheel is the shape of a hierarchical timer wheel, the deadline
// queue behind driver.NewService: the width of its finest slot and the
// number of slots on each level, finest first. Each
// level's slot is as wide as the whole level below, so the wheel spans
// Tick times the product of Slots, its horizon; deadlines beyond it wait
// on an overflow level and come back as the wheel turns.
package wheel

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/metronome-rt/metronome/temporal"
)

// Geometry is a wheel's shape.
type Geometry struct {
	Tick  temporal.Duration // width of a finest slot (> 0)
	Slots []int             // slots per level, finest first: 1 to 8 levels, each 2 to 2^20
}

// Default is 50 x 1 ms, 10 x 50 ms, 36 x 500 ms and 4800 x 18 s: 24 hours
// at 1 ms.
func Default() Geometry {
	return Geometry{Tick: temporal.Duration(1e6), Slots: []int{50, 10, 36, 4800}}
}

// IsZero reports whether g is the zero Geometry, which the schedulers that
// take one read as Default.
func (g Geometry) IsZero() bool { return g.Tick == 0 && g.Slots == nil }

// Horizon is Tick times every level's slots, or 0 for a geometry Check
// refuses.
func (g Geometry) Horizon() temporal.Duration {
	if g.Check() != nil {
		return 0
	}
	h := g.Tick
	for _, n := range g.Slots {
		h *= temporal.Duration(n)
	}
	return h
}

// Check reports what is wrong with g as a *FieldError naming the field, or
// nil.
func (g Geometry) Check() error {
	if g.Tick <= 0 {
		return &FieldError{Field: "Tick", Want: "a duration > 0", Got: g.Tick}
	}
	if len(g.Slots) < 1 || len(g.Slots) > 8 {
		return &FieldError{Field: "Slots", Want: "1 to 8 levels", Got: g.Slots}
	}
	span, total := uint64(g.Tick), 0
	for _, n := range g.Slots {
		if n < 2 || n > 1<<20 {
			return &FieldError{Field: "Slots", Want: "2 to 2^20 slots on each level", Got: g.Slots}
		}
		hi, lo := bits.Mul64(span, uint64(n))
		if hi != 0 || lo > math.MaxInt64 {
			return &FieldError{Field: "Slots", Want: "a horizon (Tick times every level's slots) within 292 years", Got: g.Slots}
		}
		span, total = lo, total+n
	}
	if total > 1<<22 {
		return &FieldError{Field: "Slots", Want: "at most 2^22 slots in all", Got: g.Slots}
	}
	return nil
}

// FieldError is what Check finds wrong: the field, what it should be, and
// what it is. The schedulers wrap it in their own option errors.
type FieldError struct {
	Field string // "Tick" or "Slots"
	Want  string
	Got   any
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: want %s, got %v", e.Field, e.Want, e.Got)
}

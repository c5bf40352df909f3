package wheel_test

import (
	"errors"
	"testing"

	"github.com/metronome-rt/metronome/runtime/wheel"
	"github.com/metronome-rt/metronome/temporal"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		g     wheel.Geometry
		field string // "" when g is good
	}{
		{wheel.Default(), ""},
		{wheel.Geometry{Tick: 1, Slots: []int{2}}, ""},
		{wheel.Geometry{Tick: 0, Slots: []int{4}}, "Tick"},
		{wheel.Geometry{Tick: -1, Slots: []int{4}}, "Tick"},
		{wheel.Geometry{Tick: 1}, "Slots"},
		{wheel.Geometry{Tick: 1, Slots: []int{2, 2, 2, 2, 2, 2, 2, 2, 2}}, "Slots"},
		{wheel.Geometry{Tick: 1, Slots: []int{4, 1}}, "Slots"},
		{wheel.Geometry{Tick: 1, Slots: []int{1<<20 + 1}}, "Slots"},
		{wheel.Geometry{Tick: temporal.Hour, Slots: []int{1 << 20, 1 << 20}}, "Slots"},          // past 292 years
		{wheel.Geometry{Tick: 1, Slots: []int{1 << 20, 1 << 20, 1 << 20, 1 << 20, 2}}, "Slots"}, // over 2^22 slots
	} {
		err := c.g.Check()
		var fe *wheel.FieldError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%+v: Check = %v, want nil", c.g, err)
		case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field):
			t.Errorf("%+v: Check = %v, want a FieldError on %s", c.g, err, c.field)
		}
	}
}

func TestHorizon(t *testing.T) {
	if h := wheel.Default().Horizon(); h != 24*temporal.Hour {
		t.Errorf("Default().Horizon() = %v, want 24h", h)
	}
	if h := (wheel.Geometry{Tick: 0, Slots: []int{4}}).Horizon(); h != 0 {
		t.Errorf("a refused geometry's Horizon = %v, want 0", h)
	}
	if !(wheel.Geometry{}).IsZero() || wheel.Default().IsZero() {
		t.Error("IsZero: want true for the zero Geometry only")
	}
}

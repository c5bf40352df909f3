package cadence

import "fmt"

// State is a cadence's whole position, for saving it and building the
// same cadence again with FromState.
type State struct {
	Interval      int64
	AnchorIndex   int64 // the nominal index whose deadline is AnchorAt
	AnchorAt      int64
	Next          int64 // the lowest nominal index not yet delivered or skipped
	LastScheduled int64 // the ScheduledIndex of the last delivery; 0 before the first
	Delivered     int64 // deliveries so far: the last DeliveryIndex
	Overrun       Overrun
}

// State returns c's position.
func (c *Cadence) State() State {
	return State{Interval: c.interval, AnchorIndex: c.anchorIdx, AnchorAt: c.anchorAt, Next: c.next,
		LastScheduled: c.lastSched, Delivered: c.delivered, Overrun: Overrun{Policy: c.policy, MaxCatchUpTicks: int64(c.max)}}
}

// FromState returns the cadence whose State is s, or an error naming the
// field that no cadence can have.
func FromState(s State) (Cadence, error) {
	switch {
	case s.Interval <= 0:
		return Cadence{}, fmt.Errorf("interval: want > 0, got %d", s.Interval)
	case s.Next < 1 || s.AnchorIndex < 1:
		return Cadence{}, fmt.Errorf("indices: want anchor index (%d) and next index (%d) >= 1", s.AnchorIndex, s.Next)
	case s.LastScheduled < 0 || s.LastScheduled >= s.Next:
		return Cadence{}, fmt.Errorf("scheduled index: want 0 <= %d < next index %d", s.LastScheduled, s.Next)
	case s.Delivered < 0 || s.Delivered > s.LastScheduled:
		return Cadence{}, fmt.Errorf("delivery index: want 0 <= %d <= scheduled index %d", s.Delivered, s.LastScheduled)
	}
	if err := s.Overrun.Check(); err != nil {
		return Cadence{}, err
	}
	c := New(s.AnchorAt, s.Interval, s.Overrun)
	c.anchorIdx, c.next, c.lastSched, c.delivered = s.AnchorIndex, s.Next, s.LastScheduled, s.Delivered
	return c, nil
}

package sched

import (
	"errors"

	"github.com/metronome-rt/metronome/runtime/wheel"
	"github.com/metronome-rt/metronome/temporal"
)

// SetSortPolicy makes s's drains of at least minPending jobs sort what is
// still due after 1/2^shift of them have fired. Tests use it to run small
// drains through timerq's sorted run.
func (s *Scheduler) SetSortPolicy(minPending, shift int) {
	s.q.h.SetSortPolicy(minPending, shift)
}

// SetCreations sets the last creation number handed out, so tests can reach
// the end of the numbering.
func (s *Scheduler) SetCreations(n uint64) { s.seq = n }

// MaxCreations is the last creation number a scheduler hands out.
const MaxCreations = maxCreations

// DefaultMaxPending is a new scheduler's cap on pending jobs.
const DefaultMaxPending = defaultMaxPending

// MaxPending returns the cap SetLimits sets.
func (s *Scheduler) MaxPending() int { return s.maxPending }

// DefaultLoopLimit is a new scheduler's loop limit.
const DefaultLoopLimit = defaultLoopLimit

// LoopLimit returns the loop limit SetLimits sets.
func (s *Scheduler) LoopLimit() int { return s.loopLimit }

// SetNewOnWheel makes New put every scheduler on the default timer wheel
// while on is set, and returns a func restoring the previous choice.
func SetNewOnWheel(on bool) (restore func()) {
	old := newOnWheel
	newOnWheel = on
	return func() { newOnWheel = old }
}

// OnWheel reports whether s runs on the timer wheel.
func (s *Scheduler) OnWheel() bool { return s.q.w != nil }

// NewOnWheel returns a scheduler like New whose deadline queue is a
// hierarchical timer wheel of geometry g. A bad geometry is a
// *temporal.OptionError naming the field ("NewOnWheel: g.Tick: want a
// duration > 0, got PT0S").
func NewOnWheel(clock temporal.Clock, g wheel.Geometry) (*Scheduler, error) {
	var fe *wheel.FieldError
	if err := g.Check(); errors.As(err, &fe) {
		return nil, &temporal.OptionError{Method: "NewOnWheel", Param: "g." + fe.Field, Want: fe.Want, Got: fe.Got}
	}
	w, err := newWheel(g)
	if err != nil {
		return nil, &temporal.OptionError{Method: "NewOnWheel", Param: "g", Err: err}
	}
	s := New(clock)
	s.q.w = w
	return s, nil
}

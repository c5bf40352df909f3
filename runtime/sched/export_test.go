package sched

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

// SetNewOnWheel makes New put every scheduler on the default timer wheel
// while on is set, and returns a func restoring the previous choice.
func SetNewOnWheel(on bool) (restore func()) {
	old := newOnWheel
	newOnWheel = on
	return func() { newOnWheel = old }
}

// OnWheel reports whether s runs on the timer wheel.
func (s *Scheduler) OnWheel() bool { return s.q.w != nil }

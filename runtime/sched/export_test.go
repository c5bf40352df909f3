package sched

import "github.com/metronome-rt/metronome/runtime/internal/timerq"

// SetSortPolicy makes drains of at least minPending jobs sort what is still
// due after 1/2^shift of them have fired, and returns a func restoring the
// defaults. Tests use it to run small drains through timerq's sorted run.
func SetSortPolicy(minPending, shift int) (restore func()) {
	return timerq.SetSortPolicy(minPending, shift)
}

// SetCreations sets the last creation number handed out, so tests can reach
// the end of the numbering.
func (s *Scheduler) SetCreations(n uint64) { s.seq = n }

// MaxCreations is the last creation number a scheduler hands out.
const MaxCreations = maxCreations

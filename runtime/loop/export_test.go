package loop

import "time"

// PeekTimer returns the due time of the next timer.
func (s *Scheduler) PeekTimer() (time.Duration, bool) {
	_, when, _, _, ok := s.timers.Peek()
	return time.Duration(when), ok
}

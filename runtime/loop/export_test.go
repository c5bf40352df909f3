package loop

import "github.com/metronome-rt/metronome/temporal"

// What the loop's tests reach that its product callers do not.

// PeekTimer returns the due time of the next timer.
func (s *Scheduler) PeekTimer() (temporal.Duration, bool) {
	_, when, _, _, ok := s.timers.Peek()
	return temporal.Duration(when), ok
}

func (s *Scheduler) SetHostTimer(f func(id int), delay temporal.Duration, repeat bool) (int, error) {
	return s.setHostTimer(f, delay, repeat)
}
func (s *Scheduler) ClearHostTimer(id int)               { s.clearHostTimer(id) }
func (s *Scheduler) TimerDue() bool                      { return s.timerDue() }
func (s *Scheduler) FrameDue() (temporal.Duration, bool) { return s.frameDue() }
func (s *Scheduler) FrameRequested() bool                { return len(s.frames) > 0 }
func (s *Scheduler) NestingLevel() int                   { return int(s.level) }
func (c *Clock) Advance(d temporal.Duration)             { c.advance(d) }
func (h *SimpleHost) Wake()                              { h.wakeUp() }
func (h *SimpleHost) OnTaskEnded(f func())               { h.ended = f }
func Ready(h LoopHost) bool                              { return h.Scheduler().ready() }

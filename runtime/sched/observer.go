package sched

// Observer returns the function SetObserver installed, or nil, so a second
// observer (a script's trace beside the command line's) can chain to it.
func (s *Scheduler) Observer() func(Fire) { return s.observer }

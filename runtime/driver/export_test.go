package driver

// CountWakes returns opts with a counter of timer expiries: n goes up by one
// at each wake-up, before its step.
func CountWakes(opts Options, n *int) Options {
	opts.onWake = func() { *n++ }
	return opts
}

// Wakes returns how many times the service's loop has woken from a sleep,
// by its timer or by an earlier Schedule.
func Wakes(s *Service) int64 { return s.wakes.Load() }

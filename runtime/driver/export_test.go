package driver

// CountWakes returns opts with a counter of timer expiries: n goes up by one
// at each wake-up, before its step.
func CountWakes(opts Options, n *int) Options {
	opts.onWake = func() { *n++ }
	return opts
}

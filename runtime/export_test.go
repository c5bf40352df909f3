package runtime

// SetSortPolicy makes drains of at least minPending jobs sort what is still
// due after 1/2^shift of them have fired, and returns a func restoring the
// defaults. Tests use it to run small drains through timerq's sorted run.
func SetSortPolicy(minPending, shift int) (restore func()) {
	m, sh := sortMin, sortAfterShift
	sortMin, sortAfterShift = minPending, shift
	return func() { sortMin, sortAfterShift = m, sh }
}

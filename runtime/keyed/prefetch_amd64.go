package keyed

// prefetch asks the CPU to bring the two cache lines from addr on into its
// cache, without waiting for them; any address is fine, none is read.
func prefetch(addr uintptr)

package cadence

// Lease is an owner authority's answer at one instant.
type Lease struct {
	// Fence changes whenever ownership changes (a local lease's transfer,
	// a new owner in a distributed store); a tick carries the fence it was
	// queued under and never starts under another.
	Fence uint64
	// Deadline is the instant, in nanoseconds on the clock of the
	// authority's holder, at which admission ends: a tick is queued and
	// started only while that clock reads less.
	Deadline int64
}

// Authority says whether an owner's timers may tick now: the one lease
// and fence check of both execution models. A scheduler asks it before it
// queues a tick and again just before the tick starts, and starts it only
// while held and under the fence the tick was queued with. Lease must be
// fast and must not call into the scheduler; a real-time scheduler calls
// it from several goroutines, so it must be safe for concurrent use.
//
// A lease held in a distributed store implements it with the store's
// fencing value (etcd: the ownership key's create revision) and a deadline
// on its own clock (etcd: the last keep-alive's send time + TTL), and
// tells the owner whenever it gains, renews after a lapse, or loses
// ownership, so that parked timers resume without polling. A virtual-time
// scheduler cannot read that clock: an authority it asks reports held
// false once its deadline passed.
type Authority interface {
	// Lease returns the current lease; held is false while this process
	// does not own the owner (a standby).
	Lease() (l Lease, held bool)
}

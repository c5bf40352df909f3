package cadence

// Lease is an owner authority's answer at one instant.
type Lease struct {
	// Fence changes whenever ownership changes (a local lease's transfer,
	// a new owner in a distributed store). A tick carries the fence it was
	// queued under and never starts under another.
	Fence uint64
	// Deadline is the instant, in int64 nanoseconds on the caller's clock,
	// at which admission ends: a tick is admitted only while now <
	// Deadline.
	Deadline int64
}

// Admits reports whether a tick queued under fence may start at now: the
// lease still runs and ownership has not moved since.
func (l Lease) Admits(now int64, fence uint64) bool {
	return l.Fence == fence && now < l.Deadline
}

// Authority says whether an owner's timers may tick now. A scheduler asks
// it before it queues a tick and again just before the callback starts, so
// Lease must be safe for concurrent use, fast, and must not call back into
// the scheduler.
//
// A lease held in a distributed store implements it with the store's
// fencing value (etcd: the ownership key's create revision) and a deadline
// on the scheduler's clock (etcd: the last keep-alive's send time + TTL),
// and tells the scheduler whenever it gains, renews after a lapse, or
// loses ownership, so that parked timers resume without polling.
type Authority interface {
	// Lease returns the current lease; held is false while this process
	// does not own the owner (a standby).
	Lease() (l Lease, held bool)
}

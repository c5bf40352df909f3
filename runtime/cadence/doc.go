// Package cadence is the rules of repeating keyed timers, shared by
// virtual time (runtime/sched) and real time (runtime/keyed): the grid of
// nominal ticks, the three overrun policies, the indices a callback
// observes, and the lease and fence an owner's ticks are admitted under.
// It reads no clock and schedules nothing; times are int64 nanoseconds on
// the caller's clock.
//
// # Ticks
//
// A Cadence is one generation. Due is when its next tick is due; Take,
// called when the handler is free, returns the tick to deliver now under
// the policy; Ended tells it a handler returned (DelayNextTick re-anchors
// there); Resume moves past a suspension.
//
// # Leases
//
// An owner's timers tick under an Authority. Its Lease is a fence, which
// changes whenever ownership moves, and a deadline: a tick is admitted only
// while now < Deadline and under the fence it was queued with
// (Lease.Admits).
//
// # Policies
//
//	period 10ms, first due at 10ms, host stalled until 35ms:
//	SkipLateTicks   once at 35 (scheduled index 3, skipped 2), then 40, 50, ...
//	CatchUpBounded  max 2: at 35 for 20 and 30 (10 skipped), then 40, 50, ...
//	DelayNextTick   once at 35, then 45, 55, ...   (re-anchored on the late run)
package cadence

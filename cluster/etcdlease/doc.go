// Package etcdlease holds keyed-timer owners in etcd, so that an owner's
// timers tick in one process at a time across many: a Claim is the
// cadence.Authority of one owner id, for runtime/keyed's
// Scheduler.NewOwnerAuthority and runtime/sched's NewOwner
// (OwnerOptions.Authority).
//
// Only programs that import this package link the etcd client.
//
// # Layout in etcd
//
// A Store holds one etcd lease for the whole process, whatever the number
// of claims, and keeps it alive itself: one KeepAlive request every TTL/3,
// on one short stream at a time. Each owner id has one ownership key,
// Prefix+id, created by the process that owns it and attached to its
// lease; its value names the process (Options.Value). A process that finds
// the key taken is a standby: the Store's one watch on Prefix sees the key
// go (deleted, or its lease expired) and every standby races a
// transaction that creates it only if it does not exist, so exactly one
// wins. This is etcd's own lock primitive (a key that exists while a lease
// lives, taken with a compare on its create revision), not a protocol of
// our own.
//
// # Fence
//
// A claim's fence is its ownership key's create revision: it is unique per
// ownership (etcd never reuses a revision) and grows with each new owner.
// A keyed tick carries the fence it was admitted under (keyed.Fire.Fence,
// sched.Step.Fence, tick.fence in Lua). Claim.FencedTxn starts an etcd
// transaction whose first comparison is "the ownership key was created at
// this fence", so a side effect written through it is refused once another
// process took over, even from a tick that started just before.
//
// # Admission
//
// A claim admits ticks while it owns its key and the local deadline has
// not passed. The deadline is the send time of the last successful
// keep-alive (or of the grant) + the TTL etcd granted − Margin, on the
// monotonic clock, so it never lies past the instant etcd expires the
// lease, whatever the network delays; Margin covers the drift between the
// two clocks' rates. It is checked at every tick, not only when the Store
// notices a change: the client notices an expired lease only when a
// keep-alive fails, and a process resumed after SIGSTOP must not start a
// stale tick before then.
//
//	TTL 1s, Margin 100ms, keep-alive sent at 0 (answered at 5ms):
//	0..900ms    admitted
//	900ms       no tick starts unless a later keep-alive succeeded
//	~1s..1.5s   etcd expires the lease (its expiry check runs every 500ms);
//	            the key goes and a standby takes it, under a higher fence
//
// # Outcomes
//
//	etcd unreachable   keep-alives fail; admission ends at the deadline;
//	                   the Store retries every Retry. Back before etcd
//	                   expired the lease: the same lease and keys, the same
//	                   fences, timers resume from their next nominal tick.
//	lease lost         (expired or revoked: the keep-alive says not found)
//	                   every claim loses at once; the Store grants a new
//	                   lease and campaigns again, as a standby would.
//	key revoked        (deleted by an operator or another program) the
//	                   claim loses at once, and campaigns again.
//	etcd restarted     as unreachable while it is down; a restarted etcd
//	                   extends the leases it kept, so the process usually
//	                   finds its lease and keys again, under the same fences.
//	Resign             the key is deleted (compared on its fence); this
//	                   process stays a standby until another took the key
//	                   or one TTL passed, so a waiting standby wins.
//	Close              resigns every claim and revokes the lease, so
//	                   standbys take over at once.
//
// Every gain and loss calls the claim's refresh function and
// Options.OnChange, in order, on one goroutine of the Store, outside its
// locks. A lapse of the deadline is told as a loss ("lease lapsed", the
// same fence) when it happens, though admission checks time itself; a
// keep-alive answered later is a gain ("renewed after a lapse"). The
// callbacks may call the Store's methods, Close included.
//
// # Ordering
//
// A campaign's answer is taken in only if the watch (or a sync) has told
// nothing newer of the key: a key created and then deleted before the
// answer arrived is not owned. A key written under another lease after
// this ownership began ends it, whatever events were missed between.
//
// # Guarantees
//
// At most one process admits ticks of an owner at a time, given clocks
// whose rates differ by less than Margin/TTL: a process admits only
// before its deadline, and etcd lets another create the key only after
// the lease expired, which is after that deadline. A tick that started
// before the deadline may still be running when another process starts
// its next one; side effects are exactly-once only when they are fenced
// (FencedTxn). See docs/scale-out.md.
//
// # Concurrency and resources
//
// A Store runs four goroutines (keep-alive, watch, campaigns,
// notifications), whatever the number of claims; every method is safe
// for concurrent use. Claim.Lease and Claim.Admit take one mutex and read
// the clock: they never wait on etcd. Close stops the goroutines; the
// client stays the caller's, to close after the Store.
package etcdlease

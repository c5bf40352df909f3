// Package keyed holds keyed repeating timers: registration by key within
// an owner, generations, one cancel result per generation, tick
// information, overrun policies, owner leases and an execution gate, all
// run by one shared scheduler in real time.
//
// The rules every keyed timer keeps (the tick grid, the overrun policies,
// the tick indices, lease and fence checks) are package cadence's, which
// the keyed timers in virtual time (runtime/sched) share. Scheduler is the
// real-time runner: Go callbacks on a worker pool.
//
// # Resources
//
// A Scheduler is one goroutine, one deadline queue (timerq's heap) and a
// pool of Options.Workers goroutines (default GOMAXPROCS), whatever the
// number of timers: 1 + Workers goroutines for none or for 20,000. A
// registration costs one queue entry and one Timer (192 bytes; about 320
// with its key, its place in the owner's map and its queue entry, more
// with the share of an owner that holds two); no goroutine,
// time.Timer or ticker is made per registration. A Timer keeps no tick
// history: its size is fixed however many ticks it delivered. Once ticks
// run, each batch the scheduler keeps for reuse (two or three while
// waves follow each other) holds a pointer's room per timer (see Batches),
// and the drain a word per timer: the address of the timer that came due
// eight places after it last time, whose cache lines it fetches ahead, as
// timers that come due together usually do so again in the same order.
//
// # Generations
//
// Register(key) within an owner starts generation 1 of the key; each
// re-registration ends the current generation as Cancel would and starts
// the next, one higher. A tick of an earlier generation that is queued, or
// handed to the pool and not started, never runs its callback: the new
// generation has its own interval, policy and callback. Generations count
// for the owner's life, cancels included.
//
// # Cancel
//
// Timer.Cancel returns the generation's one Completion; every call, from
// any goroutine, and the re-registration that ended the generation, get
// the same one. Once Cancel is called no callback of the generation
// starts. A callback already running is not interrupted: the completion is
// done after it returned and after OnCancel, the timer-owned cleanup, ran
// (on a worker); OnCancel's error is Err for every caller, never dropped.
// Cancel does not wait, so a callback may cancel its own timer; waiting
// on its own completion inside the callback never ends.
//
//	t.Cancel()             no new callback of t's generation from here
//	<-c.Done(); c.Err()    the running callback and OnCancel are done
//
// A tick handed to the pool that no worker has reached yet (all are in
// handlers) is dropped when one does, so a completion may also wait for a
// free worker.
//
// # Ticks
//
// A callback receives a Fire: its cadence.Tick, Key, Generation and the
// Fence it runs under. DeliveryIndex counts the callbacks started in the generation
// from 1; ScheduledIndex is the nominal tick (the first due after Delay is
// 1, then one per Interval), never decreasing and at least DeliveryIndex;
// SkippedTicks is the nominal ticks since the previous delivery that got
// no callback. A key's callbacks never overlap, across generations too: a
// tick that comes due while its key's callback runs waits, and the ticks
// that pass meanwhile collapse into that one pending record, which the
// overrun policy turns into the next delivery when the handler returns.
//
// # Overrun policies
//
// Config.Overrun is a cadence.Overrun. With handlers that finish in time
// every policy delivers every nominal tick. When a handler overran or the
// process was suspended:
//
//	period 10ms, first due at 10ms, host stalled until 35ms:
//	SkipLateTicks   once at 35 (scheduled index 3, skipped 2), then 40, 50, ...
//	CatchUpBounded  max 2: at 35 for 20 and 30 (10 skipped), then 40, 50, ...
//	DelayNextTick   once at 35, then 45, 55, ...   (re-anchored on the late run)
//
//	period 10ms, handler of the tick at 10 runs until 27:
//	SkipLateTicks   at 27 for tick 2, then 30, 40, ...
//	CatchUpBounded  at 27 for tick 2, then 30, 40, ...
//	DelayNextTick   at 37 for tick 3 (tick 2 skipped), then 47, ...
//
// SkipLateTicks is the default. MaxCatchUpTicks (1..MaxInt32, 0 meaning 1)
// bounds one catch-up under CatchUpBounded; the other policies ignore it.
//
// # Owners and leases
//
// An Owner scopes keys and holds the cadence.Authority its timers tick
// under.
// Scheduler.Register uses the scheduler's own owner, which never expires.
// NewOwner(d) holds a local lease: its deadline is the last renewal + d on
// the scheduler's clock, and Transfer starts a new authority with a new
// fence. NewOwnerAuthority takes any Authority, such as a lease held in a
// distributed store (etcd: fence = the ownership key's create revision,
// deadline = last keep-alive send time + TTL on the monotonic clock),
// which calls Owner.Refresh when its answer changes.
//
// The authority is asked before a tick is queued for the pool and again on
// the worker just before the callback starts, so a suspension between the
// two is caught. A tick starts only while Now() < Deadline and under the
// fence it was queued with:
//
//	lease 50ms from 0, period 10ms, process suspended from 45 to 200:
//	10 20 30 40   delivered
//	at 200        nothing: the deadline passed; no burst, no tick queued
//	Renew at 300  tick 30 at 300 (skipped 25), then 310, ...
//
// Renewed after its deadline passed, an owner's timers resume from their
// next nominal tick due at or after the renewal; under a new fence
// (Transfer, a takeover) from the first one due after it, since a tick due
// at that instant was the old authority's. Ticks queued, retained or
// handed to the pool under the old fence never run; registrations stay.
//
// # Execution gate
//
// Options.Gate is the host's execution authority: Acquire is asked on the
// scheduler goroutine before a tick is handed to the pool, Release called
// on the worker after it. A refused tick is retained, not lost, and
// offered again at every later wake-up of the scheduler (another tick, a
// returning callback, a registration) and at Retry, which a host calls
// when its gate opens. The default grants everything.
//
// # Batches
//
// At each wake-up the scheduler takes every record due from the queue and
// hands them to the pool as one batch, sent once to as many workers as it
// has chunks, up to Workers: a wave of 20,000 timers costs one send per
// worker, not 20,000. The batch is cut into chunks, 8 per worker (fewer
// if it is smaller, more if they would pass 256 records); a worker claims
// a whole chunk, runs its records one by one, and once no chunk is left
// to claim it starts the records the other workers have not reached in
// theirs. A slow handler therefore holds up only itself: the rest of its
// chunk goes on elsewhere.
//
// A large batch goes to the pool while the scheduler still drains it, so
// the callbacks of a wave run beside the drain rather than after it. Its
// array has room for every record the wake-up can give (one per queued
// timer, plus the cleanups waiting), and when that is 4,096 or more each
// chunk is published once full. Once 2,048 records are published the
// batch goes to one worker, which runs chunks as they are published and
// parks when it catches up, to be woken when 2,048 more wait: a worker
// runs records faster than the drain gives them, and a wake-up per chunk
// would cost more than it saves. When the drain ends the batch is sealed,
// its last chunk published and the batch sent to the other workers. It is still one batch: one array, built at
// one wake-up, counted and finished once, whose last record wakes the
// scheduler once; only the moment its first records start moves earlier.
// A smaller batch is published whole when its drain ends.
//
// A tick that ended in time is not handed back: its timer already waits
// in the queue at its likely next tick, and the scheduler takes it back
// there when that comes due, touching each timer once per tick. A worker
// hands back at once only what the scheduler asked for (a tick whose next
// one came due while it ran, or whose generation was cancelled) and the
// cleanups; the worker that ends a batch's last record wakes the
// scheduler, once a batch.
//
// # Time
//
// Times are read from Options.Clock, a temporal.Clock, default SystemClock
// (the time package's monotonic clock; inside a testing/synctest bubble its
// fake one); durations are temporal.Durations. The scheduler sleeps on one
// Alarm of the clock reset to the earliest deadline, and wakes on it or on
// a channel that registrations, renewals and returning workers signal:
// nothing polls, and an idle scheduler costs nothing. A clock that jumps,
// as a suspended process sees time, gives one late wake-up, and the
// policies and leases above decide what it delivers. The clock is injected
// rather than read from the time package so that a fake clock can jump past
// a deadline without the scheduler waking on the way, and an etcd
// authority's deadline is on the scheduler's clock.
//
// # Concurrency
//
// Register, Cancel, NewOwner, Renew, Transfer, Refresh, Retry and Close
// are safe from any goroutine, callbacks included (Close excepted: from a
// callback it never returns). Callbacks run on the workers, at most one
// per key at a time; a panicking callback crashes the program, as a panic
// in any goroutine does. Close cancels every generation, waits for every
// completion, of the generations cancelled before it too, and stops the
// goroutines: no Cancel().Wait() is left to hang.
package keyed

// Package timerq is the one place deadlines are ordered: every scheduler in
// Metronome keeps its pending work in a [Heap] or a [Wheel] and none keeps
// its own sorted list. It is internal to runtime/, whose schedulers are its only
// users, so its API follows their needs.
//
// # Keys and order
//
// A queued value carries a key (when, seq): when is a deadline in integer
// nanoseconds (any int64, negative included), seq a caller-chosen tiebreak,
// usually a creation number. Keys compare by when, then by seq, as integers:
//
//	(10, 9) before (11, 0)     earlier deadline first, whatever the seq
//	(10, 1) before (10, 2)     same deadline: lower seq first
//	(10, 1) and (10, 1)        equal keys: either may come first
//
// Callers that give every value a distinct seq get one total order, so a
// replay of the same calls pops in the same order on every machine. The
// queue never reads a clock: what is due is the caller's business (a
// [Heap.Drain] is given its deadline).
//
// # Values and IDs
//
// A heap stores values of any type V by value, next to their keys, and
// asks nothing of them. Push returns an [ID], by which Get, Remove and
// Update find the entry in O(1), before any O(log n) repair:
//
//	var q timerq.Heap[*job]
//	id := q.Push(deadline, seq, j)
//	...
//	q.Remove(id) // cancel
//
// An ID is released when its entry leaves the queue (Pop, Remove, Clear)
// and a later Push may hand it out again: IDs are dense from zero, and the
// last released is reused first, so a caller can index its own tables with
// them. Get, Remove and Update of a released ID report false until it is
// reused; after that they act on the new entry. A caller that may hold an
// ID past its entry's life compares the entry's seq, through Get, or
// removes with [Heap.RemoveSeq].
//
// # Panics
//
// Only limits panic, before anything changes:
//
//   - NewHeap with a capacity out of range [0, 2^30-1].
//   - Push into a heap that already holds 2^30-1 entries.
//
// # Heap
//
// [Heap] is an exact 4-ary min-heap. Each slot holds the key, the value and
// the ID inline (slot = {when, seq, v, id}, 32 bytes for a pointer-sized
// V), so sifting compares contiguous integers and never follows a pointer.
// A table indexed by ID records each entry's position, 4 bytes per ID; the
// IDs not in use form a free list threaded through the same table, so a
// pending entry costs 36 bytes, plus the arrays' slack. The entry pushed
// last waits beside the heap until the next Push or until it is re-keyed:
// one cancelled before anything else is pushed, or popped next, never
// sifts. A removal from the
// heap fills its hole with that waiting entry when there is one, so a
// cancel followed by a schedule costs one sift, not two. Pop, an Update to
// a later key and the filler of a removal sift bottom-up: the hole follows
// the smallest children to a leaf and the entry climbs back from there, one
// compare per level fewer than the textbook sift.
//
//	Push, Pop, Remove, Update   O(log n), zero allocations once grown
//	                            (O(1) for an entry in the far ring)
//	Peek, Get, Len              O(1)
//	Clear, Each                 O(n)
//
// A Peek or Pop that takes a bucket of k entries out of the far ring (see
// below) also sorts them, in O(k) amortized over the k pops that follow.
//
// Remove takes the entry out at once and zeroes the vacated slot, so the
// garbage collector can free a cancelled value immediately: there are no
// tombstones and no lazy deletion. Memory follows pending work, not
// history: the slot array grows by append and, whenever fewer than a
// quarter of its slots are in use, is reallocated at twice its use, never
// below the capacity given to [NewHeap] or 64 slots; Clear releases
// anything larger. Once the heap is empty, the ID table is reset: the next
// Push gets ID 0, and a table larger than that floor is released.
//
// # The far ring
//
// A scheduler firing intervals re-keys the earliest entry to a deadline far
// in the future, again and again, and in a large heap each re-key is a sift
// whose every level misses the cache. So the first Update to a later key in
// a heap of 4,096 entries or more starts a ring of 256 buckets beside the
// heap, each a power-of-two number of ns wide, sized so that the ring spans
// about twice the deadlines then queued. From then on, an entry updated to a
// deadline the ring covers is appended to its bucket instead: O(1), no
// sift. When nothing outside the ring is due before the ring's first
// bucket, that bucket comes out: sorted into the run (below) if there is
// none, else pushed into the heap. Each entry is moved twice, and what is
// sifted or popped is only the next bucket's worth, which stays in cache.
// At 10,000 intervals of 1 to 60 s, an Update of the earliest takes about a
// fifth of the time container/heap's Fix does.
//
// Nothing observable changes: order, IDs, Get, Remove (O(1) in a bucket),
// Update, Each and Len treat ring entries like any other. Deadlines the ring
// does not cover, earlier ones included, go to the heap as before. While
// the ring holds entries its parameters hold; once it is empty and as many
// later deadlines as the heap holds have missed it, it starts again, sized
// to the deadlines queued then, so a workload whose time scale changes gets
// a ring of its new scale.
// Its buckets are chunks of 16 slots from one arena that the heap keeps
// until then, so it allocates nothing once grown.
//
// # Draining and sorted runs
//
// A caller that takes out every entry due by a deadline, as a scheduler's
// advance does, asks [Heap.Drain] for them: its Peek returns the smallest
// entry while it is due, and the caller pops, removes or re-keys each one
// before the next Peek. The drain decides when sorting pays: one that
// starts over 32,768 entries or more, once it has taken 1/128 of them,
// moves every entry still due out of the heap into a sorted run (entries
// in the far ring stay there). That costs O(n) for n queued plus a radix
// sort of the k entries moved (most significant digit first, each part
// split again by about log2 of its size in bits, small parts finished by
// insertion); each later Pop of a moved entry then reads the head of the
// run instead of sifting through a heap that does not fit in cache. Below
// that size the heap fits in cache and sorting does not pay.
//
// Nothing observable changes: IDs, keys and Pop order are the same, Push
// still goes to the heap and Pop takes the smaller of the two heads, Remove
// and Get work on run entries, and Update moves an entry back into the heap
// with its new key (one re-keyed to the key it has stays where it is). A second sort merges into the run. The run is one
// array, allocated by the sort and released when the run empties, not
// before.
//
// The zero Heap is empty and ready to use. A Heap must not be copied after
// first use (go vet reports copies).
//
// # Wheel
//
// [Wheel] is a hierarchical timer wheel that pops exactly what a Heap pops,
// in the same (when, seq) order, for the same calls: a workload run through
// both gives the same trace (TestWheelHeapSameTrace, and the 24-hour run of
// BenchmarkVirtualDay). Its [Geometry] is a finest slot width and the slot
// count of each level, finest first, each level's slot as wide as the
// whole level below; [DefaultGeometry] is 50 x 1 ms, 10 x 50 ms, 36 x
// 500 ms, 4800 x 18 s: a 24-hour horizon at 1 ms. Levels are aligned to the
// wheel's start rounded down to a tick, so an entry's level is the lowest
// whose current rotation holds its deadline.
//
//	Push, Remove, Get, Update   O(1), zero allocations once grown
//	PopDue                      O(1) a pop, plus moving the wheel (below)
//	Next                        reads the one slot holding the earliest
//
// Deadlines beyond the horizon wait on an overflow level, unsorted. When
// the wheel enters a new rotation of its top level and the overflow holds
// a deadline it covers, that list is read once and those entries go back
// onto the levels; none is ever dropped. A wheel with nothing on its
// levels jumps straight to the rotation of the earliest overflow deadline.
//
// PopDue(upTo) moves the wheel to upTo first: slot by slot on the finest
// level, skipping empty slots with a bitmap, entering a coarser slot moves
// its entries down (each entry is placed at most once per level), and the
// entries due by upTo, each slot's sorted by key, form the ready run, the
// same run a Heap drain reads. A Push whose deadline is at or before the
// last upTo goes into the ready run by key, from its end, so an entry due
// at once fires in the drain that pushed it, as with the heap. Time only
// moves forward: an upTo below an earlier one moves nothing.
//
// Remove unlinks the entry from its list (doubly linked through the arena)
// and frees it at once: no tombstones, no clean pass. As in the heap, the
// entry pushed last waits off the lists until the next call that reads
// them or moves time, which places it where Push would have: one removed
// before that, a timer cancelled right after it was set, touches no list.
// Entries live in an arena of 1,024-entry pages by ID, 32 bytes each for
// a pointer-sized V ({when, seq, v, next, prev}), with a free list through
// the same links; the slot lists add 4 bytes a slot (4,896 by default)
// and a bit. IDs
// behave as the heap's: dense, the last released reused first, and a stale
// ID is caught by its seq ([Wheel.RemoveSeq]). The arena does not shrink.
//
// A Wheel comes from [NewWheel] (the zero Wheel is not ready to use), and
// its time starts at the start given there; deadlines before it are
// already due. NewWheel reports a geometry [Geometry.Validate]
// rejects: a Tick <= 0, no levels or more than 8, a level of fewer than 2
// or more than 2^20 slots, more than 2^22 slots in all, or a horizon past
// 2^63-1 ns.
//
// A Wheel reports its rare decisions (an entry sent to overflow, a refill)
// to a [log/slog] Logger at debug level when one is set; none is set by
// default, and then each costs one nil check.
//
// # Sharded
//
// [Sharded] is the wheel for many goroutines: a power of two of Wheels,
// each behind its own mutex on its own cache lines. Add goes to a shard
// kept per goroutine (a hint found by its stack address; the next shard,
// which the hint then keeps, when that one is locked) and numbers the
// entry there, so adds from different goroutines rarely meet and never
// share a counter; a [Handle] names the shard, so Remove locks only it. One
// goroutine at a time calls Due, which takes every due entry out of each
// shard in turn and calls fn for each, in (when, seq) order, with no lock
// held: fn may Add and Remove. Whichever of Remove and Due takes an entry
// out first wins; the other sees it gone, so an entry leaves exactly once.
// Entries with equal deadlines from different shards come out in no
// promised order. Stop makes every later Add fail with [ErrStopped] and
// drops what is pending. The memory-ordering argument is beside the type.
// An entry is freed into its own shard; an Add whose shard would grow its
// arena goes to one with a free entry if there is one, so the arenas
// together stay near the most ever pending (about a page a shard above).
//
// # Concurrency
//
// A Heap or a Wheel is not safe for concurrent use. It is owned by the goroutine that
// owns its scheduler, like a *lua.LState; callers that share one must lock
// around every call, Each included.
package timerq

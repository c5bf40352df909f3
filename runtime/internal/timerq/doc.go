// Package timerq is the one place deadlines are ordered: every scheduler in
// Metronome keeps its pending work in a [Heap] and none keeps its own
// sorted list. It is internal to runtime/, whose schedulers are its only
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
// # Concurrency
//
// A Heap is not safe for concurrent use. It is owned by the goroutine that
// owns its scheduler, like a *lua.LState; callers that share one must lock
// around every call, Each included.
package timerq

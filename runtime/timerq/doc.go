// Package timerq is the one place deadlines are ordered: every scheduler in
// Metronome keeps its pending work in a [Queue] and none keeps its own
// sorted list.
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
// queue never reads a clock; "due" is the caller's business.
//
// # Values and nodes
//
// A value is queued by pointer: its type embeds a [Node], in which the
// queue records the value's slot, so Remove and Update find it in O(1)
// before the O(log n) repair. Embedding Node is enough to
// implement [Elem]:
//
//	type job struct {
//		timerq.Node
//		fn func()
//	}
//	var q timerq.Heap[*job]
//
// A Node belongs to at most one queue at a time; [Node.Queued] reports
// whether it is in one. A value stays queued until it is popped, removed or
// cleared: dropping a queue that still holds values leaves them marked
// queued, so Clear a queue before dropping it if its values may be pushed
// elsewhere. A Node must not be copied, which go vet reports: the copy of a
// queued Node would claim its original's slot.
//
// # Panics
//
// Programmer misuse, which no input can reach, panics before anything
// changes:
//
//   - Push of a value that is already queued, in this queue or another.
//     Silently re-keying would hide the bug; Update is the re-key.
//   - Update of a value queued in another queue. (Remove of such a value
//     reports false: it is not queued in this one.)
//   - A nil value, in any method.
//   - NewHeap with a negative capacity.
//
// # Heap
//
// [Heap] is an exact 4-ary min-heap. Each slot holds the key inline with
// the value (slot = {when, seq, x}, 24 bytes for a pointer x), so sifting
// compares contiguous integers and never follows a pointer; a value that
// moves has its new position written into its Node. The Node is four bytes
// (an int32 position, so a heap holds at most 2^31-1 values), which keeps a
// pending timer small: memory, not a few nanoseconds of cancel, is what a
// million pending timers run out of. Remove checks ownership by comparing
// the value with the one in its recorded slot.
//
//	Push, Pop, Remove, Update   O(log n), zero allocations once grown
//	Peek, Len                   O(1)
//	Clear, Each                 O(n)
//
// Remove takes the value out at once and zeroes the vacated slot, so the
// garbage collector can free a cancelled value immediately: there are no
// tombstones and no lazy deletion. Memory follows pending work, not
// history: the slot array grows by append and halves whenever fewer than a
// quarter of its slots are in use, never below the capacity given to
// [NewHeap] or 64 slots; Clear releases anything larger.
//
// The zero Heap is empty and ready to use. A Heap must not be copied after
// first use (go vet reports copies).
//
// # Concurrency
//
// Queues are not safe for concurrent use. A queue is owned by the
// goroutine that owns its scheduler, like a *lua.LState; callers that share
// one must lock around every call, Each included.
package timerq

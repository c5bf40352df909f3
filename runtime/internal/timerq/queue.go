package timerq

// ID names a queued entry. The queue hands one out on Push and takes it
// back when the entry leaves (Pop, Remove, Clear); a later Push may hand out
// the same ID again. IDs are small non-negative integers, dense from zero,
// so a caller can index its own tables with them. A caller that keeps an ID
// past its entry's life pairs it with the entry's seq, which it chose unique,
// and checks both with Get.
type ID int32

// Queue is a deadline queue: values keyed by (when, seq) and taken out in
// key order. [Heap] is the exact implementation. All implementations share
// the rules in the package doc; none is safe for concurrent use.
type Queue[V any] interface {
	// Push queues v with key (when, seq) and returns its ID.
	Push(when int64, seq uint64, v V) ID

	// Get returns the key and value of the entry id. ok is false, and the
	// other results are zero, if id is not queued.
	Get(id ID) (when int64, seq uint64, v V, ok bool)

	// Remove takes the entry id out of the queue, releasing the ID, and
	// returns its value. ok is false, and nothing changes, if id is not
	// queued.
	Remove(id ID) (v V, ok bool)

	// Update re-keys the entry id to (when, seq), keeping its ID and
	// value, and reports true. It reports false, and changes nothing, if
	// id is not queued.
	Update(id ID, when int64, seq uint64) bool

	// Peek returns the entry with the smallest key without removing it.
	// ok is false, and the other results are zero, if the queue is empty.
	Peek() (id ID, when int64, seq uint64, v V, ok bool)

	// Pop removes and returns the entry with the smallest key, releasing
	// its ID. ok is false, and the other results are zero, if the queue is
	// empty.
	Pop() (id ID, when int64, seq uint64, v V, ok bool)

	// Len returns the number of queued entries.
	Len() int

	// Clear takes every entry out of the queue, releasing every ID and the
	// memory held for them.
	Clear()

	// Each calls fn for every queued entry, in no particular order, until
	// fn returns false. fn must not change the queue.
	Each(fn func(id ID, when int64, seq uint64, v V) bool)
}

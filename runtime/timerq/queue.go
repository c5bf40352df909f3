package timerq

// Node is embedded in (or held by) a value that can be queued. The queue
// keeps the value's position in it; callers never set it. The zero Node is
// not queued. A Node must not be copied (go vet reports copies): a copy of a
// queued Node would claim its original's slot. It is four bytes, so a small
// job that embeds it stays small.
type Node struct {
	_   noCopy
	pos int32 // slot index + 1; 0 means not queued
}

// Queued reports whether the value owning n is in a queue. It is false for
// a zero Node and after the value is popped, removed or cleared.
func (n *Node) Queued() bool { return n.pos != 0 }

// QueueNode returns n itself, so that *T implements [Elem] for any struct T
// that embeds Node.
func (n *Node) QueueNode() *Node { return n }

// Elem is a value that can be queued: a pointer type whose pointee embeds
// or holds a [Node]. QueueNode must return the same non-nil Node for the
// life of the value, and no two values may share a Node.
type Elem interface {
	comparable
	QueueNode() *Node
}

// Queue is a deadline queue: values keyed by (when, seq) and taken out in
// key order. [Heap] is the exact implementation. All implementations share
// one test suite and the rules in the package doc; none is safe for
// concurrent use.
type Queue[T Elem] interface {
	// Push queues x with key (when, seq).
	// It panics if x is already queued, here or in another queue.
	Push(x T, when int64, seq uint64)

	// Remove takes x out of the queue and reports true. It reports false,
	// and changes nothing, if x is not queued in this queue. The slot is
	// released at once.
	Remove(x T) bool

	// Update re-keys x to (when, seq) if x is queued here, and pushes it
	// if x is not queued. It panics if x is queued in another queue.
	Update(x T, when int64, seq uint64)

	// Peek returns the value with the smallest key without removing it.
	// ok is false, and the other results are zero, if the queue is empty.
	Peek() (x T, when int64, seq uint64, ok bool)

	// Pop removes and returns the value with the smallest key.
	// ok is false, and the other results are zero, if the queue is empty.
	Pop() (x T, when int64, seq uint64, ok bool)

	// Len returns the number of queued values.
	Len() int

	// Clear takes every value out of the queue (each Node reads not
	// queued afterwards) and releases memory held for them.
	Clear()

	// Each calls fn for every queued value, in no particular order, until
	// fn returns false. fn must not change the queue.
	Each(fn func(x T, when int64, seq uint64) bool)
}

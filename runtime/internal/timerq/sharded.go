package timerq

import (
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Sharded is a [Wheel] that many goroutines may Add to and Remove from at
// once: shards wheels, each behind its own mutex, with an Add going to the
// shard of its goroutine's hint (the next one if that one is locked, one
// with room if that one's arena would grow). One goroutine at a time
// moves them (Due, Next).
//
// Memory ordering: every field of a shard's wheel is read and written only
// with that shard's mutex held, so each shard is linearizable on its own:
// an Add, a Remove and a Due's pass over the shard happen in the order the
// mutex is taken. A [Handle] is a plain value naming its shard, so a Remove
// locks only that shard. Whichever of Remove and Due takes an entry out
// first wins: the other sees the entry gone (or its ID handed to a later
// entry with another seq) and does nothing, so an entry leaves exactly
// once. Seqs are per shard (counter << 8 | shard), unique without a shared
// counter. Three things are touched without a shard's lock: stopped, an
// atomic read under the shard's mutex, so an Add that passes its check is
// seen by the Clear that follows a Stop's lock of that shard; the hints
// (atomic words); and each shard's room and spare flags,
// written with its mutex held and read by Adds without it. The last two only
// choose a shard: a stale flag sends an Add to a shard that then grows its
// arena or has room after all, and every Add still locks the shard it
// writes, so nothing but the choice can be stale.
type Sharded[V any] struct {
	shards  []shard[V]
	stopped atomic.Bool
	batch   []due[V] // Due's buffer (one goroutine at a time)
	hints   [hintSlots]atomic.Uint32
}

// hintSlots is how many shard hints a Sharded keeps. An Add's hint is the
// one its goroutine's stack address hashes to (see hint), so the adds of
// one goroutine go to one shard, whose lines stay in its core's cache.
// Two goroutines that meet on a shard part: the one whose TryLock fails
// moves its hint to the shard it took instead. Beside a per-P hint kept in
// a sync.Pool, it saves a pin, a Get and a Put an Add (a fifth of the time
// of an Add then Remove from two goroutines).
const (
	hintBits  = 6
	hintSlots = 1 << hintBits
)

type shard[V any] struct {
	mu    sync.Mutex
	w     *Wheel[V]
	seq   uint64
	room  atomic.Bool // w can take an entry without allocating; see Add
	spare atomic.Bool // w holds at least spareMin freed entries; see Add
	_     [96]byte    // 128 bytes a shard: no two shards' fields share a cache line
}

// spareMin is how many freed entries draw another P's adds to a shard.
// A shard that merely has room (a page part used, an entry or two freed)
// does not: two goroutines whose shards take turns having one free entry
// would otherwise move onto one shard and contend on its lock.
const spareMin = 256

// publish updates room and spare after a change to w, with mu held. It
// stores only when an answer changes, which is rare: an arena page has
// room for 1,024 entries, and a shard whose page is full usually has
// freed entries.
func (sh *shard[V]) publish() {
	if r := sh.w.roomy(); sh.room.Load() != r {
		sh.room.Store(r)
	}
	if r := sh.w.freed() >= spareMin; sh.spare.Load() != r {
		sh.spare.Store(r)
	}
}

type due[V any] struct {
	when int64
	seq  uint64
	v    V
}

// Handle names an entry of a [Sharded] wheel: its shard, its ID there and
// its seq. The zero Handle names nothing.
type Handle struct {
	id    ID
	shard uint32 // shard + 1, so the zero Handle is not one
	seq   uint64
}

// ErrStopped is returned by [Sharded.Add] after [Sharded.Stop].
var ErrStopped = fmt.Errorf("timerq.Sharded.Add: the wheel is stopped")

// NewSharded returns a concurrent wheel of shards wheels of geometry g,
// starting at start; shards is rounded up to a power of two, at most 256.
func NewSharded[V any](g Geometry, start int64, shards int) (*Sharded[V], error) {
	if shards < 1 || shards > 256 {
		return nil, fmt.Errorf("timerq.NewSharded: shards is %d, want 1 to 256", shards)
	}
	n := 1
	for n < shards {
		n <<= 1
	}
	s := &Sharded[V]{shards: make([]shard[V], n)}
	for i := range s.shards {
		w, err := NewWheel[V](g, start)
		if err != nil {
			return nil, err
		}
		s.shards[i].w = w
	}
	for k := range s.hints { // slots start spread over the shards
		s.hints[k].Store(uint32(k))
	}
	return s, nil
}

// SetLogger sets every shard's logger (see [Wheel.SetLogger]).
func (s *Sharded[V]) SetLogger(l *slog.Logger) {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		sh.w.SetLogger(l)
		sh.mu.Unlock()
	}
}

// Add queues v at deadline when on its goroutine's shard and returns its
// handle. Safe from any goroutine; ErrStopped after Stop. It allocates
// nothing but an arena page when no shard has room.
//
// When its shard would have to grow its arena and another shard has a
// free entry, the Add goes there and the goroutine's hint follows: a
// goroutine that cancels timers and sets new ones fills the entries its
// cancels freed, wherever they were added, so the arenas stay at the most
// ever pending. Without that, the adds of a goroutine whose hint changed
// (its stack moved, another goroutine pushed it off a shard) went to a new
// shard while its removes freed entries in the old one: in cancel-readd
// at 1M the arenas grew by 1 to 12 B an operation, and an arena never
// shrinks.
func (s *Sharded[V]) Add(when int64, v V) (Handle, error) {
	mask := uint32(len(s.shards) - 1)
	h := s.hint()
	i := h.Load() & mask
	if mask != 0 && !s.shards[i].room.Load() {
		// Its arena would grow: if another shard has room, the entries
		// freed there, move to it. Adds then follow removes, and a
		// goroutine whose stack moved (a new hint) does not make arenas
		// grow.
		for k := uint32(1); k <= mask; k++ {
			if j := (i + k) & mask; s.shards[j].spare.Load() {
				i = j
				h.Store(j)
				break
			}
		}
	}
	sh := &s.shards[i]
	if !sh.mu.TryLock() { // taken: the next shard is likely free
		if mask != 0 {
			i = (i + 1) & mask
			h.Store(i) // and the goroutines part
		}
		sh = &s.shards[i]
		sh.mu.Lock()
	}
	if s.stopped.Load() {
		sh.mu.Unlock()
		return Handle{}, ErrStopped
	}
	sh.seq++
	seq := sh.seq<<8 | uint64(i)
	id := sh.w.Push(when, seq, v)
	sh.publish()
	sh.mu.Unlock()
	return Handle{id: id, shard: i + 1, seq: seq}, nil
}

// hint returns the shard hint of the calling goroutine: the slot its stack
// address hashes to, in 1 KiB steps (a goroutine's stack is 2 KiB at
// least, so two goroutines' frames differ there). A stack that grows moves
// and takes another slot, and two goroutines may share one: either only
// costs a TryLock that fails, once.
func (s *Sharded[V]) hint() *atomic.Uint32 {
	var b byte
	a := uint64(uintptr(unsafe.Pointer(&b))) >> 10
	return &s.hints[(a*0x9e3779b97f4a7c15)>>(64-hintBits)]
}

// Remove takes h's entry out at once and reports whether it was pending:
// false if Due or an earlier Remove took it, or h is the zero Handle.
// Safe from any goroutine.
func (s *Sharded[V]) Remove(h Handle) bool {
	if h.shard == 0 || int(h.shard) > len(s.shards) {
		return false
	}
	sh := &s.shards[h.shard-1]
	sh.mu.Lock()
	_, ok := sh.w.RemoveSeq(h.id, h.seq)
	if ok {
		if !sh.room.Load() { // the entry freed is room
			sh.room.Store(true)
		}
		if !sh.spare.Load() && sh.w.freed() >= spareMin {
			sh.spare.Store(true)
		}
	}
	sh.mu.Unlock()
	return ok
}

// Due takes out every entry due by upTo, from every shard, and calls fn
// for each in key order (deadline, then seq), with no lock held. One
// goroutine at a time may call Due, and fn may not; fn may Add and Remove.
// An entry added by fn that is already due waits for the next Due.
func (s *Sharded[V]) Due(upTo int64, fn func(when int64, v V)) int {
	b := s.batch[:0]
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for {
			_, when, seq, v, ok := sh.w.PopDue(upTo)
			if !ok {
				break
			}
			b = append(b, due[V]{when, seq, v})
		}
		sh.publish()
		sh.mu.Unlock()
	}
	if len(s.shards) > 1 {
		slices.SortFunc(b, func(x, y due[V]) int { return cmpKey(x.when, x.seq, y.when, y.seq) })
	}
	var zero V
	for i := range b {
		fn(b[i].when, b[i].v)
		b[i].v = zero // let the value go
	}
	s.batch = b[:0]
	return len(b)
}

// Next returns the earliest pending deadline over all shards.
func (s *Sharded[V]) Next() (when int64, ok bool) {
	when = math.MaxInt64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		if w, k := sh.w.Next(); k {
			when, ok = min(when, w), true
		}
		sh.mu.Unlock()
	}
	return when, ok
}

// Len returns the number of pending entries (a snapshot, shard by shard).
func (s *Sharded[V]) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.w.Len()
		sh.mu.Unlock()
	}
	return n
}

// Stop makes every later Add fail with ErrStopped, removes every pending
// entry and returns how many there were. An Add that returned a handle
// before Stop took its shard's lock is among them.
func (s *Sharded[V]) Stop() int {
	s.stopped.Store(true)
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.w.Len()
		sh.w.Clear()
		sh.publish()
		sh.mu.Unlock()
	}
	return n
}

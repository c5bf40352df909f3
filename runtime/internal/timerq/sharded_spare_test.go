package timerq

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// A goroutine that cancels and re-adds timers keeps the arenas at their
// size, even when its shard hint comes to name another shard (its stack
// moved, or another goroutine pushed it off a shard): adds go where
// removes freed entries, and no arena grows while another has room.
func TestShardedAddsFollowRemoves(t *testing.T) {
	s, err := NewSharded[int](DefaultGeometry(), 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5000
	r := rand.New(rand.NewPCG(8, 9))
	hs := make([]Handle, n)
	for i := range hs {
		if hs[i], err = s.Add(r.Int64N(1e12), i); err != nil {
			t.Fatal(err)
		}
	}
	capacity := func() (c int) {
		for i := range s.shards {
			c += int(s.shards[i].w.size)
		}
		return c
	}
	before := capacity()
	for round := range 20 {
		for k := range s.hints { // every hint names another shard
			s.hints[k].Store(uint32(round))
		}
		for range 500 {
			k := r.IntN(n)
			if !s.Remove(hs[k]) {
				t.Fatalf("round %d: Remove of a pending timer = false", round)
			}
			if hs[k], err = s.Add(r.Int64N(1e12), k); err != nil {
				t.Fatal(err)
			}
		}
	}
	if s.Len() != n {
		t.Fatalf("Len = %d, want %d", s.Len(), n)
	}
	// One page of slack: an Add may race ahead of a flag, never by more.
	if got := capacity(); got > before+1<<pageBits {
		t.Fatalf("the arenas grew from %d to %d entries for %d pending", before, got, n)
	}
}

// Two goroutines that meet on a shard part: the Add whose TryLock fails
// takes the next shard, and its hint follows, so its next Add goes there
// at once, with no TryLock that fails.
func TestShardedAddsPartOnALockedShard(t *testing.T) {
	s, err := NewSharded[int](DefaultGeometry(), 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	for k := range s.hints { // every goroutine's hint names shard 0
		s.hints[k].Store(0)
	}
	s.shards[0].mu.Lock() // another goroutine's Add on shard 0
	h, err := s.Add(5, 1)
	s.shards[0].mu.Unlock()
	if err != nil || h.shard != 2 {
		t.Fatalf("Add beside a locked shard 0 = shard %d, %v; want shard 1", int(h.shard)-1, err)
	}
	moved := 0
	for k := range s.hints {
		switch v := s.hints[k].Load(); v {
		case 0:
		case 1:
			moved++
		default:
			t.Fatalf("hint %d names shard %d, want 0 or 1", k, v)
		}
	}
	if moved != 1 {
		t.Fatalf("%d hints moved to shard 1, want the Add's one", moved)
	}
	if h2, _ := s.Add(6, 2); h2.shard != 2 {
		t.Fatalf("the next Add went to shard %d, want 1 as its hint says", int(h2.shard)-1)
	}
	if !s.Remove(h) || s.Len() != 1 {
		t.Fatalf("Remove of the first entry failed, or Len = %d, want 1", s.Len())
	}
}

// An Add's hint is its goroutine's: the same slot, call after call, from
// the same frame, and goroutines alive at once, each on a stack of its
// own, spread over the slots.
func TestShardedHintIsPerGoroutine(t *testing.T) {
	s, err := NewSharded[int](DefaultGeometry(), 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	first := s.hint()
	for range 100 {
		if s.hint() != first {
			t.Fatal("one goroutine's hint changed between calls")
		}
	}
	const n = 16
	slots := make(chan *atomic.Uint32)
	release := make(chan struct{}) // no stack is freed, and reused, before all are read
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			slots <- s.hint()
			<-release
		})
	}
	seen := map[*atomic.Uint32]bool{}
	for range n {
		seen[<-slots] = true
	}
	close(release)
	wg.Wait()
	if len(seen) < 2 {
		t.Fatalf("%d goroutines took %d hint slot(s), want them spread", n, len(seen))
	}
}

// An Add into a shard with room and a Remove allocate nothing, hint
// included.
func TestShardedAddRemoveAllocateNothing(t *testing.T) {
	s, err := NewSharded[int](DefaultGeometry(), 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := s.Add(1e9, 1) // the first page of the goroutine's shard
	s.Remove(h)
	allocs := testing.AllocsPerRun(1000, func() {
		h, err := s.Add(2e9, 2)
		if err != nil || !s.Remove(h) {
			t.Fatalf("Add then Remove: %v", err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Add then Remove allocated %v times, want 0", allocs)
	}
}

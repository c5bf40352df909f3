package timerq

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// A goroutine that cancels and re-adds timers keeps the arenas at their
// size, even when the GC drops its shard hint for one naming another
// shard (the race detector's sync.Pool drops them more often still):
// adds go where removes freed entries, and no arena grows while another
// has room.
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
		runtime.GC()
		runtime.GC() // a second GC empties the pools' victim caches
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

package keyed_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/metronome-rt/metronome/runtime/keyed"
)

// A large batch goes to the pool while the scheduler still drains it, and
// is still one batch: a worker starts its first records before the batch
// is sealed, the wake-up builds one batch of every record, every timer
// runs once a wave, and a handler held in the first chunk holds up only
// itself.
func TestBatchPublishedWhileDrained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 5000
		started := make(chan struct{})
		var once sync.Once
		sealed := make(chan int, 2)
		h := newHarness(t, keyed.Options{Workers: 2}, keyed.Hooks{
			BeforeStart: func(*keyed.Timer) { once.Do(func() { close(started) }) },
			OnBatch: func(n int) { // called before the batch is sealed
				select {
				case <-started:
				case <-time.After(time.Second): // the bubble's clock, once everything else is blocked
					t.Error("no record started before the batch was sealed")
				}
				sealed <- n
			},
		})
		r := newRecorder(h.clk)
		var others atomic.Int64
		for i := range n {
			cb := func(keyed.Fire) { others.Add(1) }
			if i == 0 {
				cb = r.callback
			}
			register(t, h.s, keyed.Config{Key: fmt.Sprint("t", i), Interval: 10 * ms, Callback: cb})
		}
		release := r.hold("t0")
		h.jump(10 * ms)
		if got := <-sealed; got != n {
			t.Fatalf("a batch of %d, want %d", got, n)
		}
		synctest.Wait()
		if got := others.Load(); got != n-1 || r.busy("t0") != 1 {
			t.Fatalf("%d other callbacks ran while t0 was held (busy %d), want %d", got, r.busy("t0"), n-1)
		}
		release()
		h.jump(10 * ms)
		if got := <-sealed; got != n {
			t.Fatalf("a batch of %d, want %d", got, n)
		}
		synctest.Wait()
		if got := others.Load(); got != 2*(n-1) {
			t.Fatalf("%d other callbacks, want %d", got, 2*(n-1))
		}
		if fs := r.take(); len(fs) != 2 {
			t.Fatalf("t0 ran %d times, want 2", len(fs))
		}
		select {
		case got := <-sealed:
			t.Fatalf("another batch of %d", got)
		default:
		}
	})
}

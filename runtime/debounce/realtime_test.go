package debounce

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/temporal"
)

// In real time, 1,000 keys touched from 8 goroutines at once fire once
// each, at their wake-up, with a touch's arguments. The bubble's clock
// moves only when every goroutine is blocked, so this is exact and sleeps
// for no real time.
func TestRealTimeBurstFiresEachKeyOnce(t *testing.T) {
	for _, c := range realClocks {
		t.Run(c.name, func(t *testing.T) { synctest.Test(t, func(t *testing.T) { burst(t, c.make) }) })
	}
}

// realClocks are the wall-time clocks: each makes one inside a synctest
// bubble and stops it when the test ends.
var realClocks = []struct {
	name string
	make func(t *testing.T, onError func(error)) Timers
}{
	{"time.AfterFunc", func(t *testing.T, onError func(error)) Timers { return RealTime(onError) }},
	{"service inline", func(t *testing.T, onError func(error)) Timers { return newService(t, driver.Inline(), onError) }},
	{"service pool", func(t *testing.T, onError func(error)) Timers { return newService(t, driver.Pool(4), onError) }},
}

func newService(t *testing.T, st driver.Strategy, onError func(error)) Timers {
	s, err := driver.NewService(driver.ServiceOptions{Strategy: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return onService(s, onError)
}

func burst(t *testing.T, makeClock func(*testing.T, func(error)) Timers) {
	{
		const keys, workers, timeout = 1000, 8, 50 * time.Millisecond
		var (
			mu    sync.Mutex
			count = map[int]int{}
			late  []time.Duration
		)
		clock := makeClock(t, func(err error) { t.Errorf("callback error: %v", err) })
		t0 := clock.Now().UnixNano()
		done := make(chan struct{}, keys)
		d, err := New(clock, Config{Timeout: temporal.Duration(timeout), BusyTimeout: 10 * temporal.Millisecond, Trailing: true},
			func(key int, worker int) error {
				mu.Lock()
				count[key]++
				late = append(late, time.Duration(clock.Now().UnixNano()-t0))
				mu.Unlock()
				if worker < 0 || worker >= workers {
					t.Errorf("key %d fired with arguments %d", key, worker)
				}
				done <- struct{}{}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for k := range keys {
					if err := d.Debounce((k*7+w*131)%keys, w); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		if n := d.Len(); n != keys {
			t.Fatalf("%d keys pending after the burst, want %d", n, keys)
		}
		for range keys {
			<-done
		}
		time.Sleep(time.Second) // the bubble's clock: no more firings come
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if len(done) != 0 || len(count) != keys {
			t.Fatalf("%d extra firings, %d keys fired; want 0 and %d", len(done), len(count), keys)
		}
		for k, n := range count {
			if n != 1 {
				t.Fatalf("key %d fired %d times", k, n)
			}
		}
		for _, at := range late {
			if at != timeout { // no time passes in the bubble while touching
				t.Fatalf("a key fired at %v, want %v", at, timeout)
			}
		}
		if d.Len() != 0 || len(d.keys) != 0 {
			t.Fatalf("%d pending, %d keys held after firing", d.Len(), len(d.keys))
		}
	}
}

// Touches racing a key's firing, flushes and cancels from several
// goroutines: each touch is delivered by at most one firing, and the
// race detector sees the locking. On a clock whose Stop waits for a
// running callback too.
func TestRealTimeConcurrentTouchFlushCancel(t *testing.T) {
	for _, c := range []struct {
		name  string
		clock func() Timers
	}{
		{"time.AfterFunc", func() Timers { return RealTime(nil) }},
		{"Stop waits", func() Timers { return waitingClock{time.Now()} }},
	} {
		t.Run(c.name, func(t *testing.T) { synctest.Test(t, func(t *testing.T) { touchFlushCancel(t, c.clock()) }) })
	}
}

// waitingClock is RealTime with a Stop that waits for a callback that
// has started.
type waitingClock struct{ start time.Time }

type waitingTimer struct {
	t    *time.Timer
	done chan struct{} // closed when the callback has returned
}

func (c waitingClock) Now() temporal.Instant {
	return temporal.FromUnixNano(int64(time.Since(c.start)))
}

func (waitingClock) AfterFunc(d temporal.Duration, _ any, f func() error) (Timer, error) {
	w := &waitingTimer{done: make(chan struct{})}
	w.t = time.AfterFunc(d.Std(), func() {
		defer close(w.done)
		_ = f()
	})
	return w, nil
}

func (w *waitingTimer) Stop() bool {
	if w.t.Stop() {
		return true
	}
	<-w.done
	return false
}

func touchFlushCancel(t *testing.T, clock Timers) {
	var mu sync.Mutex
	fired := 0
	d, err := New(clock, Config{Timeout: temporal.Millisecond, Throttle: temporal.Millisecond, Leading: true, Trailing: true},
		func(key string, n int) error { mu.Lock(); fired++; mu.Unlock(); return nil })
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				_ = d.Debounce("k", i)
				switch (i + w) % 7 {
				case 3:
					_, _ = d.Flush("k")
				case 5:
					d.Cancel("k")
				}
				if i%10 == 0 {
					time.Sleep(time.Millisecond / 2)
				}
			}
		})
	}
	wg.Wait()
	time.Sleep(time.Second)
	synctest.Wait()
	mu.Lock()
	defer mu.Unlock()
	if fired == 0 || fired > 800 {
		t.Fatalf("%d firings for 800 touches", fired)
	}
	if d.Pending("k") {
		t.Fatal("still pending a second after the last touch")
	}
}

// A touch on a stopped service is the service's error and changes nothing.
func TestServiceClockStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := driver.NewService(driver.ServiceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		d, err := New(onService(s, nil), Config{Timeout: temporal.Millisecond, Trailing: true}, func(string, int) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Debounce("k", 1); !errors.Is(err, driver.ErrServiceStopped) {
			t.Fatalf("Debounce on a stopped service: %v", err)
		}
		if d.Len() != 0 || d.Pending("k") {
			t.Fatal("a refused touch left the key pending")
		}
	})
}

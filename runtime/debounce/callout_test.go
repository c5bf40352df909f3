package debounce

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/temporal"
)

// gateClock is a manual clock whose timers fire when the test says, each on
// a goroutine of its own, and whose Stop waits for a callback that has
// started, as a clock that serialises its callbacks does. With inline set,
// AfterFunc moves time by d and runs f before it returns.
type gateClock struct {
	now    atomic.Int64
	inline bool

	mu     sync.Mutex
	timers []*gateTimer // every timer made, in order
	onStop func()       // called by a Stop that is about to wait
}

type gateTimer struct {
	c     *gateClock
	f     func() error
	state int           // pending, running or over, under c.mu
	done  chan struct{} // closed when f has returned
}

const (
	pending = iota
	running
	over
)

func (c *gateClock) Now() temporal.Instant { return temporal.FromUnixNano(c.now.Load()) }

func (c *gateClock) AfterFunc(d temporal.Duration, _ any, f func() error) (Timer, error) {
	t := &gateTimer{c: c, f: f, done: make(chan struct{})}
	c.mu.Lock()
	c.timers = append(c.timers, t)
	if c.inline {
		t.state = running
	}
	c.mu.Unlock()
	if c.inline {
		c.now.Add(int64(d))
		t.run()
	}
	return t, nil
}

// timer returns the i-th timer made.
func (c *gateClock) timer(i int) *gateTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timers[i]
}

func (c *gateClock) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// fire starts t's callback on a goroutine of its own and returns once it
// counts as running; the callback proceeds when proceed is closed.
func (t *gateTimer) fire(proceed <-chan struct{}) {
	t.c.mu.Lock()
	if t.state != pending {
		t.c.mu.Unlock()
		panic("gateTimer.fire: not pending")
	}
	t.state = running
	t.c.mu.Unlock()
	go func() {
		<-proceed
		t.run()
	}()
}

func (t *gateTimer) run() {
	defer close(t.done)
	_ = t.f()
	t.c.mu.Lock()
	t.state = over
	t.c.mu.Unlock()
}

func (t *gateTimer) Stop() bool {
	t.c.mu.Lock()
	st, hook := t.state, t.c.onStop
	if st == pending {
		t.state = over
	}
	t.c.mu.Unlock()
	if st != running {
		return st == pending
	}
	if hook != nil {
		hook()
	}
	<-t.done
	return false
}

// within runs f and fails the test if it has not returned by the deadline:
// a deadlock fails, it does not hang.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still blocked after 10s: deadlock", what)
	}
}

// The debouncer calls its clock's AfterFunc and its timers' Stop without
// its lock: a clock that runs a callback inside AfterFunc, or whose Stop
// waits for a callback that is waiting for the debouncer, does not
// deadlock, and each touch is still delivered once.
func TestClockCallsOutsideTheLock(t *testing.T) {
	type fired struct {
		key string
		arg int
	}
	setup := func(t *testing.T, c Config, inline bool) (*gateClock, *Debouncer[string, int], func() []fired) {
		clock := &gateClock{inline: inline}
		var (
			mu  sync.Mutex
			log []fired
		)
		d, err := New(clock, c, func(key string, arg int) error {
			mu.Lock()
			log = append(log, fired{key, arg})
			mu.Unlock()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return clock, d, func() []fired { mu.Lock(); defer mu.Unlock(); return slices.Clone(log) }
	}
	c := Config{Timeout: 100 * ms, BusyTimeout: 200 * ms, Trailing: true}

	t.Run("AfterFunc runs the callback inline", func(t *testing.T) {
		clock, d, log := setup(t, c, true)
		within(t, "Debounce", func() {
			if err := d.Debounce("a", 1); err != nil {
				t.Error(err)
			}
		})
		within(t, "Debounce", func() {
			if err := d.Debounce("a", 2); err != nil {
				t.Error(err)
			}
		})
		if want := []fired{{"a", 1}, {"a", 2}}; !slices.Equal(log(), want) {
			t.Fatalf("fired %v, want %v (each touch's burst ends inside its own AfterFunc)", log(), want)
		}
		if d.Pending("a") || clock.Now().UnixNano() != int64(200*ms) {
			t.Fatalf("pending %v at %v, want idle at 200ms", d.Pending("a"), clock.Now())
		}
	})

	// Each case starts the key's timer firing, holds its callback before
	// it enters the debouncer, and lets it go on when an operation stops
	// that timer: a Stop that waits for it while holding the debouncer's
	// lock never returns.
	for _, op := range []struct {
		name string
		do   func(d *Debouncer[string, int]) error
		want []fired // the firings, the held callback's included
	}{
		{"Cancel", func(d *Debouncer[string, int]) error { d.Cancel("a"); return nil }, nil},
		{"Flush", func(d *Debouncer[string, int]) error { _, err := d.Flush("a"); return err }, []fired{{"a", 1}}},
		{"a push", func(d *Debouncer[string, int]) error { return d.Debounce("a", 2) }, nil},
	} {
		t.Run(op.name+" stops a running timer", func(t *testing.T) {
			clock, d, log := setup(t, c, false)
			if err := d.Debounce("a", 1); err != nil {
				t.Fatal(err)
			}
			proceed := make(chan struct{})
			clock.onStop = func() { close(proceed) }
			clock.timer(0).fire(proceed)
			within(t, op.name, func() {
				if err := op.do(d); err != nil {
					t.Error(err)
				}
			})
			<-clock.timer(0).done
			if !slices.Equal(log(), op.want) {
				t.Fatalf("fired %v, want %v", log(), op.want)
			}
			if op.name != "a push" {
				return
			}
			// The push's timer carries the burst, with the latest
			// arguments; the held callback found itself replaced.
			if !d.Pending("a") || clock.count() != 2 {
				t.Fatalf("after the push: pending %v, %d timers; want pending, 2", d.Pending("a"), clock.count())
			}
			clock.timer(1).fire(closed)
			<-clock.timer(1).done
			if want := []fired{{"a", 2}}; !slices.Equal(log(), want) {
				t.Fatalf("fired %v, want %v", log(), want)
			}
		})
	}
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

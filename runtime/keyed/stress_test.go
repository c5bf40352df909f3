package keyed_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// TestStressConcurrentCalls runs goroutines that register, re-register,
// cancel, renew and transfer at random on a few owners and keys, on real
// workers and a fake clock they move, with OnCancel set on most
// generations, and checks what every interleaving must keep: no callback
// of a generation, nor of a key, runs twice at once; none starts after its
// generation's completion was done or after its OnCancel; OnCancel runs once
// per generation, after its last callback; each generation has one
// completion, done once OnCancel returned, with OnCancel's error; and every
// completion finishes. It is sized for -race; METRONOME_SOAK=1 runs more.
func TestStressConcurrentCalls(t *testing.T) {
	goroutines, ops := 32, 300
	if os.Getenv("METRONOME_SOAK") != "" {
		goroutines, ops = 48, 4000
	}
	catchUp := cadence.Overrun{Policy: cadence.CatchUpBounded, MaxCatchUpTicks: 16}
	for _, v := range []struct {
		name  string
		hooks keyed.Hooks
		bulk  bulk
		ops   int
	}{
		{"batches", keyed.Hooks{}, bulk{}, ops},
		{"published-while-drained", keyed.Hooks{EarlyMin: 1}, bulk{}, ops},
		// Timers that catch up at every wake-up, drained again while
		// their workers finish them.
		{"catch-ups", keyed.Hooks{}, bulk{300, ms, catchUp, true}, ops},
		// Waves large enough to go to the pool while they are drained.
		{"waves", keyed.Hooks{}, bulk{4200, 50 * ms, cadence.Overrun{}, false}, ops / 4},
	} {
		t.Run(v.name, func(t *testing.T) { stress(t, v.hooks, v.bulk, goroutines, v.ops) })
	}
}

// bulk is timers that tick beside the stress's keys, all at one phase;
// with nudge, each batch moves the clock on by a microsecond, so that the
// next wake-up drains the catch-ups still running.
type bulk struct {
	n        int
	interval temporal.Duration
	overrun  cadence.Overrun
	nudge    bool
}

// stressGen is one generation as the stress test sees it.
type stressGen struct {
	key      *stressKey
	tm       atomic.Pointer[keyed.Timer]
	err      error // what its OnCancel returns; nil without one
	cleanup  bool  // OnCancel is set
	running  atomic.Int32
	calls    atomic.Int64
	cancels  atomic.Int32                     // OnCancel calls
	done     atomic.Pointer[keyed.Completion] // once Cancel or the re-registration returned
	lateCall atomic.Bool                      // a callback started after done finished
}

// stressKey is a key within an owner: its running callbacks across
// generations, and its current generation.
type stressKey struct {
	name    string
	owner   int
	running atomic.Int32
	mu      sync.Mutex
	cur     *stressGen
	gen     uint64
}

type stressRun struct {
	t      *testing.T
	s      *keyed.Scheduler
	clk    *fakeClock
	owners []*keyed.Owner // [0] is nil: the scheduler's own
	keys   []*stressKey

	mu   sync.Mutex
	gens []*stressGen

	failed atomic.Int32
}

func (r *stressRun) fail(format string, args ...any) {
	if r.failed.Add(1) <= 20 {
		r.t.Errorf(format, args...)
	}
}

func stress(t *testing.T, hooks keyed.Hooks, b bulk, goroutines, ops int) {
	clk := &fakeClock{}
	if b.nudge {
		hooks.OnBatch = func(int) { clk.Advance(temporal.Microsecond) }
	}
	s, err := keyed.NewWithHooks(keyed.Options{Clock: clk, Workers: 4}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	r := &stressRun{t: t, s: s, clk: clk, owners: []*keyed.Owner{nil}}
	for range 3 {
		o, err := s.NewOwner(20 * ms)
		if err != nil {
			t.Fatal(err)
		}
		r.owners = append(r.owners, o)
	}
	for o := range r.owners {
		for k := range 8 {
			r.keys = append(r.keys, &stressKey{name: fmt.Sprintf("o%d-k%d", o, k), owner: o})
		}
	}

	running := make([]atomic.Int32, b.n)
	for i := range b.n {
		register(t, s, keyed.Config{Key: fmt.Sprint("bulk", i), Interval: b.interval, Overrun: b.overrun, Callback: func(f keyed.Fire) {
			if n := running[i].Add(1); n != 1 {
				r.fail("%s: %d callbacks at once", f.Key, n)
			}
			running[i].Add(-1)
		}})
	}

	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range ops {
				r.step(rng)
			}
		})
	}
	wg.Wait()

	closed := make(chan struct{})
	go func() {
		defer close(closed)
		s.Close() // its errors are the cleanups', checked one by one below
	}()
	if !waitDone(closed) {
		r.t.Errorf("Close did not return")
	}

	r.mu.Lock()
	gens := r.gens
	r.mu.Unlock()
	var unfinished, calls int64
	for _, g := range gens {
		calls += g.calls.Load()
		c := g.tm.Load().Cancel()
		if !isDone(c) {
			unfinished++
			continue
		}
		r.checkDone(g, c)
	}
	if unfinished > 0 {
		t.Errorf("%d of %d completions never finished", unfinished, len(gens))
	}
	wakeups, batches, _, early := keyed.Stats(s)
	t.Logf("%d generations, %d callbacks, %d wake-ups, %d batches, %d records run before their batch was sealed",
		len(gens), calls, wakeups, batches, early)
}

// step is one random call, then a move of the clock.
func (r *stressRun) step(rng *rand.Rand) {
	k := r.keys[rng.IntN(len(r.keys))]
	switch n := rng.IntN(100); {
	case n < 25:
		r.register(k, rng)
	case n < 40:
		r.cancel(k, rng.IntN(4) == 0)
	case n < 55:
		if o := r.owners[k.owner]; o != nil {
			var err error
			if n < 50 {
				err = o.Renew()
			} else {
				err = o.Transfer()
			}
			if err != nil {
				r.fail("%s: renew or transfer: %v", k.name, err)
			}
		}
	default:
		runtime.Gosched()
	}
	d := temporal.Duration(rng.IntN(3)) * ms / 2
	if rng.IntN(20) == 0 {
		d = temporal.Duration(5+rng.IntN(15)) * ms // a late wake-up: catch-ups
	}
	r.clk.Advance(d)
	runtime.Gosched() // let the scheduler and the workers at it
}

// stressOverrun is mostly CatchUpBounded, whose catch-ups hand a tick to
// the pool with more already due.
func stressOverrun(rng *rand.Rand) cadence.Overrun {
	if p := cadence.Policy(rng.IntN(4)); p <= cadence.DelayNextTick && p != cadence.CatchUpBounded {
		return cadence.Overrun{Policy: p}
	}
	return cadence.Overrun{Policy: cadence.CatchUpBounded, MaxCatchUpTicks: 1 + rng.Int64N(8)}
}

// register registers k, or re-registers it, ending its current generation.
func (r *stressRun) register(k *stressKey, rng *rand.Rand) {
	g := &stressGen{key: k, cleanup: rng.IntN(4) != 0}
	c := keyed.Config{
		Key:      k.name,
		Interval: temporal.Duration(1+rng.IntN(3)) * ms,
		Overrun:  stressOverrun(rng),
		Callback: func(f keyed.Fire) { r.callback(g, f) },
	}
	if g.cleanup {
		c.OnCancel = func() error { return r.onCancel(g) }
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	var tm *keyed.Timer
	var err error
	if o := r.owners[k.owner]; o != nil {
		tm, err = o.Register(c)
	} else {
		tm, err = r.s.Register(c)
	}
	if err != nil {
		r.fail("%s: Register: %v", k.name, err)
		return
	}
	k.gen++
	if tm.Generation() != k.gen {
		r.fail("%s: generation %d, want %d", k.name, tm.Generation(), k.gen)
	}
	if g.cleanup {
		g.err = fmt.Errorf("%s generation %d", k.name, tm.Generation())
	}
	g.tm.Store(tm)
	r.mu.Lock()
	r.gens = append(r.gens, g)
	r.mu.Unlock()
	if old := k.cur; old != nil {
		old.done.Store(old.tm.Load().Cancel()) // the re-registration's
	}
	k.cur = g
}

// cancel cancels k's current generation, and with wait waits for it.
func (r *stressRun) cancel(k *stressKey, wait bool) {
	k.mu.Lock()
	g := k.cur
	k.mu.Unlock()
	if g == nil {
		return
	}
	tm := g.tm.Load()
	c := tm.Cancel()
	g.done.Store(c)
	if c2 := tm.Cancel(); c2 != c {
		r.fail("%s generation %d: two completions", k.name, tm.Generation())
	}
	if wait {
		if !waitDone(c.Done()) {
			r.fail("%s generation %d: Cancel().Wait() did not return", k.name, tm.Generation())
			return
		}
		r.checkDone(g, c)
	}
}

func (r *stressRun) callback(g *stressGen, f keyed.Fire) {
	// A completion is done after the generation's last callback returned.
	if c := g.done.Load(); c != nil && isDone(c) && !g.lateCall.Swap(true) {
		r.fail("%s generation %d: a callback started after its completion was done", f.Key, f.Generation)
	}
	if n := g.running.Add(1); n != 1 {
		r.fail("%s generation %d: %d callbacks at once", f.Key, f.Generation, n)
	}
	if n := g.key.running.Add(1); n != 1 {
		r.fail("%s: %d callbacks of the key at once", f.Key, n)
	}
	if g.cancels.Load() != 0 {
		r.fail("%s generation %d: a callback started after OnCancel", f.Key, f.Generation)
	}
	g.calls.Add(1)
	if f.Tick.DeliveryIndex%3 == 0 {
		runtime.Gosched() // a handler that takes a while
	}
	if f.Tick.DeliveryIndex%17 == 0 {
		if tm := g.tm.Load(); tm != nil {
			tm.Cancel() // a callback may cancel its own timer
		}
	}
	g.key.running.Add(-1)
	g.running.Add(-1)
}

func (r *stressRun) onCancel(g *stressGen) error {
	if n := g.cancels.Add(1); n != 1 {
		r.fail("%s: OnCancel called %d times", g.key.name, n)
	}
	if g.running.Load() != 0 {
		r.fail("%s: OnCancel ran beside a callback of its generation", g.key.name)
	}
	return g.err
}

// checkDone checks g's completion c, done.
func (r *stressRun) checkDone(g *stressGen, c *keyed.Completion) {
	name, gen := g.key.name, g.tm.Load().Generation()
	if g.running.Load() != 0 {
		r.fail("%s generation %d: done while a callback runs", name, gen)
	}
	want := int32(0)
	if g.cleanup {
		want = 1
	}
	if n := g.cancels.Load(); n != want {
		r.fail("%s generation %d: done after %d OnCancel calls, want %d", name, gen, n, want)
	}
	if err := c.Err(); g.cleanup && !errors.Is(err, g.err) {
		r.fail("%s generation %d: Err %v, want %v", name, gen, err, g.err)
	}
}

// waitDone waits for ch to be closed, up to a generous bound that only
// turns a hang into a failure.
func waitDone(ch <-chan struct{}) bool {
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// TestStressCatchUpsDrainedWhileRunning hands catch-up ticks to the pool
// (more is due when each one starts) and has the scheduler drain them
// again while the workers finish them, wave after wave: each tick is taken
// back once, either given back by its worker or found done by the drain,
// so no timer's callback overlaps itself, every wave ends, and each
// cancel runs its OnCancel once and completes.
func TestStressCatchUpsDrainedWhileRunning(t *testing.T) {
	timers, waves := 300, 30
	if os.Getenv("METRONOME_SOAK") != "" {
		timers, waves = 1000, 300
	}
	clk := &fakeClock{}
	var left atomic.Int32
	left.Store(int32(waves))
	done := make(chan struct{})
	s, err := keyed.NewWithHooks(keyed.Options{Clock: clk, Workers: 2}, keyed.Hooks{
		// The next wake-up drains the catch-ups handed out in this batch.
		OnBatch: func(int) { clk.Advance(temporal.Microsecond) },
		// Nothing in flight: the wave ended; the next one starts 20
		// intervals late, 16 catch-ups a timer.
		Idle: func() {
			switch n := left.Add(-1); {
			case n > 0:
				clk.Advance(20 * ms)
			case n == 0:
				close(done)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	running := make([]atomic.Int32, timers)
	cleanups := make([]atomic.Int32, timers)
	tms := make([]*keyed.Timer, timers)
	var calls atomic.Int64
	for i := range timers {
		tms[i] = register(t, s, keyed.Config{Key: fmt.Sprint("t", i), Interval: ms,
			Overrun: cadence.Overrun{Policy: cadence.CatchUpBounded, MaxCatchUpTicks: 16},
			Callback: func(f keyed.Fire) {
				if n := running[i].Add(1); n != 1 {
					t.Errorf("%s: %d callbacks at once", f.Key, n)
				}
				calls.Add(1)
				running[i].Add(-1)
			},
			OnCancel: func() error { cleanups[i].Add(1); return nil }})
	}
	s.Retry() // a wake-up with nothing in flight starts the first wave
	if !waitDone(done) {
		t.Fatalf("%d of %d waves ended; %d callbacks", waves-int(left.Load()), waves, calls.Load())
	}
	for i, tm := range tms {
		c := tm.Cancel()
		if !waitDone(c.Done()) {
			t.Fatalf("%s: the completion never finished", tm.Key())
		}
		if n := cleanups[i].Load(); n != 1 {
			t.Fatalf("%s: OnCancel ran %d times", tm.Key(), n)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d callbacks", calls.Load())
}

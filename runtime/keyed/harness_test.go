package keyed_test

import (
	"sync"
	"testing"
	"testing/synctest"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

const ms = temporal.Millisecond

// harness runs a scheduler on a fake clock inside a synctest bubble:
// synctest.Wait returns once the scheduler and its workers are blocked, so
// every step is deterministic and nothing sleeps.
type harness struct {
	t   *testing.T
	clk *fakeClock
	s   *keyed.Scheduler
}

func newHarness(t *testing.T, opts keyed.Options, h keyed.Hooks) *harness {
	t.Helper()
	clk := &fakeClock{}
	opts.Clock = clk
	if opts.Workers == 0 {
		opts.Workers = 2
	}
	s, err := keyed.NewWithHooks(opts, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Logf("Close: %v", err)
		}
	})
	return &harness{t: t, clk: clk, s: s}
}

// advance moves the clock by d, stopping at every alarm on the way, as a
// process that is never suspended sees time.
func (h *harness) advance(d temporal.Duration) {
	target := h.clk.ns() + int64(d)
	for {
		synctest.Wait()
		at, ok := h.clk.NextAlarm()
		if !ok || at > target {
			break
		}
		h.clk.Set(at)
	}
	h.clk.Set(target)
	synctest.Wait()
}

// jump moves the clock by d in one step, as a suspended process sees it.
func (h *harness) jump(d temporal.Duration) {
	synctest.Wait()
	h.clk.Advance(d)
	synctest.Wait()
}

// fired is one callback as a recorder saw it.
type fired struct {
	keyed.Fire
	at temporal.Duration // clock when it started
}

// recorder records callbacks; hold makes the next callbacks of a key block
// until released, a handler that takes time.
type recorder struct {
	clk     *fakeClock
	mu      sync.Mutex
	fires   []fired
	running map[string]int
	gen     map[string]uint64 // generation of the key's running callback
	overlap bool
	holds   map[string]chan struct{}
}

func newRecorder(clk *fakeClock) *recorder {
	return &recorder{clk: clk, running: map[string]int{}, gen: map[string]uint64{}, holds: map[string]chan struct{}{}}
}

func (r *recorder) callback(f keyed.Fire) {
	r.mu.Lock()
	r.fires = append(r.fires, fired{f, temporal.Duration(r.clk.ns())})
	r.running[f.Key]++
	r.gen[f.Key] = f.Generation
	if r.running[f.Key] > 1 {
		r.overlap = true
	}
	hold := r.holds[f.Key]
	r.mu.Unlock()
	if hold != nil {
		<-hold
	}
	r.mu.Lock()
	r.running[f.Key]--
	r.mu.Unlock()
}

// hold makes key's callbacks block until release is called.
func (r *recorder) hold(key string) (release func()) {
	ch := make(chan struct{})
	r.mu.Lock()
	r.holds[key] = ch
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.holds, key)
		r.mu.Unlock()
		close(ch)
	}
}

func (r *recorder) take() []fired {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.fires
	r.fires = nil
	return f
}

func (r *recorder) busy(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[key]
}

// runs reports whether key's generation gen has a callback running.
func (r *recorder) runs(key string, gen uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[key] > 0 && r.gen[key] == gen
}

// ticks is the ticks of fs, for comparing.
func ticks(fs []fired) []cadence.Tick {
	var ts []cadence.Tick
	for _, f := range fs {
		ts = append(ts, f.Tick)
	}
	return ts
}

func register(t interface {
	Helper()
	Fatal(...any)
}, r interface {
	Register(keyed.Config) (*keyed.Timer, error)
}, c keyed.Config) *keyed.Timer {
	t.Helper()
	tm, err := r.Register(c)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

package keyed_test

import (
	"testing"
	"testing/synctest"

	"pgregory.net/rapid"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// mTimer is the reference model's view of one live generation.
type mTimer struct {
	tm       *keyed.Timer
	gen      uint64
	first    int64 // nominal tick 1
	interval int64
	policy   cadence.Policy
	last     cadence.Tick // the last delivery
	from     int64        // ticks due before this were dropped by a resume
}

// nextDue is when the first tick the timer still owes is due.
func (m *mTimer) nextDue() int64 {
	next := m.last.ScheduledIndex + 1
	if m.from > m.first {
		next = max(next, (m.from-m.first+m.interval-1)/m.interval+1)
	}
	return m.first + (next-1)*m.interval
}

// mOwner is the model's owner: the scheduler's own (no lease) or a local
// lease of lease ns renewed at renewed.
type mOwner struct {
	o        *keyed.Owner // nil: the scheduler's own
	lease    int64
	deadline int64
	fence    uint64
}

func (o *mOwner) valid(now int64) bool { return o.o == nil || now < o.deadline }

// TestModel drives register / re-register / cancel / tick / wait (a
// handler that takes time) / jump / renew / transfer / lease expiry at
// random against a small model, and checks after every step: section 1's
// tick invariants, that no cancelled or replaced generation and no owner
// past its deadline or under an old fence ever started a callback, that
// a key never ran twice at once, that cancel completes exactly when the
// generation's callback is not running, and that a free timer under a
// valid authority has delivered its latest due tick.
func TestModel(t *testing.T) { testModel(t, keyed.Hooks{}) }

// TestModelPublishedWhileDrained is TestModel with every batch published
// record by record while the scheduler drains it.
func TestModelPublishedWhileDrained(t *testing.T) { testModel(t, keyed.Hooks{EarlyMin: 1}) }

func testModel(t *testing.T, hooks keyed.Hooks) {
	var steps, fires, lapsed int
	defer func() { t.Logf("%d steps, %d callbacks, %d checks under a lapsed lease", steps, fires, lapsed) }()
	synctest.Test(t, func(t *testing.T) {
		// rapid asks a *testing.T for its deadline, which a bubble forbids.
		rapid.Check(bubbleT{t}, func(rt *rapid.T) {
			clk := &fakeClock{}
			const workers = 2
			s, err := keyed.NewWithHooks(keyed.Options{Clock: clk, Workers: workers}, hooks)
			if err != nil {
				rt.Fatal(err)
			}
			h := &harness{clk: clk, s: s}
			r := newRecorder(clk)
			leased, _ := s.NewOwner(temporal.Duration(rapid.Int64Range(5, 40).Draw(rt, "lease")) * ms)
			l, _ := leased.Authority().Lease()
			owners := []*mOwner{{}, {o: leased, lease: int64(l.Deadline), deadline: l.Deadline, fence: l.Fence}}
			keys := []string{"d-a", "d-b", "o-a", "o-b"}
			owner := func(k string) *mOwner { return owners[map[byte]int{'d': 0, 'o': 1}[k[0]]] }
			live := map[string]*mTimer{}
			gens := map[string]uint64{}
			holds := map[string]func(){}
			defer func() {
				for _, rel := range holds {
					rel()
				}
				if err := s.Close(); err != nil {
					rt.Fatal(err)
				}
			}()

			check := func() {
				steps++
				now := clk.ns()
				if !owners[1].valid(now) {
					lapsed++
				}
				for _, f := range r.take() {
					fires++
					m := live[f.Key]
					if m == nil || m.gen != f.Generation {
						rt.Fatalf("%s generation %d ran; live %v", f.Key, f.Generation, m)
					}
					o := owner(f.Key)
					if o.o != nil && (int64(f.at) >= o.deadline || f.Fence != o.fence) {
						rt.Fatalf("%s ran at %v under fence %d; deadline %v fence %d", f.Key, f.at, f.Fence, temporal.Duration(o.deadline), o.fence)
					}
					tk, prev := f.Tick, m.last
					if tk.DeliveryIndex != prev.DeliveryIndex+1 || tk.ScheduledIndex <= prev.ScheduledIndex ||
						tk.ScheduledIndex < tk.DeliveryIndex || tk.SkippedTicks != tk.ScheduledIndex-prev.ScheduledIndex-1 {
						rt.Fatalf("%s: tick %+v after %+v", f.Key, tk, prev)
					}
					if m.policy != cadence.DelayNextTick && m.first+(tk.ScheduledIndex-1)*m.interval > int64(f.at) {
						rt.Fatalf("%s: tick %+v at %v is early", f.Key, tk, f.at)
					}
					m.last = tk
				}
				if r.overlap {
					rt.Fatal("a key ran twice at once")
				}
				busy := 0
				for _, k := range keys {
					busy += r.busy(k)
				}
				if busy >= workers {
					return // every worker is in a handler: due ticks wait for one
				}
				for k, m := range live {
					if m.policy == cadence.DelayNextTick || holds[k] != nil || r.busy(k) > 0 || !owner(k).valid(now) {
						continue
					}
					if due := m.nextDue(); due <= now {
						rt.Fatalf("%s: tick due at %v not delivered at %v (last %+v)", k, temporal.Duration(due), temporal.Duration(now), m.last)
					}
				}
			}

			rt.Repeat(map[string]func(*rapid.T){
				"register": func(rt *rapid.T) {
					k := rapid.SampledFrom(keys).Draw(rt, "key")
					iv := rapid.Int64Range(1, 6).Draw(rt, "interval") * int64(ms)
					p := cadence.Policy(rapid.IntRange(0, 2).Draw(rt, "policy"))
					c := keyed.Config{Key: k, Interval: temporal.Duration(iv), Callback: r.callback,
						Overrun: cadence.Overrun{Policy: p, MaxCatchUpTicks: rapid.Int64Range(0, 3).Draw(rt, "max")}}
					var tm *keyed.Timer
					if o := owner(k).o; o != nil {
						tm = register(rt, o, c)
					} else {
						tm = register(rt, s, c)
					}
					gens[k]++
					if tm.Generation() != gens[k] {
						rt.Fatalf("%s: generation %d, want %d", k, tm.Generation(), gens[k])
					}
					live[k] = &mTimer{tm: tm, gen: tm.Generation(), first: clk.ns() + iv, interval: iv, policy: p}
					synctest.Wait()
					check()
				},
				"cancel": func(rt *rapid.T) {
					k := rapid.SampledFrom(keys).Draw(rt, "key")
					m := live[k]
					if m == nil {
						rt.Skip("nothing registered")
					}
					delete(live, k)
					done := m.tm.Cancel()
					synctest.Wait()
					finished := isDone(done)
					busy := 0
					for _, k := range keys {
						busy += r.busy(k)
					}
					// With every worker in a handler, a tick handed to the pool
					// waits for one before it is dropped: then either may hold.
					if running := r.runs(k, m.gen); (running && finished) || (busy < workers && !running && !finished) {
						rt.Fatalf("%s: cancel done %v while its callback running %v", k, finished, running)
					}
					check()
				},
				"tick": func(rt *rapid.T) {
					h.advance(temporal.Duration(rapid.Int64Range(0, 20).Draw(rt, "d")) * ms)
					check()
				},
				"jump": func(rt *rapid.T) {
					h.jump(temporal.Duration(rapid.Int64Range(1, 60).Draw(rt, "d")) * ms)
					check()
				},
				"wait": func(rt *rapid.T) {
					k := rapid.SampledFrom(keys).Draw(rt, "key")
					if rel := holds[k]; rel != nil {
						delete(holds, k)
						rel()
					} else {
						holds[k] = r.hold(k)
					}
					synctest.Wait()
					check()
				},
				"renew": func(rt *rapid.T) {
					o := owners[1]
					now := clk.ns()
					from := int64(0) // renewed in time: nothing dropped
					if now >= o.deadline {
						from = now // renewed after a lapse: resume at now
					}
					if rapid.Bool().Draw(rt, "transfer") {
						from = now + 1 // a new fence: what was due until now was the old one's
						if err := o.o.Transfer(); err != nil {
							rt.Fatal(err)
						}
					} else if err := o.o.Renew(); err != nil {
						rt.Fatal(err)
					}
					l, _ := o.o.Authority().Lease()
					o.deadline, o.fence = l.Deadline, l.Fence
					for k, m := range live {
						if owner(k) == o && from > m.from {
							m.from = from
						}
					}
					synctest.Wait()
					check()
				},
			})
		})
	})
}

func isDone(c *keyed.Completion) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

type bubbleT struct{ *testing.T }

package sched_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/runtime/wheel"
	"github.com/metronome-rt/metronome/temporal"
)

// newOnHeap returns a scheduler on the heap, even while the suite runs
// with New on the wheel.
func newOnHeap(clock temporal.Clock) *sched.Scheduler {
	defer sched.SetNewOnWheel(false)()
	return sched.New(clock)
}

// skipOnWheelRun skips a test that builds both queues itself when the
// suite runs again with New on the wheel: once is enough.
func skipOnWheelRun(t *testing.T) {
	if sched.New(temporal.Fixed(epoch)).OnWheel() {
		t.Skip("it compares both queues already")
	}
}

// twin is one scheduler of a pair that runs the same workload: what it
// did, as its observer, its callbacks and each call's results saw it.
type twin struct {
	s       *sched.Scheduler
	log     []string
	handles []sched.Handle
	tasks   []sched.Handle
	timers  map[string]sched.Handle
	groups  []*sched.Group
	spawns  int
	fires   int
}

// maxTwinFires bounds the callbacks of one workload: past it each one
// fails, which stops the drain, so an interval of 1 ns advanced by a day
// ends the same way on both queues, and soon. -race runs a tenth.
var maxTwinFires = map[bool]int{false: 3000, true: 300}[raceOn]

var errTwinFires = errors.New("the workload's fire budget is spent")

// fired counts a callback, and fails it past the budget.
func (tw *twin) fired() error {
	if tw.fires++; tw.fires > maxTwinFires {
		return errTwinFires
	}
	return nil
}

func newTwin(s *sched.Scheduler) *twin {
	tw := &twin{s: s, timers: map[string]sched.Handle{}}
	s.SetObserver(func(f sched.Fire) { tw.logf("observe %+v", f) })
	return tw
}

func (tw *twin) logf(format string, args ...any) {
	tw.log = append(tw.log, fmt.Sprintf(format, args...))
}

// state logs what the scheduler reports between calls.
func (tw *twin) state() {
	at, ok := tw.s.NextDeadline()
	tw.logf("now %s count %d next %s %v", tw.s.Now(), tw.s.Count(), at, ok)
	for _, j := range tw.s.List() {
		tw.logf("  %+v", j)
	}
	for i, h := range tw.handles {
		due, ok := due(h)
		rem, _ := remaining(h)
		tw.logf("  handle %d active %v due %s %v remaining %s", i, h.Active(), due, ok, rem)
	}
}

// action is what a callback does besides logging, drawn when its job is
// scheduled so that both twins do the same.
type action struct {
	kind  int // 0 nothing, 1 schedule a one-shot, 2 cancel a handle, 3 reset a handle, 4 fail
	delay temporal.Duration
	index int
}

func (tw *twin) act(name string, a action) error {
	tw.logf("run %s at %s", name, tw.s.Now())
	if err := tw.fired(); err != nil {
		return err
	}
	switch a.kind {
	case 1:
		h, err := tw.s.ScheduleOnce(a.delay, tw.job("inner", action{}))
		tw.logf("  inner once: %v", err)
		if err == nil {
			tw.handles = append(tw.handles, h)
		}
	case 2:
		if len(tw.handles) > 0 {
			tw.logf("  cancel %d: %v", a.index, tw.handles[a.index%len(tw.handles)].Cancel())
		}
	case 3:
		if len(tw.handles) > 0 {
			tw.logf("  reset %d: %v", a.index, tw.handles[a.index%len(tw.handles)].Reset(a.delay))
		}
	case 4:
		return errors.New("the callback failed")
	}
	return nil
}

func (tw *twin) job(name string, a action) func() error {
	return func() error { return tw.act(name, a) }
}

// wheelOp is one step of the workload, applied to both twins alike.
type wheelOp func(tw *twin)

var (
	durScales = []int64{1, 1e3, 1e6, 1e9, 3600e9, 86400e9}
	wheelGeos = []wheel.Geometry{
		wheel.Default(),
		{Tick: temporal.Millisecond, Slots: []int{4, 4, 4}}, // a 64 ms horizon: most jobs overflow
		{Tick: 7, Slots: []int{3, 5}},                       // 105 ns
	}
)

func drawDur(t *rapid.T, label string, min int64) temporal.Duration {
	scale := rapid.SampledFrom(durScales).Draw(t, label+"-scale")
	return temporal.Duration(max(rapid.Int64Range(0, 100).Draw(t, label)*scale, min))
}

func drawAction(t *rapid.T) action {
	return action{
		kind:  rapid.IntRange(0, 4).Draw(t, "action"),
		delay: drawDur(t, "action-delay", 0),
		index: rapid.IntRange(0, 50).Draw(t, "action-index"),
	}
}

// The same random workload on the heap and on the wheel: every fire,
// cancel and drop the observer sees, every callback, every call's result
// and every List between calls are the same.
func TestWheelSchedulerSameAsHeap(t *testing.T) {
	skipOnWheelRun(t)
	rapid.Check(t, func(t *rapid.T) {
		clock := temporal.Fixed(epoch)
		g := rapid.SampledFrom(wheelGeos).Draw(t, "geometry")
		ws, err := sched.NewOnWheel(clock, g)
		if err != nil {
			t.Fatal(err)
		}
		pair := [2]*twin{newTwin(newOnHeap(clock)), newTwin(ws)}
		if rapid.Bool().Draw(t, "small-cap") {
			n := rapid.IntRange(1, 12).Draw(t, "max-pending")
			for _, tw := range pair {
				must(0, tw.s.SetLimits(0, n))
			}
		}
		ops := map[string]func(*rapid.T) wheelOp{
			"once": func(t *rapid.T) wheelOp {
				d, a := drawDur(t, "delay", 0), drawAction(t)
				return func(tw *twin) {
					h, err := tw.s.ScheduleOnce(d, tw.job("once", a), sched.WithName("o"))
					tw.logf("once %s: %v", d, err)
					if err == nil {
						tw.handles = append(tw.handles, h)
					}
				}
			},
			"plain once": func(t *rapid.T) wheelOp {
				d, a := drawDur(t, "delay", 0), drawAction(t)
				return func(tw *twin) {
					h, err := tw.s.ScheduleOnce(d, tw.job("plain", a))
					tw.logf("plain once %s: %v", d, err)
					if err == nil {
						tw.handles = append(tw.handles, h)
					}
				}
			},
			"every": func(t *rapid.T) wheelOp {
				iv, a := drawDur(t, "interval", 1), drawAction(t)
				var e sched.Every
				e.Interval = iv
				if rapid.Bool().Draw(t, "with-delay") {
					d := drawDur(t, "delay", 0)
					e.Delay = &d
				}
				e.Count = rapid.IntRange(0, 5).Draw(t, "count")
				return func(tw *twin) {
					h, err := tw.s.ScheduleEvery(e, tw.job("every", a), sched.Rearmable())
					tw.logf("every %+v: %v", e, err)
					if err == nil {
						tw.handles = append(tw.handles, h)
					}
				}
			},
			"recurrence": func(t *rapid.T) wheelOp {
				rule := rapid.SampledFrom([]string{"FREQ=SECONDLY;INTERVAL=7", "FREQ=MINUTELY;COUNT=4", "FREQ=HOURLY", "FREQ=DAILY;COUNT=3"}).Draw(t, "rule")
				limit := rapid.IntRange(0, 4).Draw(t, "limit")
				return func(tw *twin) {
					set, err := temporal.NewRecurrenceSet(temporal.RecurrenceSpec{
						DTStart: must(temporal.ParseLocalDateTime("2000-01-01T00:00:03")),
						RRules:  []string{rule},
					})
					if err != nil {
						panic(err)
					}
					h, err := tw.s.ScheduleRecurrence(sched.Recurrence{Set: set, Zone: "UTC", Limit: limit}, func(at temporal.Instant, index int) error {
						tw.logf("occurrence %d at %s, now %s", index, at, tw.s.Now())
						return tw.fired()
					})
					tw.logf("recurrence %s: %v", rule, err)
					if err == nil {
						tw.handles = append(tw.handles, h)
					}
				}
			},
			"group": func(t *rapid.T) wheelOp {
				d, a := drawDur(t, "delay", 0), drawAction(t)
				clear := rapid.Bool().Draw(t, "clear")
				return func(tw *twin) {
					if len(tw.groups) == 0 || !clear {
						tw.groups = append(tw.groups, &sched.Group{Name: fmt.Sprint("g", len(tw.groups))})
					}
					g := tw.groups[len(tw.groups)-1]
					if clear {
						tw.logf("group clear: %v", tw.s.Clear(g))
						return
					}
					h, err := tw.s.ScheduleEvery(sched.Every{Interval: d + 1}, tw.job("grouped", a), sched.InGroup(g))
					tw.logf("group every: %v", err)
					if err == nil {
						tw.handles = append(tw.handles, h)
					}
				}
			},
			"cancel": func(t *rapid.T) wheelOp {
				i, drop := rapid.IntRange(0, 50).Draw(t, "index"), rapid.Bool().Draw(t, "drop")
				return func(tw *twin) {
					if len(tw.handles) == 0 {
						return
					}
					h := tw.handles[i%len(tw.handles)]
					if drop {
						tw.logf("drop %d: %v", i, h.Drop())
					} else {
						tw.logf("cancel %d: %v", i, h.Cancel())
					}
				}
			},
			"reset": func(t *rapid.T) wheelOp {
				i, d := rapid.IntRange(0, 50).Draw(t, "index"), drawDur(t, "delay", 0)
				return func(tw *twin) {
					if len(tw.handles) > 0 {
						tw.logf("reset %d %s: %v", i, d, tw.handles[i%len(tw.handles)].Reset(d))
					}
				}
			},
			"spawn": func(t *rapid.T) wheelOp {
				d, steps := drawDur(t, "wait", 0), rapid.IntRange(1, 4).Draw(t, "steps")
				return func(tw *twin) {
					n := 0
					tw.spawns++
					id := tw.spawns
					var step func(*sched.Step) error
					step = func(k *sched.Step) error {
						n++
						tw.logf("task %d step %d at %s", id, n, tw.s.Now())
						if err := tw.fired(); err != nil {
							return err
						}
						if n < steps {
							return k.Wait(d, step)
						}
						return nil
					}
					k, err := tw.s.Spawn(step)
					tw.logf("spawn: %v", err)
					if err == nil {
						tw.tasks = append(tw.tasks, k)
					}
				}
			},
			"cancel task": func(t *rapid.T) wheelOp {
				i := rapid.IntRange(0, 50).Draw(t, "index")
				return func(tw *twin) {
					if len(tw.tasks) > 0 {
						tw.logf("cancel task %d: %v", i, tw.tasks[i%len(tw.tasks)].Cancel())
					}
				}
			},
			"register": func(t *rapid.T) wheelOp {
				key := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "key")
				iv, wait := drawDur(t, "interval", 1), drawDur(t, "handler-wait", 0)
				waits := rapid.Bool().Draw(t, "waits")
				return func(tw *twin) {
					tm, err := tw.s.RegisterTimer(key, sched.TimerOptions{Interval: iv}, func(k *sched.Step) error {
						tw.logf("tick %+v at %s", k.Tick, tw.s.Now())
						if err := tw.fired(); err != nil {
							return err
						}
						if waits {
							return k.Wait(wait, func(k *sched.Step) error {
								tw.logf("tick %s resumed at %s", k.Key, tw.s.Now())
								return tw.fired()
							})
						}
						return nil
					}, sched.WithName(key))
					tw.logf("register %s %s: %v", key, iv, err)
					if err == nil {
						tw.timers[key] = tm
					}
				}
			},
			"cancel timer": func(t *rapid.T) wheelOp {
				key := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "key")
				return func(tw *twin) {
					if tm, ok := tw.timers[key]; ok {
						tw.logf("cancel timer %s: %v active %v", key, tm.Cancel(), tm.Active())
					}
				}
			},
			"advance": func(t *rapid.T) wheelOp {
				d := drawDur(t, "d", 0)
				return func(tw *twin) { tw.logf("advance %s: %v", d, tw.s.Advance(d)) }
			},
			"jump": func(t *rapid.T) wheelOp {
				d := drawDur(t, "d", 0)
				return func(tw *twin) { tw.logf("jump %s: %v", d, tw.s.Jump(d)) }
			},
			"next": func(*rapid.T) wheelOp {
				return func(tw *twin) {
					ok, err := next(tw.s)
					tw.logf("next: %v %v", ok, err)
				}
			},
			"run all": func(t *rapid.T) wheelOp {
				n := rapid.IntRange(1, 40).Draw(t, "max-fires")
				return func(tw *twin) { tw.logf("run all %d: %v", n, tw.s.RunAll(n)) }
			},
			"run to last": func(*rapid.T) wheelOp {
				return func(tw *twin) { tw.logf("run to last: %v", tw.s.RunToLast(sched.DefaultLoopLimit)) }
			},
			"clear": func(*rapid.T) wheelOp {
				return func(tw *twin) { tw.logf("clear: %v", tw.s.Clear()) }
			},
		}
		steps := 0
		t.Repeat(map[string]func(*rapid.T){
			"": func(t *rapid.T) {
				for _, tw := range pair {
					tw.state()
				}
				compareTwins(t, pair, steps)
				steps++
			},
			"op": func(t *rapid.T) {
				names := make([]string, 0, len(ops))
				for name := range ops {
					names = append(names, name)
				}
				slices.Sort(names)
				op := ops[rapid.SampledFrom(names).Draw(t, "op")](t)
				for _, tw := range pair {
					op(tw)
				}
			},
		})
		if rapid.Bool().Draw(t, "drop") {
			for _, tw := range pair {
				tw.s.Drop()
				tw.state()
			}
			compareTwins(t, pair, steps)
		}
	})
}

// compareTwins fails at the first line where the twins' logs differ.
func compareTwins(t interface{ Fatalf(string, ...any) }, pair [2]*twin, step int) {
	h, w := pair[0].log, pair[1].log
	if slices.Equal(h, w) {
		return
	}
	i := 0
	for i < min(len(h), len(w)) && h[i] == w[i] {
		i++
	}
	from := max(i-5, 0)
	t.Fatalf("after step %d the wheel differs from the heap at line %d:\nheap:  %s\nwheel: %s",
		step, i, strings.Join(h[from:min(i+3, len(h))], "\n       "), strings.Join(w[from:min(i+3, len(w))], "\n       "))
}

func TestNewOnWheelBadGeometry(t *testing.T) {
	clock := temporal.Fixed(epoch)
	for _, c := range []struct {
		g    wheel.Geometry
		want string
	}{
		{wheel.Geometry{Tick: 0, Slots: []int{4}}, "NewOnWheel: g.Tick: want a duration > 0, got PT0S"},
		{wheel.Geometry{Tick: -1, Slots: []int{4}}, "NewOnWheel: g.Tick: want a duration > 0"},
		{wheel.Geometry{Tick: 1}, "NewOnWheel: g.Slots: want 1 to 8 levels, got []"},
		{wheel.Geometry{Tick: 1, Slots: []int{2, 2, 2, 2, 2, 2, 2, 2, 2}}, "NewOnWheel: g.Slots: want 1 to 8 levels"},
		{wheel.Geometry{Tick: 1, Slots: []int{4, 1}}, "NewOnWheel: g.Slots: want 2 to 2^20 slots on each level, got [4 1]"},
		{wheel.Geometry{Tick: 1, Slots: []int{1<<20 + 1}}, "NewOnWheel: g.Slots: want 2 to 2^20 slots on each level"},
		{wheel.Geometry{Tick: temporal.Hour, Slots: []int{1 << 20, 1 << 20}}, "NewOnWheel: g.Slots: want a horizon (Tick times every level's slots) within 292 years"},
	} {
		s, err := sched.NewOnWheel(clock, c.g)
		var oe *temporal.OptionError
		if s != nil || !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("NewOnWheel(%+v) = %v, %v; want an *OptionError %q", c.g, s, err, c.want)
		}
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "nil clock") {
				t.Errorf("NewOnWheel(nil) recovered %v, want a nil-clock panic", r)
			}
		}()
		sched.NewOnWheel(nil, wheel.Default())
	}()
}

func TestNewOnWheelRunsOnTheWheel(t *testing.T) {
	s, err := sched.NewOnWheel(temporal.Fixed(epoch), wheel.Default())
	if err != nil || !s.OnWheel() {
		t.Fatalf("NewOnWheel = %v, %v; want a scheduler on the wheel", s, err)
	}
	if newOnHeap(temporal.Fixed(epoch)).OnWheel() {
		t.Fatal("New put the scheduler on the wheel")
	}
	g := wheel.Default()
	if g.Tick != temporal.Millisecond || !slices.Equal(g.Slots, []int{50, 10, 36, 4800}) {
		t.Fatalf("DefaultWheelGeometry = %+v", g)
	}
}

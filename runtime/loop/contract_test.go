package loop_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/metronome-rt/metronome/temporal"

	"github.com/metronome-rt/metronome/runtime/loop"
	"github.com/metronome-rt/metronome/runtime/loop/looptest"
)

const ms = temporal.Millisecond

// host is a SimpleHost that logs parks and, optionally, task ends.
type host struct {
	*loop.SimpleHost
	log   *looptest.Recorder
	parks int
}

func (h *host) Park(d temporal.Duration) bool {
	h.parks++
	return h.SimpleHost.Park(d)
}

func newHost(c *loop.Clock) *host {
	return &host{SimpleHost: loop.NewSimpleHost(c), log: &looptest.Recorder{}}
}

func (h *host) s() *loop.Scheduler { return h.Scheduler() }

func (h *host) add(name string) func() { return func() { h.log.Add("%s", name) } }

func (h *host) run(t *testing.T, until temporal.Duration) {
	t.Helper()
	if err := loop.Run(h, until); err != nil {
		t.Fatal(err)
	}
}

func (h *host) register(t *testing.T, srcs ...loop.Source) {
	t.Helper()
	for _, src := range srcs {
		if err := h.s().RegisterSource(src); err != nil {
			t.Fatal(err)
		}
	}
}

func (h *host) setTimer(t *testing.T, name string, d temporal.Duration) int {
	t.Helper()
	id, err := h.s().SetTimer(func(int) { h.add(name)() }, d, false)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func wantLog(t *testing.T, r *looptest.Recorder, want string) {
	t.Helper()
	if got := r.String(); got != want {
		t.Fatalf("log\n got: %s\nwant: %s", got, want)
	}
}

// turnMarker logs "|" at every turn.
type turnMarker struct{ log *looptest.Recorder }

func (m turnMarker) Info() loop.SourceInfo {
	return loop.SourceInfo{Name: "marker", Class: loop.Rendering}
}
func (turnMarker) Ready() bool        { return false }
func (turnMarker) Run() (bool, error) { return false, nil }
func (m turnMarker) BeginTurn()       { m.log.Add("|") }

func TestContractFifo(t *testing.T) {
	h := newHost(nil)
	h.register(t, turnMarker{h.log})
	s := h.s()
	s.QueueTask(func() { h.log.Add("A"); s.QueueTask(h.add("C")) })
	s.QueueTask(h.add("B"))
	h.run(t, 0)
	// C, queued by the first batch, runs in the next one.
	wantLog(t, h.log, "| A B | C |")
}

// A timer's callback is given its own id, the one SetTimer returned: a
// timeout's once, an interval's at every repeat.
func TestContractCallbackGetsItsID(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	var want []int
	for _, d := range []temporal.Duration{20 * ms, 10 * ms} {
		id, err := s.SetTimer(func(id int) { h.log.Add("timeout %d@%v", id, s.Now()) }, d, false)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	iv, err := s.SetTimer(func(id int) {
		h.log.Add("interval %d@%v", id, s.Now())
		if s.Now() >= 30*ms {
			s.ClearTimer(id)
		}
	}, 15*ms, true)
	if err != nil {
		t.Fatal(err)
	}
	h.run(t, loop.Never)
	wantLog(t, h.log, fmt.Sprintf("timeout %d@10ms interval %d@15ms timeout %d@20ms interval %d@30ms", want[1], iv, want[0], iv))
}

func TestContractFairness(t *testing.T) {
	h := newHost(nil)
	clock := h.s().Clock()
	n := looptest.NewScripted("net", loop.Turn, clock)
	e := looptest.NewScripted("emb", loop.Turn, clock)
	b := looptest.NewScripted("msg", loop.Batch, clock)
	a := looptest.NewScripted("aaa", loop.Turn, clock)
	h.register(t, b, a, e, n)
	for _, src := range []*looptest.ScriptedSource{n, e, b, a} {
		for i := 1; i <= 2; i++ {
			src.Add(h.add(fmt.Sprintf("%s%d", src.Info().Name, i)))
		}
	}
	h.s().QueueTask(h.add("T"))
	h.run(t, 0)
	// After the batch each turn or batch source runs one task in name
	// order; then turn sources, in name order, are each turn's work.
	wantLog(t, h.log, "T aaa1 emb1 msg1 net1 aaa2 emb2 net2 msg2")
}

func TestContractTurnsDrainBeforeTimers(t *testing.T) {
	h := newHost(nil)
	src := looptest.NewScripted("net", loop.Turn, h.s().Clock())
	h.register(t, src)
	h.setTimer(t, "timer", 0)
	for i := 1; i <= 3; i++ {
		src.Add(h.add(fmt.Sprint("t", i)))
	}
	h.run(t, 0)
	wantLog(t, h.log, "t1 t2 t3 timer")
}

// slowTask logs and takes 1 ms of virtual time.
func slowTask(h *host, name string) func() {
	return func() { h.log.Add("%s", name); h.s().Clock().Advance(ms) }
}

func TestContractTurnsAreBounded(t *testing.T) {
	h := newHost(nil)
	clock := h.s().Clock()
	src := looptest.NewScripted("net", loop.Turn, clock)
	var refill func()
	refill = func() { slowTask(h, "t")(); src.Add(refill) }
	src.Add(refill)
	r := looptest.NewScripted("render", loop.Rendering, clock)
	h.register(t, src, r)
	r.Add(h.add("R"))
	h.run(t, 5*ms)
	// until passed at 5 ms, and the run returns once it ran for a frame's
	// time (16 tasks of 1 ms), after the rendering sources.
	if got := strings.Count(h.log.String(), "t"); got != 16 {
		t.Fatalf("ran %d tasks, want 16: %s", got, h.log)
	}
	if !strings.HasSuffix(h.log.String(), "t R") || clock.Now() != 16*ms {
		t.Fatalf("log %s at %v, want rendering last at 16ms", h.log, clock.Now())
	}
}

func TestContractBatchesAreBounded(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	var chain func()
	chain = func() { slowTask(h, "c")(); s.QueueTask(chain) }
	s.QueueTask(chain)
	h.run(t, 0)
	if got := len(h.log.Take()); got != 16 || s.TasksPending() != 1 {
		t.Fatalf("ran %d tasks with %d pending, want 16 with 1", got, s.TasksPending())
	}
}

func TestContractTimers(t *testing.T) {
	t.Run("order and clears", func(t *testing.T) {
		h := newHost(nil)
		s := h.s()
		var c int
		h.setTimer(t, "b5", 5*ms)
		id, _ := s.SetTimer(func(int) { h.log.Add("a10"); s.ClearTimer(c) }, 10*ms, false)
		c = h.setTimer(t, "c10", 10*ms)
		h.setTimer(t, "d10", 10*ms)
		h.setTimer(t, "e7", 7*ms)
		s.ClearTimer(id + 100) // unknown: a no-op
		s.ClearHostTimer(c)    // the host's id space: a no-op
		h.run(t, loop.Never)
		// (due, sequence) order; c, cleared by an earlier task of the
		// same turn, never fires.
		wantLog(t, h.log, "b5 e7 a10 d10")
	})
	t.Run("after each batch source's turn", func(t *testing.T) {
		h := newHost(nil)
		b := looptest.NewScripted("msg", loop.Batch, h.s().Clock())
		h.register(t, b)
		b.Add(h.add("m1"))
		b.Add(h.add("m2"))
		h.setTimer(t, "t1", 0)
		h.setTimer(t, "t2", 0)
		h.run(t, 0)
		wantLog(t, h.log, "m1 t1 m2 t2")
	})
	t.Run("interval cleared by itself", func(t *testing.T) {
		h := newHost(nil)
		s := h.s()
		var id, n int
		id, _ = s.SetTimer(func(int) {
			n++
			h.log.Add("i%d@%v", n, s.Now())
			if n == 3 {
				s.ClearTimer(id)
			}
		}, 10*ms, true)
		h.run(t, temporal.Second)
		wantLog(t, h.log, "i1@10ms i2@20ms i3@30ms")
	})
}

func TestContractNesting(t *testing.T) {
	chain := func(set func(f func(int), d temporal.Duration, repeat bool) (int, error), s *loop.Scheduler, log *looptest.Recorder) {
		n := 0
		var next func(int)
		next = func(int) {
			n++
			log.Add("%d@%v", n, s.Now())
			if n < 8 {
				set(next, 0, false)
			}
		}
		set(next, 0, false)
	}
	h := newHost(nil)
	s := h.s()
	chain(s.SetTimer, s, h.log)
	h.run(t, loop.Never)
	// Levels 1 to 6 run at once; set more than five levels deep, the 7th
	// and 8th wait 4 ms (HTML timer initialization steps 5-7).
	wantLog(t, h.log, "1@0s 2@0s 3@0s 4@0s 5@0s 6@0s 7@4ms 8@8ms")

	h = newHost(nil)
	s = h.s()
	chain(s.SetHostTimer, s, h.log)
	h.run(t, loop.Never)
	wantLog(t, h.log, "1@0s 2@0s 3@0s 4@0s 5@0s 6@0s 7@0s 8@0s")

	// An interval's repeats count as nesting.
	h = newHost(nil)
	s = h.s()
	var id, n int
	id, _ = s.SetTimer(func(int) {
		n++
		h.log.Add("%v", s.Now())
		if n == 8 {
			s.ClearTimer(id)
		}
	}, 0, true)
	h.run(t, loop.Never)
	wantLog(t, h.log, "0s 0s 0s 0s 0s 0s 4ms 8ms")

	// Inside the checkpoint's bracket timers are at level 0.
	h = newHost(nil)
	s = h.s()
	n = 0
	var deep func(int)
	deep = func(int) {
		n++
		if n < 7 {
			s.SetTimer(deep, 0, false)
			return
		}
		s.BeginCheckpoint()
		s.SetTimer(func(int) { h.log.Add("micro@%v level %d", s.Now(), s.NestingLevel()) }, 0, false)
		s.EndCheckpoint()
	}
	s.SetTimer(deep, 0, false)
	h.run(t, loop.Never)
	// The 7th timer waits 4 ms; the one its checkpoint sets does not.
	wantLog(t, h.log, "micro@4ms level 1")
}

func TestContractFrameAndTimerTies(t *testing.T) {
	for _, tc := range []struct {
		timer temporal.Duration
		want  string
	}{
		{15 * ms, "timer@15ms frame@16ms"},
		{16 * ms, "timer@16ms frame@16ms"}, // a tie: the timer first
		{17 * ms, "frame@16ms timer@17ms"},
	} {
		h := newHost(nil)
		s := h.s()
		s.RequestFrame(func(at temporal.Duration) { h.log.Add("frame@%v", at) })
		s.SetTimer(func(int) { h.log.Add("timer@%v", s.Now()) }, tc.timer, false)
		h.run(t, loop.Never)
		wantLog(t, h.log, tc.want)
	}
}

func TestContractFramesRequestedInAFrame(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	s.Clock().Advance(5 * ms)
	var cancelled int
	s.RequestFrame(func(at temporal.Duration) {
		h.log.Add("f1@%v", at)
		s.RequestFrame(func(at temporal.Duration) { h.log.Add("f2@%v", at) })
		s.CancelFrame(cancelled) // later in this frame: it never runs
	})
	cancelled = s.RequestFrame(func(temporal.Duration) { h.log.Add("cancelled") })
	h.run(t, loop.Never)
	wantLog(t, h.log, "f1@16ms f2@32ms")
}

func TestContractCheckpoint(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	s.SetTaskHook(func() { h.log.Add("hook") })
	h.OnTaskEnded(func() { h.log.Add("ended") })
	src := looptest.NewScripted("net", loop.Turn, s.Clock())
	h.register(t, src)
	src.Add(h.add("source"))
	s.QueueTask(h.add("task"))
	s.SetTimer(func(int) { h.add("timer")() }, ms, false)
	s.SetHostTimer(func(int) { h.add("host-timer")() }, 2*ms, false)
	s.RequestFrame(func(temporal.Duration) { h.log.Add("frame") })
	h.run(t, loop.Never)
	wantLog(t, h.log, "task hook ended source hook ended timer hook ended host-timer hook ended frame hook ended")
}

func TestContractSettle(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	s.SetTaskHook(func() { h.log.Add("hook") })
	a := looptest.NewScripted("fetch", loop.Settle, s.Clock())
	b := looptest.NewScripted("crypto", loop.Settle, s.Clock())
	h.register(t, a, b)
	a.Add(h.add("a"))
	b.Add(h.add("b"))
	h.run(t, 0)
	// One empty task for both, then each is settled (rank: by name).
	wantLog(t, h.log, "hook b a")
	if a.Settles != 1 || b.Settles != 1 {
		t.Fatalf("settled %d and %d times, want 1", a.Settles, b.Settles)
	}
}

func TestContractRenderingAfterABatch(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	r := looptest.NewScripted("render", loop.Rendering, s.Clock())
	h.register(t, r)
	r.Add(h.add("R"))
	s.QueueTask(h.add("T1"))
	s.QueueTask(h.add("T2"))
	h.run(t, 0)
	wantLog(t, h.log, "T1 T2 R")
}

func TestContractVirtualTime(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	h.setTimer(t, "t10", 10*ms)
	h.setTimer(t, "t30", 30*ms)
	h.run(t, 20*ms)
	// Only to the next due item, never to until, and no wait.
	if s.Now() != 10*ms || h.log.String() != "t10" {
		t.Fatalf("at %v ran %s, want t10 at 10ms", s.Now(), h.log)
	}
	h.run(t, loop.Never)
	if s.Now() != 30*ms || h.log.String() != "t10 t30" || h.parks != 0 {
		t.Fatalf("at %v ran %s with %d parks, want t30 at 30ms, no park", s.Now(), h.log, h.parks)
	}
	h.run(t, loop.Never) // nothing scheduled: returns at once
	if s.Now() != 30*ms {
		t.Fatalf("an idle run moved the clock to %v", s.Now())
	}
}

func TestContractLiveWait(t *testing.T) {
	t.Run("virtual", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHost(nil)
			th := looptest.NewThread("socket")
			h.register(t, th)
			th.Start(50*ms, h.add("delivered"), h.Wake)
			h.run(t, loop.Never)
			th.Wait()
			if h.log.String() != "delivered" || h.parks == 0 {
				t.Fatalf("log %q after %d parks", h.log, h.parks)
			}
		})
	})
	t.Run("real", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHost(loop.NewRealClock())
			s := h.s()
			th := looptest.NewThread("socket")
			h.register(t, th)
			s.SetTimer(func(int) { h.log.Add("timer@%v", s.Now()) }, 100*ms, false)
			th.Start(50*ms, func() { h.log.Add("delivered@%v", s.Now()) }, h.Wake)
			h.run(t, temporal.Second)
			th.Wait()
			wantLog(t, h.log, "delivered@50ms timer@100ms")
		})
	})
}

func TestContractLiveEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []*loop.Clock{loop.NewVirtualClock(0), loop.NewRealClock()} {
			h := newHost(c)
			th := looptest.NewThread("socket")
			h.register(t, th)
			th.Start(50*ms, nil, h.Wake) // gives up
			h.run(t, loop.Never)         // returns once it is not live
			th.Wait()
			if h.log.String() != "" || h.parks != 1 {
				t.Fatalf("log %q after %d parks", h.log, h.parks)
			}
		}
	})
}

func TestContractDeadlines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []*loop.Clock{loop.NewVirtualClock(0), loop.NewRealClock()} {
			h := newHost(c)
			s := h.s()
			src := looptest.NewScripted("poll", loop.Turn, c)
			h.register(t, src)
			src.SetDeadline(25*ms, func() { h.log.Add("polled@%v", s.Now()) })
			if got := loop.NextTimer(h); got != 25*ms {
				t.Fatalf("NextTimer = %v, want 25ms", got)
			}
			h.run(t, 100*ms)
			wantLog(t, h.log, "polled@25ms")
		}
	})
}

func TestContractBudgets(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	src := looptest.NewScripted("module", loop.Turn, s.Clock())
	src.Budget = 1
	h.register(t, src)
	src.Add(func() {
		h.log.Add("a1")
		for i := 3; i <= 5; i++ {
			src.Add(h.add(fmt.Sprint("a", i)))
		}
	})
	src.Add(h.add("a2"))
	h.setTimer(t, "timer", 10*ms)
	h.run(t, 100*ms)
	// What it had when the run began (2), one allotment (1) before the
	// clock moves, then nothing more this run.
	wantLog(t, h.log, "a1 a2 a3 timer")
	h.run(t, 100*ms)
	wantLog(t, h.log, "a1 a2 a3 timer a4 a5")
}

func TestContractHeld(t *testing.T) {
	h := newHost(nil)
	s := h.s()
	msgs := looptest.NewScripted("messages", loop.Batch, s.Clock())
	msgs.Hold = true
	r := looptest.NewScripted("render", loop.Rendering, s.Clock())
	st := looptest.NewScripted("settle", loop.Settle, s.Clock())
	h.register(t, msgs, r, st)
	msgs.Add(h.add("m"))
	s.SetTimer(func(int) {
		h.log.Add("t0")
		r.Add(h.add("R"))
		st.Add(h.add("S"))
	}, 0, false)
	h.setTimer(t, "t10", 10*ms)
	h.run(t, 100*ms)
	// The due timer keeps the run going; then, held and no timer due, it
	// returns before settle and rendering.
	wantLog(t, h.log, "t0")
	msgs.Hold = false
	h.run(t, 100*ms)
	// m is a batch: rendering waits for a frame's time since it last ran;
	// the next turn settles, and the one after t10 renders.
	wantLog(t, h.log, "t0 m S t10 R")
}

func TestContractSourceSuite(t *testing.T) {
	c := loop.NewVirtualClock(0)
	for _, cls := range []loop.Class{loop.Turn, loop.Batch, loop.Rendering} {
		src := looptest.NewScripted("s", cls, c)
		looptest.SourceSuite(t, src, func() { src.Add(func() {}) })
	}
	b := looptest.NewScripted("budgeted", loop.Turn, c)
	b.Budget = 1
	looptest.SourceSuite(t, b, func() { b.Add(func() {}); b.BeginRun(0) })
	d := looptest.NewScripted("deadline", loop.Turn, c)
	looptest.SourceSuite(t, d, func() { d.SetDeadline(c.Now(), func() {}) })
	synctest.Test(t, func(t *testing.T) {
		th := looptest.NewThread("thread")
		looptest.SourceSuite(t, th, func() {
			woke := make(chan struct{})
			th.Start(ms, func() {}, func() { close(woke) })
			<-woke
		})
		th.Wait()
	})
}

func TestContractNoAlloc(t *testing.T) {
	h, srcs := sixSources()
	for _, src := range srcs {
		src.Add(func() {})
	}
	h.Scheduler().SetTimer(func(int) {}, 10*ms, false)
	for name, f := range map[string]func(){
		"Ready":      func() { loop.Ready(h) },
		"NeedsFrame": func() { loop.NeedsFrame(h) },
		"NextTimer":  func() { loop.NextTimer(h) },
	} {
		f()
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocs, want 0", name, n)
		}
	}
}

// sixSources returns a host with the six kinds of source the agreement
// test uses: turn, budgeted, batch with held messages, settle, rendering,
// deadlines.
func sixSources() (*loop.SimpleHost, []*looptest.ScriptedSource) {
	h := loop.NewSimpleHost(nil)
	c := h.Scheduler().Clock()
	turn := looptest.NewScripted("turn", loop.Turn, c)
	budgeted := looptest.NewScripted("budgeted", loop.Turn, c)
	budgeted.Budget = 2
	batch := looptest.NewScripted("batch", loop.Batch, c)
	settle := looptest.NewScripted("settle", loop.Settle, c)
	render := looptest.NewScripted("render", loop.Rendering, c).WithFrames()
	deadline := looptest.NewScripted("deadline", loop.Turn, c)
	srcs := []*looptest.ScriptedSource{turn, budgeted, batch, settle, render, deadline}
	for _, src := range srcs {
		if err := h.Scheduler().RegisterSource(src); err != nil {
			panic(err)
		}
	}
	return h, srcs
}

func TestRegisterSourceTwice(t *testing.T) {
	h, srcs := sixSources()
	if err := h.Scheduler().RegisterSource(srcs[0]); err != loop.ErrRegistered {
		t.Fatalf("err = %v", err)
	}
	if err := h.Scheduler().RegisterSource(looptest.NewScripted("turn", loop.Batch, nil)); err != loop.ErrRegistered {
		t.Fatalf("same name: err = %v", err)
	}
}

func TestBadTimers(t *testing.T) {
	s := loop.NewScheduler(nil)
	if _, err := s.SetTimer(nil, 0, false); err == nil {
		t.Fatal("nil f accepted")
	}
	if _, err := s.SetTimer(func(int) {}, loop.MaxDelay+1, false); err == nil || !strings.Contains(err.Error(), "SetTimer: delay") {
		t.Fatalf("err = %v", err)
	}
	if s.TimersPending() != 0 {
		t.Fatal("a refused timer is pending")
	}
	id, _ := s.SetTimer(func(int) {}, -5*ms, false) // negative is 0
	if at, _ := s.PeekTimer(); at != 0 || id != 1 {
		t.Fatalf("due %v id %d", at, id)
	}
}

func TestRunReentrant(t *testing.T) {
	h := newHost(nil)
	var err error
	h.s().QueueTask(func() { err = loop.Run(h, 0) })
	h.run(t, 0)
	if err != loop.ErrReentrant {
		t.Fatalf("err = %v", err)
	}
}

package sandbox

import (
	"time"

	lua "github.com/yuin/gopher-lua"
)

// A DrainSpan runs several Go calls that move a scheduler or host under one
// drain budget (Options.DrainBudget), as if they were one Drain: from the
// first Run after Restart, the wall time they take, what the caller does
// between them included, and the callbacks they run add up until Restart. A
// loop that moves a host in steps in virtual time (hostservices.Runner)
// runs its steps in a span and restarts it once the host's time has moved
// on enough, so that a run of short steps that gets nowhere (a job that
// re-arms itself 1 ns later) stops with the drain budget's error as one
// long update would. A loop that waits between calls (sleeps until a
// deadline) restarts the span after each wait, or the wait counts.
//
// A DrainSpan belongs to the goroutine of its state.
type DrainSpan struct {
	l     *lua.LState
	name  string        // the call the error names ("step")
	spent time.Duration // wall time since the first Run after Restart, up to the last Run's end
	fires int64         // callbacks run inside Run since Restart
	last  time.Time     // the last Run's end; zero: none since Restart
}

// NewDrainSpan returns a span of L's calls whose drain budget error names
// name.
func NewDrainSpan(L *lua.LState, name string) *DrainSpan {
	return &DrainSpan{l: L, name: name}
}

// Run runs f as Drain(L, name, f) would, with what is left of the span's
// budget. Its error counts the span's callbacks, not only f's.
func (s *DrainSpan) Run(f func() error) error {
	return protectorOf(s.l).run(s.l, func() error { return s.drain(f) })
}

// Restart gives the span a fresh budget.
func (s *DrainSpan) Restart() { s.spent, s.fires, s.last = 0, 0, time.Time{} }

func (s *DrainSpan) drain(f func() error) error {
	g := governorOf(s.l)
	if g == nil {
		return f()
	}
	t0 := time.Now()
	if !s.last.IsZero() {
		s.spent += t0.Sub(s.last)
	}
	if err := g.enter(kindDrain, nil, s.name, g.drain, g.drainTicks); err != nil {
		return err
	}
	g.carry(s.spent, s.fires)
	fires0 := g.fires
	err := f()
	s.last = time.Now()
	s.spent += s.last.Sub(t0)
	s.fires += g.fires - fires0
	return g.leave(err)
}

// carry charges the innermost frame, a drain just entered, with spent of
// wall time and fires callbacks that its span ran before it. The timer
// counts ticks only while a frame is open, and a span's calls can each be
// shorter than its period: a span whose budget is spent trips here.
func (g *governor) carry(spent time.Duration, fires int64) {
	f := &g.frames[g.depth-1]
	f.fires -= fires
	if f.limit <= 0 || spent <= 0 {
		return
	}
	if spent >= f.limit {
		f.deadline = g.epoch.Load()
		f.eff = f.deadline
		g.publish(f.eff)
		g.fire(tripTime, f.deadline)
		return
	}
	f.deadline -= int64(spent / g.period)
	f.eff = min(f.eff, f.deadline)
	g.publish(f.eff)
}

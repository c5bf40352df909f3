package sched_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/metronome-rt/metronome/internal/schedmodel"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

type goSystem struct {
	s       *sched.Scheduler
	handles map[uint64]sched.Handle
	log     []string
}

func newGoSystem() *goSystem {
	return &goSystem{s: sched.New(temporal.Fixed(epoch)), handles: map[uint64]sched.Handle{}}
}

func (g *goSystem) Schedule(delay, interval, spawn int64) uint64 {
	var id uint64
	fn := func() error {
		g.log = append(g.log, fmt.Sprintf("%d@%d", id, int64(g.s.Elapsed())))
		if spawn > 0 {
			g.Schedule(spawn, 0, 0)
		}
		return nil
	}
	var h sched.Handle
	var err error
	if interval > 0 {
		h, err = g.s.ScheduleEvery(sched.Every{Interval: temporal.Duration(interval)}, fn)
	} else {
		h, err = g.s.ScheduleOnce(temporal.Duration(delay), fn)
	}
	if err != nil {
		panic(err)
	}
	id = h.ID()
	g.handles[id] = h
	return id
}

func (g *goSystem) Cancel(id uint64) { g.handles[id].Cancel() }
func (g *goSystem) Clear()           { must(0, g.s.Clear()) }
func (g *goSystem) Advance(d int64)  { must(0, g.s.Advance(temporal.Duration(d))) }
func (g *goSystem) Update(ms float64) {
	d, ok := temporal.Millis(ms)
	if !ok {
		panic(fmt.Sprintf("Millis(%v) refused", ms))
	}
	must(0, g.s.Advance(d))
}
func (g *goSystem) Trace() []string { return g.log }
func (g *goSystem) Pending() []uint64 {
	var ids []uint64
	for _, j := range g.s.List() {
		ids = append(ids, j.ID)
	}
	return ids
}

func TestSchedulerMatchesReferenceModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { schedmodel.Check(t, newGoSystem()) })
}

// TestSchedulerMatchesReferenceModelSorted runs the same property with every
// drain sorting what is due (timerq's SortDue) after its first fire or
// halfway, the path long advances over large queues take: cancels, spawns,
// intervals and clears from callbacks must see the same trace.
func TestSchedulerMatchesReferenceModelSorted(t *testing.T) {
	for _, shift := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("after-1/%d", 1<<shift), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := newGoSystem()
				g.s.SetSortPolicy(1, shift)
				schedmodel.Check(t, g)
			})
		})
	}
}

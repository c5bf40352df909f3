package sched

import (
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// Group is a named share of a scheduler's timeline: its jobs keep the
// scheduler's time and (deadline, creation) order, but the group's Clear,
// List and Count see only its own jobs. A host gives its own jobs and a
// compatibility layer's timers one group each, so both advance together
// while clearing one leaves the other alone.
type Group struct {
	s    *Scheduler
	name string
}

// NewGroup returns an empty group on s. name appears in traces.
func (s *Scheduler) NewGroup(name string) *Group { return &Group{s: s, name: name} }

// Scheduler returns the scheduler the group belongs to.
func (g *Group) Scheduler() *Scheduler { return g.s }

// Name returns the group's name.
func (g *Group) Name() string { return g.name }

// ScheduleOnce is Scheduler.ScheduleOnce for a job of g.
func (g *Group) ScheduleOnce(delay temporal.Duration, fn Func, opts ...JobOption) (Handle, error) {
	return g.s.ScheduleOnce(delay, fn, g.with(opts)...)
}

// ScheduleEvery is Scheduler.ScheduleEvery for a job of g.
func (g *Group) ScheduleEvery(interval temporal.Duration, fn Func, opts ...JobOption) (Handle, error) {
	return g.s.ScheduleEvery(interval, fn, g.with(opts)...)
}

// ScheduleOnceAt is Scheduler.ScheduleOnceAt for a job of g.
func (g *Group) ScheduleOnceAt(at temporal.Instant, fn Func, opts ...JobOption) (Handle, error) {
	return g.s.ScheduleOnceAt(at, fn, g.with(opts)...)
}

// ScheduleEveryWith is Scheduler.ScheduleEveryWith for a job of g.
func (g *Group) ScheduleEveryWith(e Every, fn Func, opts ...JobOption) (Handle, error) {
	return g.s.ScheduleEveryWith(e, fn, g.with(opts)...)
}

// Spawn is Scheduler.Spawn for a task of g.
func (g *Group) Spawn(fn TaskFunc, opts ...JobOption) (*Task, error) {
	return g.s.Spawn(fn, g.with(opts)...)
}

// ScheduleRecurrence is Scheduler.ScheduleRecurrence for a job of g.
func (g *Group) ScheduleRecurrence(r Recurrence, fn RecurrenceFunc, opts ...JobOption) (Handle, error) {
	return g.s.ScheduleRecurrence(r, fn, g.with(opts)...)
}

func (g *Group) with(opts []JobOption) []JobOption {
	return append(opts[:len(opts):len(opts)], func(e *jobExt) { e.group = g })
}

// Clear deactivates the group's pending jobs, leaving other jobs alone.
// Called from a callback, it stops the group's jobs due at the same deadline.
func (g *Group) Clear() error {
	if err := g.s.check("Clear"); err != nil {
		return err
	}
	if g.s.observer != nil {
		g.s.observeClear(EventCancel, g)
	}
	g.s.cancelTimers(g, EventCancel)
	var mine []timerq.ID
	g.s.q.Each(func(id timerq.ID, _ int64, key uint64, p ref) bool {
		if ext := extOf(key, p); ext != nil && ext.group == g && key&tagMask != tagTimer {
			mine = append(mine, id)
		}
		return true
	})
	for _, id := range mine {
		if _, key, _, ok := g.s.q.Get(id); ok {
			p, _ := g.s.q.Remove(id)
			g.s.released(id, key, p)
		}
	}
	return nil
}

// List returns the group's active jobs in due order.
func (g *Group) List() []JobInfo { return g.s.list(g) }

// Count returns the number of the group's active jobs.
func (g *Group) Count() int {
	n := 0
	g.s.q.Each(func(_ timerq.ID, _ int64, key uint64, p ref) bool {
		if ext := extOf(key, p); ext != nil && ext.group == g {
			n++
		}
		return true
	})
	return n
}

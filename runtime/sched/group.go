package sched

import (
	"slices"

	"github.com/metronome-rt/metronome/runtime/internal/timerq"
)

// Group is a named share of a scheduler's timeline: its jobs keep the
// scheduler's time and (deadline, creation) order, and Clear, List and
// Count given the group see only its jobs. A host gives its own jobs and a
// compatibility layer's timers one group each, so both advance together
// while clearing one leaves the other alone. A group is its address: make
// one with &Group{Name: "host"} and put jobs in it with InGroup.
type Group struct {
	Name string // as List and traces show it
}

// InGroup puts the job in g.
func InGroup(g *Group) JobOption {
	return func(e *jobExt) { e.group = g }
}

// inGroups reports whether a job with extension ext (nil for a plain
// one-shot, which has no group) is in one of groups; every job is when
// groups is empty.
func inGroups(ext *jobExt, groups []*Group) bool {
	if len(groups) == 0 {
		return true
	}
	return ext != nil && ext.group != nil && slices.Contains(groups, ext.group)
}

// clearGroups deactivates the pending jobs of groups, leaving other jobs
// alone.
func (s *Scheduler) clearGroups(groups []*Group) {
	if s.observer != nil {
		s.observeClear(EventCancel, groups)
	}
	s.cancelTimers(groups, EventCancel)
	var mine []timerq.ID
	s.q.Each(func(id timerq.ID, _ int64, key uint64, p ref) bool {
		if key&tagMask != tagTimer && inGroups(extOf(key, p), groups) {
			mine = append(mine, id)
		}
		return true
	})
	for _, id := range mine {
		if _, key, _, ok := s.q.Get(id); ok {
			p, _ := s.q.Remove(id)
			s.released(id, key, p)
		}
	}
}

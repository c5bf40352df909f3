package sched

import (
	"cmp"
	"slices"

	"github.com/metronome-rt/metronome/runtime/internal/timerq"
)

// Event says what an observer is told about a job.
type Event uint8

// The events an observer sees. A cancel or a drop is reported once per job
// (per keyed generation) that had work pending, at Now() when it happened:
// a one-shot that already fired, or a job cancelled before, reports
// nothing.
const (
	// EventFire: the job's callback is about to run.
	EventFire Event = iota
	// EventCancel: pending work was cancelled: Handle.Cancel, Clear, or
	// a key registered again (for the old generation).
	EventCancel
	// EventDrop: pending work was dropped: Handle.Drop, Scheduler.Drop.
	EventDrop
)

func (e Event) String() string {
	switch e {
	case EventFire:
		return "fire"
	case EventCancel:
		return "cancel"
	case EventDrop:
		return "drop"
	}
	return "unknown"
}

// observeStop tells the observer that the job with queue key and ref p
// stopped by ev. Callers check s.observer first, so that a scheduler
// nobody observes pays one comparison.
func (s *Scheduler) observeStop(ev Event, key uint64, p ref) {
	j := extOf(key, p).job(key)
	f := Fire{Event: ev, At: s.Now(), ID: j.ID, Kind: j.Kind, Label: j.Label, Name: j.Name}
	if key&tagMask == tagTimer {
		t := (*timer)(p)
		f.Key, f.Generation = t.tick.Key, t.tick.Generation
	}
	s.observer(f)
}

// observeClear reports the queued jobs of groups (all when there are none)
// that a clear is about to remove, in due order. Keyed timers report
// through their stop.
func (s *Scheduler) observeClear(ev Event, groups []*Group) {
	type entry struct {
		when int64
		key  uint64
		p    ref
	}
	var es []entry
	s.q.Each(func(_ timerq.ID, when int64, key uint64, p ref) bool {
		if key&tagMask == tagTimer {
			return true
		}
		if inGroups(extOf(key, p), groups) {
			es = append(es, entry{when, key, p})
		}
		return true
	})
	slices.SortFunc(es, func(a, b entry) int {
		if c := cmp.Compare(a.when, b.when); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	for _, e := range es {
		s.observeStop(ev, e.key, e.p)
	}
}

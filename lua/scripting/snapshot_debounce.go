package scripting

import (
	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/runtime/sched"
)

// debounceSnapshot is one debouncer's pending keys in a snapshot.
type debounceSnapshot struct {
	Label string `json:"label"`
}

func checkDebounceSnapshot([]debounceSnapshot) error { return nil }

// saveDebouncers takes the debouncers' wake-up jobs out of snap: they are
// refused.
func saveDebouncers(L *lua.LState, s *sched.Scheduler, snap *luaSnapshot, refused []sched.Refused) []sched.Refused {
	deb := map[uint64]sched.JobInfo{}
	for _, j := range s.List() {
		if _, ok := j.Data.(debounceKey); ok {
			deb[j.ID] = j
		}
	}
	if len(deb) == 0 {
		return refused
	}
	jobs := snap.Jobs[:0]
	for _, j := range snap.Jobs {
		id := j.ID
		if id == 0 {
			id = j.Seq
		}
		if _, ok := deb[id]; ok {
			continue
		}
		jobs = append(jobs, j)
	}
	snap.Jobs = jobs
	kept := refused[:0]
	for _, r := range refused {
		if _, ok := deb[r.ID]; !ok {
			kept = append(kept, r)
		}
	}
	refused = kept
	for _, j := range s.List() {
		if _, ok := deb[j.ID]; ok {
			refused = append(refused, sched.Refused{Job: sched.Job{ID: j.ID, Kind: j.Kind, Label: j.Label, Name: j.Name}, Reason: "a debouncer's key"})
		}
	}
	return refused
}

type debouncePlan struct{}

func (debouncePlan) commit() {}

func planDebouncers(L *lua.LState, s *sched.Scheduler, snap *luaSnapshot, ro *sched.RestoreOptions) (debouncePlan, error) {
	return debouncePlan{}, nil
}

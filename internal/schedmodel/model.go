// Package schedmodel is the reference model the scheduler's property tests
// compare against: a plain list of pending jobs scanned for the smallest
// (deadline, id) on every step.
package schedmodel

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"
)

// model is the reference: a plain list of pending jobs, scanned for the
// smallest (deadline, id) on every step.
type model struct {
	now  int64
	seq  uint64
	jobs []*mjob
	log  []string
}

type mjob struct {
	id       uint64
	at       int64
	interval int64 // 0: one-shot
	spawn    int64 // >0: the callback schedules a one-shot this far ahead
}

func (m *model) schedule(delay, interval, spawn int64) uint64 {
	m.seq++
	m.jobs = append(m.jobs, &mjob{id: m.seq, at: m.now + delay, interval: interval, spawn: spawn})
	return m.seq
}

func (m *model) cancel(id uint64) {
	m.jobs = slices.DeleteFunc(m.jobs, func(j *mjob) bool { return j.id == id })
}

func (m *model) advance(d int64) {
	target := m.now + d
	for {
		var next *mjob
		for _, j := range m.jobs {
			if j.at <= target && (next == nil || j.at < next.at || (j.at == next.at && j.id < next.id)) {
				next = j
			}
		}
		if next == nil {
			break
		}
		m.now = next.at
		m.log = append(m.log, fmt.Sprintf("%d@%d", next.id, m.now))
		if next.interval > 0 {
			next.at += next.interval
		} else {
			m.cancel(next.id)
		}
		if next.spawn > 0 {
			m.schedule(next.spawn, 0, 0)
		}
	}
	m.now = target
}

// System is what the property drives: a scheduler under test.
type System interface {
	// Schedule adds a one-shot (interval 0) or an interval; a one-shot
	// with spawn > 0 schedules another one-shot spawn ns ahead when it fires.
	// It returns the job id. Fires are logged as "id@elapsed-ns".
	Schedule(delay, interval, spawn int64) uint64
	Cancel(id uint64)
	Clear()
	Advance(ns int64)
	Update(ms float64)
	Trace() []string
	Pending() []uint64
}

// Check runs random schedule / cancel / clear / advance / update
// sequences on sys and on the model and requires the same firing trace and
// the same pending jobs in due order.
func Check(t *rapid.T, sys System) {
	m := &model{}
	var ids []uint64
	t.Repeat(map[string]func(*rapid.T){
		"once": func(t *rapid.T) {
			delay := rapid.Int64Range(0, 50).Draw(t, "delay")
			spawn := rapid.OneOf(rapid.Just(int64(0)), rapid.Int64Range(0, 20)).Draw(t, "spawn")
			id := sys.Schedule(delay, 0, spawn)
			if mid := m.schedule(delay, 0, spawn); mid != id {
				t.Fatalf("id %d, model %d", id, mid)
			}
			ids = append(ids, id)
		},
		"every": func(t *rapid.T) {
			iv := rapid.Int64Range(1, 30).Draw(t, "interval")
			id := sys.Schedule(iv, iv, 0)
			m.schedule(iv, iv, 0)
			ids = append(ids, id)
		},
		"cancel": func(t *rapid.T) {
			if len(ids) == 0 {
				t.Skip("nothing to cancel")
			}
			id := rapid.SampledFrom(ids).Draw(t, "id")
			sys.Cancel(id)
			m.cancel(id)
		},
		"clear": func(t *rapid.T) {
			sys.Clear()
			m.jobs = nil
		},
		"advance": func(t *rapid.T) {
			d := rapid.Int64Range(0, 60).Draw(t, "d")
			sys.Advance(d)
			m.advance(d)
		},
		"update": func(t *rapid.T) {
			// n ns as float ms: its nearest double times 1e6 rounds back to n.
			n := rapid.Int64Range(0, 60).Draw(t, "ns")
			sys.Update(float64(n) / 1e6)
			m.advance(n)
		},
		"": func(t *rapid.T) {
			if got, want := sys.Trace(), m.log; !slices.Equal(got, want) {
				t.Fatalf("trace\n got %v\nwant %v", got, want)
			}
			var want []uint64
			sorted := slices.Clone(m.jobs)
			slices.SortFunc(sorted, func(a, b *mjob) int {
				if a.at != b.at {
					return int(a.at - b.at)
				}
				return int(a.id) - int(b.id)
			})
			for _, j := range sorted {
				want = append(want, j.id)
			}
			if got := sys.Pending(); !slices.Equal(got, want) {
				t.Fatalf("pending %v, model %v", got, want)
			}
		},
	})
}

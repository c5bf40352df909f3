package sched_test

import (
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// capError checks that err is the cap's refusal by method.
func capError(t *testing.T, what string, err error, method string, limit int) {
	t.Helper()
	var ce *sched.CallError
	want := method + ": too many pending jobs: the cap is " + strconv.Itoa(limit)
	if !errors.Is(err, sched.ErrTooManyPending) || !errors.As(err, &ce) || ce.Method != method || err.Error() != want {
		t.Errorf("%s: error %v, want %q", what, err, want)
	}
}

// The job past the cap is refused by every scheduling method, plain or
// with options, in a group or not; the refusal changes nothing, not even
// the creation numbers, and the scheduler goes on once there is room.
func TestPendingCapRefusesTheJobPastIt(t *testing.T) {
	r := newRec()
	must(0, r.s.SetLimits(0, 3))
	r.once(t, "a", ms)
	r.every(t, "b", 2*ms)
	g := &sched.Group{Name: "g"}
	must(r.s.ScheduleOnce(3*ms, r.cb("c"), sched.InGroup(g)))
	before := r.s.List()

	_, err := r.s.ScheduleOnce(ms, r.cb("x"))
	capError(t, "once", err, "ScheduleOnce", 3)
	_, err = r.s.ScheduleOnce(ms, r.cb("x"), sched.WithLabel("f.lua:1"))
	capError(t, "once with a label", err, "ScheduleOnce", 3)
	_, err = r.s.ScheduleOnce(0, r.cb("x"))
	capError(t, "once at zero delay", err, "ScheduleOnce", 3)
	_, err = r.s.ScheduleEvery(sched.Every{Interval: ms}, r.cb("x"))
	capError(t, "every", err, "ScheduleEvery", 3)
	_, err = r.s.ScheduleOnce(ms, r.cb("x"), sched.InGroup(g))
	capError(t, "group once", err, "ScheduleOnce", 3)
	_, err = r.s.ScheduleRecurrence(sched.Recurrence{Set: dailyAt0230(t, "FREQ=DAILY"), Zone: "UTC"}, (&occLog{s: r.s}).cb)
	capError(t, "recurrence", err, "ScheduleRecurrence", 3)

	if after := r.s.List(); !slices.Equal(before, after) {
		t.Fatalf("a refusal changed the jobs:\nbefore %+v\nafter  %+v", before, after)
	}
	// Room again: the next job gets the next creation number.
	r.run(t, []step{{advance: ms, want: []string{"a@0.001s"}}})
	if h := r.once(t, "d", ms); h.ID() != 4 {
		t.Fatalf("id after refusals = %d, want 4 (a refusal uses no creation number)", h.ID())
	}
	r.run(t, []step{{advance: 2 * ms, want: []string{"b@0.002s", "d@0.002s", "c@0.003s"}}})
}

// At the cap, jobs already pending go on: an interval keeps its ticks and a
// recurrence its next occurrences. A cap below Count only refuses new jobs.
func TestPendingCapNeverRefusesARearm(t *testing.T) {
	r := newRec()
	b := r.every(t, "b", ms)
	occ := &occLog{s: r.s}
	must(r.s.ScheduleRecurrence(sched.Recurrence{Set: dailyAt0230(t, "FREQ=HOURLY"), Zone: "UTC", Limit: 3}, occ.cb))
	r.once(t, "a", 10*ms)
	must(0, r.s.SetLimits(0, 1))
	if got := r.s.MaxPending(); got != 1 {
		t.Fatalf("MaxPending() = %d, want 1", got)
	}
	_, err := r.s.ScheduleOnce(ms, r.cb("x"))
	capError(t, "new job over a lowered cap", err, "ScheduleOnce", 1)
	r.run(t, []step{{advance: 3 * ms, want: []string{"b@0.001s", "b@0.002s", "b@0.003s"}}})
	b.Cancel()
	if err := r.s.RunAll(10); err != nil {
		t.Fatal(err)
	}
	if len(occ.got) != 3 {
		t.Fatalf("recurrence fired %d times at the cap, want 3", len(occ.got))
	}
}

// A callback that schedules without end is stopped at the default cap: the
// call that moved time returns the refusal, wrapped in the job's error, and
// the scheduler stays usable.
func TestDefaultPendingCapStopsARunawayCallback(t *testing.T) {
	r := newRec()
	if got := r.s.MaxPending(); got != sched.DefaultMaxPending || got < 1_000_000 {
		t.Fatalf("default cap = %d, want DefaultMaxPending (>= 1,000,000)", got)
	}
	noop := func() error { return nil }
	scheduled := 0
	must(r.s.ScheduleOnce(ms, func() error {
		for range 10_000_000 {
			if _, err := r.s.ScheduleOnce(s, noop); err != nil {
				return err
			}
			scheduled++
		}
		return nil
	}))
	err := r.s.Advance(ms)
	var je *sched.JobError
	if !errors.As(err, &je) || je.Job.ID != 1 {
		t.Fatalf("Advance = %v, want the job's error", err)
	}
	capError(t, "runaway", je.Err, "ScheduleOnce", sched.DefaultMaxPending)
	if scheduled != sched.DefaultMaxPending || r.s.Count() != sched.DefaultMaxPending {
		t.Fatalf("scheduled %d, pending %d, want %d each", scheduled, r.s.Count(), sched.DefaultMaxPending)
	}
	must(0, r.s.Clear())
	r.once(t, "after", ms)
	r.run(t, []step{{advance: ms, want: []string{"after@0.002s"}}})
}

func TestSetLimitsBadInputs(t *testing.T) {
	r := newRec()
	err := r.s.SetLimits(3, -1)
	var oe *temporal.OptionError
	if !errors.As(err, &oe) || err.Error() != "SetLimits: maxPending: want an integer >= 1, or 0 to keep it, got -1" {
		t.Fatalf("SetLimits(3, -1) = %v", err)
	}
	if r.s.MaxPending() != sched.DefaultMaxPending || r.s.LoopLimit() != sched.DefaultLoopLimit {
		t.Fatal("a refused SetLimits changed a limit")
	}
	must(0, r.s.SetLimits(0, 0)) // keeps both
	if r.s.MaxPending() != sched.DefaultMaxPending || r.s.LoopLimit() != sched.DefaultLoopLimit {
		t.Fatal("SetLimits(0, 0) changed a limit")
	}
	r.s.Drop()
	if err := r.s.SetLimits(0, 5); !errors.Is(err, sched.ErrDropped) || err.Error() != "SetLimits: scheduler dropped" {
		t.Fatalf("SetLimits after Drop = %v", err)
	}
}

package sched_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// reporter collects the jobs whose errors reached report, as "job@elapsed".
func (r *rec) reporter(out *[]string) func(*sched.JobError) error {
	return func(je *sched.JobError) error {
		*out = append(*out, je.Job.String()+"@"+r.elapsed())
		return nil
	}
}

func (r *rec) failing(name string, err error) func() error {
	return func() error {
		r.log = append(r.log, name+"@"+r.elapsed())
		return err
	}
}

func TestAdvanceReportingRunsEveryOtherDueJob(t *testing.T) {
	r := newRec()
	boom := errors.New("boom")
	r.once(t, "a", 5*ms)
	bad := must(r.s.ScheduleOnce(5*ms, r.failing("bad", boom)))
	r.once(t, "c", 5*ms)
	var reported []string
	if err := r.s.Advance(16*ms, r.reporter(&reported)); err != nil {
		t.Fatal(err)
	}
	if got := r.take(); !slices.Equal(got, []string{"a@0.005s", "bad@0.005s", "c@0.005s"}) {
		t.Fatalf("ran %q, want all three in creation order", got)
	}
	if want := []string{fmt.Sprintf("once #%d@0.005s", bad.ID())}; !slices.Equal(reported, want) {
		t.Fatalf("reported %q, want %q (at the failing job's deadline)", reported, want)
	}
	if r.s.Elapsed() != 16*ms {
		t.Fatalf("Elapsed %v, want the whole delta", r.s.Elapsed())
	}
}

func TestAdvanceReportingKeepsAFailingIntervalRepeating(t *testing.T) {
	r := newRec()
	iv := must(r.s.ScheduleEvery(sched.Every{Interval: 10 * ms}, r.failing("iv", errors.New("boom"))))
	var reported []string
	steps := []struct {
		d    temporal.Duration
		want []string
	}{
		{35 * ms, []string{"iv@0.01s", "iv@0.02s", "iv@0.03s"}},
		{5*ms - ns, nil},
		{15*ms + ns, []string{"iv@0.04s", "iv@0.05s"}},
	}
	for i, st := range steps {
		if err := r.s.Advance(st.d, r.reporter(&reported)); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := r.take(); !slices.Equal(got, st.want) {
			t.Fatalf("step %d ran %q, want %q", i, got, st.want)
		}
	}
	if len(reported) != 5 || !iv.Active() {
		t.Fatalf("reported %q (want 5 failures); active %v", reported, iv.Active())
	}
}

func TestAdvanceReportingStopsOnReportsError(t *testing.T) {
	r := newRec()
	boom, stop := errors.New("boom"), errors.New("stop")
	r.s.ScheduleOnce(5*ms, r.failing("bad", boom))
	r.once(t, "c", 5*ms)
	r.once(t, "d", 10*ms)
	err := r.s.Advance(16*ms, func(je *sched.JobError) error {
		if !errors.Is(je, boom) {
			t.Errorf("reported %v, want boom", je)
		}
		return stop
	})
	if err != stop {
		t.Fatalf("AdvanceReporting = %v, want report's error as it returned it", err)
	}
	if got := r.take(); !slices.Equal(got, []string{"bad@0.005s"}) || r.s.Elapsed() != 5*ms {
		t.Fatalf("ran %q, elapsed %v: want the drain stopped at the failing job's deadline", got, r.s.Elapsed())
	}
	// Nothing is lost or run twice: the next call goes on from there.
	r.run(t, []step{{11 * ms, []string{"c@0.005s", "d@0.01s"}}})
}

// A failing callback that re-arms at zero delay is stopped by the loop
// guard, which counts across the whole call: reporting does not reset it.
func TestAdvanceReportingKeepsTheLoopGuard(t *testing.T) {
	r := newRec()
	if err := r.s.SetLimits(50, 0); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	var rearm func() error
	rearm = func() error {
		if _, err := r.s.ScheduleOnce(0, rearm); err != nil {
			return err
		}
		return boom
	}
	must(r.s.ScheduleOnce(ms, rearm))
	reports := 0
	err := r.s.Advance(2*ms, func(*sched.JobError) error { reports++; return nil })
	var le *sched.LoopError
	if !errors.As(err, &le) {
		t.Fatalf("AdvanceReporting = %v, want a *LoopError", err)
	}
	if reports != 50 {
		t.Fatalf("reported %d errors, want the 50 before the guard tripped", reports)
	}
}

// A refused nested call leaves the outer call's report in place.
func TestAdvanceReportingFromACallbackIsReentrant(t *testing.T) {
	r := newRec()
	boom := errors.New("boom")
	var inner error
	r.s.ScheduleOnce(ms, func() error {
		inner = r.s.Advance(ms, func(*sched.JobError) error { return errors.New("inner report") })
		return nil
	})
	r.s.ScheduleOnce(2*ms, r.failing("bad", boom))
	r.once(t, "c", 3*ms)
	reports := 0
	if err := r.s.Advance(5*ms, func(*sched.JobError) error { reports++; return nil }); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(inner, sched.ErrReentrant) {
		t.Fatalf("nested AdvanceReporting = %v, want ErrReentrant", inner)
	}
	if got := r.take(); reports != 1 || !slices.Equal(got, []string{"bad@0.002s", "c@0.003s"}) {
		t.Fatalf("ran %q with %d reports, want bad reported and c run", got, reports)
	}
	// Advance after it reports nothing: the policy lasts one call.
	r.s.ScheduleOnce(ms, r.failing("bad2", boom))
	if err := r.s.Advance(ms); !errors.Is(err, boom) {
		t.Fatalf("Advance = %v, want the job's error", err)
	}
}

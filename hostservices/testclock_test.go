package hostservices_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// The test-clock verbs move every group's jobs, never the facets, and
// ignore pause.
func TestTestClockVerbsMoveJobsOnly(t *testing.T) {
	h := hostservices.New(temporal.Fixed(epoch))
	var log []string
	note := func(s string) func() error { return func() error { log = append(log, s); return nil } }
	other := &sched.Group{Name: "other"}
	if _, err := h.Scheduler().ScheduleOnce(temporal.Millisecond*5, note("other@5"), sched.InGroup(other)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ScheduleOnce(temporal.Millisecond*5, note("host@5")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ScheduleEvery(sched.Every{Interval: temporal.Millisecond * 10}, note("every")); err != nil {
		t.Fatal(err)
	}
	if err := h.Register("f", hostservices.FacetFunc(func(float64) error { log = append(log, "facet"); return nil })); err != nil {
		t.Fatal(err)
	}
	h.SetPaused(true)
	if h.Count() != 3 || len(h.List()) != 3 || h.List()[0].Group != "other" {
		t.Fatalf("count %d, list %+v", h.Count(), h.List())
	}
	if ran, err := h.RunNext(); !ran || err != nil {
		t.Fatalf("RunNext: %v, %v", ran, err)
	}
	if err := h.Jump(temporal.Millisecond * 30); err != nil {
		t.Fatal(err)
	}
	if err := h.RunToLast(100); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(log, " "); got != "other@5 host@5 every every" {
		t.Errorf("ran %q", got)
	}
	var le *sched.RunLimitError
	if err := h.RunAll(3); !errors.As(err, &le) {
		t.Errorf("RunAll with an interval: %v", err)
	}
}

// From a facet of a running frame, each verb is the re-entrancy error of
// Update.
func TestTestClockVerbsRefuseReentry(t *testing.T) {
	h := hostservices.New(temporal.Fixed(epoch))
	var errs []error
	err := h.Register("mover", hostservices.FacetFunc(func(float64) error {
		_, err := h.RunNext()
		errs = append(errs, err, h.RunAll(1), h.RunToLast(1), h.Jump(0))
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Update(1); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"RunNext", "RunAll", "RunToLast", "Jump"} {
		var ce *sched.CallError
		if !errors.As(errs[i], &ce) || ce.Method != name || !errors.Is(errs[i], sched.ErrReentrant) {
			t.Errorf("%s from a facet: %v", name, errs[i])
		}
	}
}

// RunToLast keeps RunAll's limit: an interval on the way to a job a day
// out stops it with an error naming RunToLast and the interval.
func TestTestClockRunToLastStopsAtItsLimit(t *testing.T) {
	h := hostservices.New(temporal.Fixed(epoch))
	fires := 0
	if _, err := h.ScheduleEvery(sched.Every{Interval: temporal.Millisecond * 5}, func() error { fires++; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ScheduleOnce(temporal.Hour*24, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	err := h.RunToLast(100)
	var le *sched.RunLimitError
	if !errors.As(err, &le) || le.Method != "RunToLast" || le.Next.Kind != sched.KindEvery || fires != 100 || h.Count() != 2 {
		t.Fatalf("RunToLast: %v after %d fires, %d pending", err, fires, h.Count())
	}
}

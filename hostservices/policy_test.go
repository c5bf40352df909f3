package hostservices_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/sched"
)

var errBoom = errors.New("boom")

// failing is a job that notes its run and fails.
func (r *rig) failing(name string) func() error {
	return func() error { r.note(name); return errBoom }
}

// failingFacet notes its run as a facet does and fails.
func (r *rig) failingFacet(name string) hostservices.FacetFunc {
	return func(dt float64) error { _ = r.facet(name)(dt); return errBoom }
}

// reportErrors sets a handler that notes each error, in the log, as
// "error(<message>)@elapsed", and goes on.
func (r *rig) reportErrors() {
	r.h.SetErrorHandler(func(err error) error {
		r.note("error(" + err.Error() + ")")
		return nil
	})
}

func TestErrorHandlerRunsEveryOtherDueJobAndTheFacets(t *testing.T) {
	for _, step := range []bool{false, true} {
		r := newRig(t)
		r.reportErrors()
		r.register("f", r.facet("f"))
		r.register("g", r.facet("g"))
		r.once("a", 5*ms)
		must(r.h.ScheduleOnce(5*ms, r.failing("bad")))
		r.once("c", 5*ms)
		r.once("d", 16*ms)
		r.once("e", 16*ms+ns) // just past the frame
		r.run([]frame{
			{paused: step, step: step, ms: 16, want: []string{
				"a@0.005s", "bad@0.005s", "error(once #2: boom)@0.005s", "c@0.005s",
				"d@0.016s", "f(16)@0.016s", "g(16)@0.016s",
			}},
		})
		r.elapsedIs(16 * ms) // the frame's whole delta
		r.run([]frame{{ms: 1, want: []string{"e@0.016000001s", "f(1)@0.017s", "g(1)@0.017s"}}})
	}
}

func TestErrorHandlerHandsOverTheJobError(t *testing.T) {
	r := newRig(t)
	var got []error
	r.h.SetErrorHandler(func(err error) error { got = append(got, err); return nil })
	bad := must2(r.h.ScheduleOnce(ms, func() error { return errBoom }))
	if err := r.h.Update(2); err != nil {
		t.Fatal(err)
	}
	var je *sched.JobError
	if len(got) != 1 || !errors.Is(got[0], errBoom) || !errors.As(got[0], &je) || je.Job.ID != bad.ID() {
		t.Fatalf("handler got %v, want one *sched.JobError for job %d wrapping errBoom", got, bad.ID())
	}
}

func TestErrorHandlerSeesEachFailureOfARepeatingInterval(t *testing.T) {
	r := newRig(t)
	r.reportErrors()
	iv := must2(r.h.ScheduleEvery(sched.Every{Interval: 10 * ms}, r.failing("iv")))
	r.register("f", r.facet("f"))
	r.run([]frame{
		{ms: 35, want: []string{
			"iv@0.01s", "error(every #1: boom)@0.01s",
			"iv@0.02s", "error(every #1: boom)@0.02s",
			"iv@0.03s", "error(every #1: boom)@0.03s",
			"f(35)@0.035s",
		}},
		{ms: 5 - 1e-6, want: []string{"f(4.999999)@0.039999999s"}}, // one nanosecond early
		{ms: 1e-6, want: []string{"iv@0.04s", "error(every #1: boom)@0.04s", "f(1e-06)@0.04s"}},
		{paused: true, step: true, ms: 10, want: []string{"iv@0.05s", "error(every #1: boom)@0.05s", "f(10)@0.05s"}},
	})
	if !iv.Active() {
		t.Fatal("the failing interval stopped repeating")
	}
}

func TestErrorHandlerRunsTheFacetsAfterAFailingOne(t *testing.T) {
	r := newRig(t)
	var got []error
	r.h.SetErrorHandler(func(err error) error {
		got = append(got, err)
		r.note("error(" + err.Error() + ")")
		return nil
	})
	r.register("a", r.facet("a"))
	r.register("bad", r.failingFacet("bad"))
	r.register("c", r.facet("c"))
	r.run([]frame{
		{ms: 1, want: []string{"a(1)@0.001s", "bad(1)@0.001s", `error(facet "bad": boom)@0.001s`, "c(1)@0.001s"}},
		{ms: 2, want: []string{"a(2)@0.003s", "bad(2)@0.003s", `error(facet "bad": boom)@0.003s`, "c(2)@0.003s"}},
	})
	var fe *hostservices.FacetError
	if !errors.As(got[0], &fe) || fe.Name != "bad" || !errors.Is(got[0], errBoom) {
		t.Fatalf("handler got %v, want a *FacetError naming bad", got[0])
	}
}

// The handler's error stops the frame as the default policy would, and is
// returned as the handler returned it.
func TestErrorHandlersErrorStopsTheFrame(t *testing.T) {
	stop := errors.New("stop")
	r := newRig(t)
	r.h.SetErrorHandler(func(error) error { return stop })
	r.register("f", r.facet("f"))
	must(r.h.ScheduleOnce(5*ms, r.failing("bad")))
	r.once("c", 5*ms)
	if err := r.h.Update(16); err != stop {
		t.Fatalf("Update = %v, want the handler's error", err)
	}
	if got := r.take(); !slices.Equal(got, []string{"bad@0.005s"}) {
		t.Fatalf("ran %q, want the frame stopped at the failing job", got)
	}
	r.elapsedIs(5 * ms)
	r.h.SetErrorHandler(nil)
	r.run([]frame{{ms: 11, want: []string{"c@0.005s", "f(11)@0.016s"}}}) // nothing lost

	r.h.SetErrorHandler(func(err error) error { return stop })
	r.register("bad", r.failingFacet("bad"))
	r.register("g", r.facet("g"))
	if err := r.h.Update(1); err != stop {
		t.Fatalf("Update = %v, want the handler's error", err)
	}
	if got := r.take(); !slices.Equal(got, []string{"f(1)@0.017s", "bad(1)@0.017s"}) {
		t.Fatalf("ran %q, want the facets after bad skipped", got)
	}
}

// A handler that returns the error it was given makes it stop the frame
// exactly as without a handler; SetErrorHandler(nil) restores the default.
func TestErrorHandlerReturningTheErrorAndNilAreTheDefault(t *testing.T) {
	for _, policy := range []string{"rethrow", "nil"} {
		r := newRig(t)
		r.reportErrors()
		if policy == "rethrow" {
			r.h.SetErrorHandler(func(err error) error { return err })
		} else {
			r.h.SetErrorHandler(nil)
		}
		r.register("f", r.facet("f"))
		must(r.h.ScheduleOnce(5*ms, r.failing("bad")))
		r.once("c", 5*ms)
		var je *sched.JobError
		if err := r.h.Update(16); !errors.As(err, &je) || !errors.Is(err, errBoom) {
			t.Fatalf("%s: Update = %v, want the *sched.JobError", policy, err)
		}
		if got := r.take(); !slices.Equal(got, []string{"bad@0.005s"}) {
			t.Fatalf("%s: ran %q", policy, got)
		}
		r.elapsedIs(5 * ms)
		r.register("bad", r.failingFacet("bad"))
		r.register("g", r.facet("g"))
		var fe *hostservices.FacetError
		if err := r.h.Update(1); !errors.As(err, &fe) || fe.Name != "bad" {
			t.Fatalf("%s: Update = %v, want the *FacetError", policy, err)
		}
		if got := r.take(); !slices.Equal(got, []string{"c@0.005s", "f(1)@0.006s", "bad(1)@0.006s"}) {
			t.Fatalf("%s: ran %q", policy, got)
		}
	}
}

// The policy of a frame is the one set when it starts.
func TestErrorHandlerSetDuringAFrameTakesEffectNextFrame(t *testing.T) {
	r := newRig(t)
	r.register("set", hostservices.FacetFunc(func(float64) error { r.reportErrors(); return nil }))
	r.register("bad", r.failingFacet("bad"))
	var fe *hostservices.FacetError
	if err := r.h.Update(1); !errors.As(err, &fe) {
		t.Fatalf("Update = %v, want the facet's error: the frame began without a handler", err)
	}
	r.take()
	r.run([]frame{{ms: 1, want: []string{"bad(1)@0.002s", `error(facet "bad": boom)@0.002s`}}})

	r.h.Unregister("set")
	r.register("unset", hostservices.FacetFunc(func(float64) error { r.h.SetErrorHandler(nil); return nil }))
	r.reportErrors()
	r.run([]frame{{ms: 1, want: []string{"bad(1)@0.003s", `error(facet "bad": boom)@0.003s`}}})
	if err := r.h.Update(1); !errors.As(err, &fe) {
		t.Fatalf("Update = %v, want the facet's error: the handler was removed", err)
	}
}

// The handler runs inside the frame, under a callback's rules.
func TestErrorHandlerRunsUnderTheCallbackRules(t *testing.T) {
	r := newRig(t)
	var inner error
	r.h.SetErrorHandler(func(error) error {
		inner = r.h.Update(1)
		r.note("handler")
		must(r.h.ScheduleOnce(0, r.cb("scheduled")))
		return nil
	})
	must(r.h.ScheduleOnce(5*ms, r.failing("bad")))
	r.run([]frame{{ms: 10, want: []string{"bad@0.005s", "handler@0.005s", "scheduled@0.005s"}}})
	if !errors.Is(inner, sched.ErrReentrant) {
		t.Fatalf("Update from the handler = %v, want ErrReentrant", inner)
	}
}

func TestObserverCountsAFacetWhoseErrorWasHandledAsRun(t *testing.T) {
	r := newRig(t)
	r.reportErrors()
	var frames []hostservices.FrameInfo
	r.h.SetObserver(hostservices.Observer{Frame: func(f hostservices.FrameInfo) { frames = append(frames, f) }})
	r.register("bad", r.failingFacet("bad"))
	r.register("ok", r.facet("ok"))
	if err := r.h.Update(2); err != nil {
		t.Fatal(err)
	}
	want := []hostservices.FrameInfo{{From: 0, To: 2 * ms, Facets: []string{"bad", "ok"}}}
	if !reflect.DeepEqual(frames, want) {
		t.Fatalf("frames %+v, want %+v", frames, want)
	}
}

func must2(h sched.Handle, err error) sched.Handle {
	if err != nil {
		panic(err)
	}
	return h
}

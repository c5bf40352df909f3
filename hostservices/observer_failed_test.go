package hostservices_test

import (
	"slices"
	"testing"

	"github.com/metronome-rt/metronome/hostservices"
)

// Observer.Failed sees each error the error handler takes, before it, and
// nothing without a handler (the error stops the frame instead).
func TestObserverSeesTheErrorsTheHandlerTakes(t *testing.T) {
	r := newRig(t)
	r.h.SetObserver(hostservices.Observer{Failed: func(err error) { r.note("failed(" + err.Error() + ")") }})
	r.reportErrors()
	r.register("f", r.failingFacet("f"))
	must(r.h.ScheduleOnce(5*ms, r.failing("bad")))
	r.run([]frame{{ms: 16, want: []string{
		"bad@0.005s", "failed(once #1: boom)@0.005s", "error(once #1: boom)@0.005s",
		"f(16)@0.016s", `failed(facet "f": boom)@0.016s`, `error(facet "f": boom)@0.016s`,
	}}})

	r.h.SetErrorHandler(nil)
	r.h.Unregister("f")
	must(r.h.ScheduleOnce(ms, r.failing("stops")))
	if err := r.h.Update(2); err == nil {
		t.Fatal("the job's error did not stop the frame")
	}
	if got := r.take(); !slices.Equal(got, []string{"stops@0.017s"}) {
		t.Fatalf("ran %q", got)
	}
}

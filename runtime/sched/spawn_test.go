package sched_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// script spawns a task that logs name@elapsed, waits each of waits in turn
// and logs what each wait took.
func (r *rec) script(t *testing.T, name string, waits ...temporal.Duration) sched.Handle {
	t.Helper()
	var step func(i int) func(*sched.Step) error
	step = func(i int) func(*sched.Step) error {
		return func(tk *sched.Step) error {
			if i > 0 {
				r.log = append(r.log, name+" waited "+tk.Waited.DecimalSeconds())
			}
			r.log = append(r.log, name+"@"+r.elapsed())
			if i < len(waits) {
				return tk.Wait(waits[i], step(i+1))
			}
			return nil
		}
	}
	return must(r.s.Spawn(step(0)))
}

func TestSpawnRunsAtOnceThenWaits(t *testing.T) {
	r := newRec()
	tk := r.script(t, "s", 10*ms, 5*ms)
	if got := r.take(); !slices.Equal(got, []string{"s@0s"}) {
		t.Fatalf("Spawn ran %q, want the first step at once", got)
	}
	if !tk.Active() || r.s.Count() != 1 || r.s.List()[0].Kind != sched.KindSpawn {
		t.Fatalf("a waiting task is pending work: active %v, count %d", tk.Active(), r.s.Count())
	}
	if d, ok := remaining(tk); !ok || d != 10*ms {
		t.Fatalf("Remaining = %v %v", d, ok)
	}
	r.want(t, 10*ms-ns)
	r.want(t, ns, "s waited 0.01s", "s@0.01s")
	if err := r.s.Jump(20 * ms); err != nil {
		t.Fatal(err)
	}
	if got := r.take(); !slices.Equal(got, []string{"s waited 0.02s", "s@0.03s"}) {
		t.Fatalf("after a jump: %q (a wait takes more than d)", got)
	}
	if tk.Active() || r.s.Count() != 0 {
		t.Fatal("an ended task is still active")
	}
}

func TestSpawnCancelEndsItAtItsWait(t *testing.T) {
	r := newRec()
	tk := r.script(t, "s", 10*ms, 10*ms)
	r.take()
	if !tk.Cancel() || tk.Active() {
		t.Fatal("Cancel of a waiting task")
	}
	r.want(t, 30*ms)
	if tk.Cancel() {
		t.Fatal("a second Cancel reports a pending task")
	}
}

func TestSpawnErrors(t *testing.T) {
	r := newRec()
	boom := errors.New("boom")
	if _, err := r.s.Spawn(func(*sched.Step) error { return boom }); err != boom {
		t.Fatalf("an error before the first wait: %v, want it from Spawn as is", err)
	}
	must(r.s.Spawn(func(tk *sched.Step) error {
		return tk.Wait(ms, func(*sched.Step) error { return boom })
	}, sched.WithName("walker")))
	err := r.s.Advance(ms)
	var je *sched.JobError
	if !errors.As(err, &je) || !errors.Is(err, boom) || je.Job.Kind != sched.KindSpawn || je.Job.Name != "walker" {
		t.Fatalf("an error after a wait: %v, want a *JobError of the spawn", err)
	}
	var kept *sched.Step
	must(r.s.Spawn(func(tk *sched.Step) error { kept = tk; return nil }))
	if err := kept.Wait(ms, func(*sched.Step) error { return nil }); err == nil {
		t.Fatal("Wait outside the task's step succeeded")
	}
	if _, err := r.s.Spawn(nil); err == nil {
		t.Fatal("Spawn(nil) succeeded")
	}
}

func TestSpawnZeroWaitsCountTowardTheLoopLimit(t *testing.T) {
	r := newRec()
	if err := r.s.SetLimits(5, 0); err != nil {
		t.Fatal(err)
	}
	var loop func(*sched.Step) error
	loop = func(tk *sched.Step) error { return tk.Wait(0, loop) }
	must(r.s.Spawn(loop))
	var le *sched.LoopError
	if err := r.s.Advance(ms); !errors.As(err, &le) {
		t.Fatalf("a task waiting 0 forever: %v, want a *LoopError", err)
	}
}

func TestSpawnInAGroupIsClearedWithIt(t *testing.T) {
	r := newRec()
	g := &sched.Group{Name: "host"}
	tk := must(r.s.Spawn(func(tk *sched.Step) error { return tk.Wait(ms, func(*sched.Step) error { return nil }) }, sched.InGroup(g)))
	if r.s.Count(g) != 1 || r.s.List(g)[0].Group != "host" {
		t.Fatalf("group count %d", r.s.Count(g))
	}
	if err := r.s.Clear(g); err != nil || tk.Active() || r.s.Count() != 0 {
		t.Fatalf("Clear: %v, active %v", err, tk.Active())
	}
	if err := r.s.RunAll(10); err != nil {
		t.Fatal(err)
	}
}

package loop_test

import (
	"testing"

	"github.com/metronome-rt/metronome/temporal"

	"pgregory.net/rapid"

	"github.com/metronome-rt/metronome/runtime/loop"
	"github.com/metronome-rt/metronome/runtime/loop/looptest"
)

// TestContractAgreement runs random interleavings of tasks, timers,
// frames, runs and the six kinds of source, and checks after every step
// that NeedsFrame and NextTimer say what a run would do.
func TestContractAgreement(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h, srcs := sixSources()
		s := h.Scheduler()
		batch, budgeted, render, deadline := srcs[2], srcs[1], srcs[4], srcs[5]
		ended := 0
		s.SetTaskHook(func() { ended++ })
		var timers []int
		work := func() {}
		steps := rapid.IntRange(1, 60).Draw(rt, "steps")
		for range steps {
			switch rapid.IntRange(0, 10).Draw(rt, "op") {
			case 0:
				s.QueueTask(func() {
					if len(timers) < 50 {
						s.QueueTask(work)
					}
				})
			case 1:
				d := temporal.Duration(rapid.IntRange(-2, 40).Draw(rt, "delay")) * ms
				repeat := rapid.Bool().Draw(rt, "repeat")
				n := 0
				f := func(own int) { // a timer clears itself by the id it is given
					n++
					if repeat && n >= 3 {
						s.ClearTimer(own)
					}
				}
				id, _ := s.SetTimer(f, d, repeat)
				timers = append(timers, id)
			case 2:
				s.SetHostTimer(func(int) { work() }, temporal.Duration(rapid.IntRange(0, 40).Draw(rt, "host delay"))*ms, false)
			case 3:
				if len(timers) > 0 {
					s.ClearTimer(timers[rapid.IntRange(0, len(timers)-1).Draw(rt, "clear")] + rapid.IntRange(0, 1).Draw(rt, "off by"))
				}
			case 4:
				id := s.RequestFrame(func(temporal.Duration) {})
				if rapid.Bool().Draw(rt, "cancel frame") {
					s.CancelFrame(id)
				}
			case 5:
				srcs[rapid.IntRange(0, 5).Draw(rt, "source")].Add(work)
			case 6:
				if _, ok := deadline.Deadline(); !ok {
					deadline.SetDeadline(s.Now()+temporal.Duration(rapid.IntRange(0, 40).Draw(rt, "deadline"))*ms, work)
				}
			case 7:
				batch.Hold = !batch.Hold
			case 8:
				render.Frame = !render.Frame
			case 9: // a run up to now: progress exactly when NextTimer is now or a frame is due
				now := s.Now()
				fd, framed := s.FrameDue()
				due := loop.NextTimer(h) == now || (framed && fd <= now)
				exempt := batch.Held() || budgeted.OverBudget()
				before := ended
				if err := loop.Run(h, now); err != nil {
					rt.Fatal(err)
				}
				progress := ended > before
				if progress && !due {
					rt.Fatalf("a run at %v made progress with NextTimer %v and no frame due", now, loop.NextTimer(h))
				}
				if due && !progress && !exempt {
					rt.Fatalf("a run at %v made no progress though NextTimer was now or a frame due", now)
				}
			case 10:
				until := s.Now() + temporal.Duration(rapid.IntRange(0, 50).Draw(rt, "until"))*ms
				if err := loop.Run(h, until); err != nil {
					rt.Fatal(err)
				}
			}
			checkGuarantees(rt, h, srcs)
		}
	})
}

func checkGuarantees(rt *rapid.T, h *loop.SimpleHost, srcs []*looptest.ScriptedSource) {
	s := h.Scheduler()
	now := s.Now()
	nt := loop.NextTimer(h)
	ready := loop.Ready(h)
	if nt < now {
		rt.Fatalf("NextTimer %v before now %v", nt, now)
	}
	want := loop.Never
	if at, ok := s.PeekTimer(); ok {
		want = at
	}
	for _, src := range srcs {
		if at, ok := src.Deadline(); ok && at < want {
			want = at
		}
	}
	switch {
	case ready:
		want = now
	case want != loop.Never:
		want = max(want, now)
	}
	if nt != want {
		rt.Fatalf("NextTimer %v, want %v (now %v, ready %v)", nt, want, now, ready)
	}
	if (nt == now) != (ready || s.TimerDue()) {
		rt.Fatalf("NextTimer %v at now %v with ready %v", nt, now, ready)
	}
	wantFrame := s.FrameRequested() || srcs[4].Frame || ready
	if got := loop.NeedsFrame(h); got != wantFrame {
		rt.Fatalf("NeedsFrame %v, want %v", got, wantFrame)
	}
}

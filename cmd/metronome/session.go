package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// session is one `metronome run`: the host the script gets as app-host, the
// state running the script, and how the run ends.
//
// After the main chunk the session moves the host from due item to due
// item: with no facets registered, straight to the next deadline; with
// facets, frame by frame. It stops when nothing is pending and no facet is
// registered, when the script called host.quit(), when the host is paused
// (nothing could resume it), or at --until.
type session struct {
	o     runOptions
	host  *hostservices.Host
	epoch temporal.Instant
	L     *lua.LState
	rec   *recorder // nil without --trace and --timeline

	quit     bool
	stop     stopReason
	framing  bool              // facets are registered: the loop runs frames
	frameDue temporal.Duration // elapsed time the next frame is due at
}

type stopReason uint8

const (
	stopIdle   stopReason = iota // nothing pending, no facets
	stopQuit                     // host.quit()
	stopPaused                   // paused, and nothing can resume it
	stopUntil                    // --until reached
)

func newSession(ctx context.Context, o runOptions, flushEach bool) *session {
	s := &session{o: o}
	var clock temporal.Clock = temporal.Fixed(o.Start)
	if o.Realtime {
		clock = temporal.System()
	}
	s.host = hostservices.New(clock)
	s.epoch = s.host.Now()

	mods := scripting.HostModules(s.host, func() {
		s.quit = true
		if s.rec != nil {
			s.rec.event(s.elapsed(), "quit")
		}
	})
	st := stateOptions{dir: dirOf(o.Script), allowIO: o.AllowIO, stdout: o.Stdout, modules: mods}
	if !o.Realtime {
		// os.time, os.date and os.clock read the host's virtual clock.
		st.now = func() time.Time { return s.host.Now().Time() }
		st.cpu = func() float64 { return s.elapsed().Std().Seconds() }
	}
	if o.Trace != traceOff || o.Timeline != "" {
		s.rec = newRecorder(o.Trace, o.traceOut, flushEach, o.Timeline != "")
		s.host.Scheduler().SetObserver(func(f sched.Fire) {
			d, _ := f.At.Sub(s.epoch)
			s.rec.fire(d, f)
		})
		s.host.SetObserver(hostservices.Observer{
			Frame: func(f hostservices.FrameInfo) {
				kind := "frame"
				if f.Step {
					kind = "step"
				}
				s.rec.frame(kind, f.From, f.To, f.Facets)
			},
			Paused: func(p bool) { s.rec.paused(s.elapsed(), !p, p) },
		})
	}
	s.L = newState(st)
	return s
}

func (s *session) elapsed() temporal.Duration { return s.host.Scheduler().Elapsed() }

// Next and Step make the session a driver.Steppable: the same loop runs in
// virtual time (runVirtual) and in wall time (driver.Run).

// Next reports how long until the host needs its next frame; false when the
// run is over (s.stop says why).
func (s *session) Next() (time.Duration, bool) {
	if s.quit {
		s.stop = stopQuit
		return 0, false
	}
	facets := len(s.host.Facets()) > 0
	next, pending := s.host.Scheduler().NextDeadline()
	if !facets && !pending {
		s.stop = stopIdle
		return 0, false
	}
	if s.host.Paused() {
		s.stop = stopPaused
		return 0, false
	}
	left := s.o.Until - s.elapsed()
	if left <= 0 {
		s.stop = stopUntil
		return 0, false
	}
	var wait temporal.Duration
	if facets {
		if !s.framing {
			// The first frame: frames fall on a grid from here.
			s.framing, s.frameDue = true, s.elapsed()+s.o.Frame
		}
		wait = s.frameDue - s.elapsed()
	} else {
		s.framing = false
		d, _ := next.Sub(s.host.Now())
		wait = max(d, 0)
	}
	return min(wait, left).Std(), true
}

// Step runs one frame of d (cut to end at --until): the jobs due within it,
// then the facets.
func (s *session) Step(d time.Duration) error {
	dd := max(min(temporal.Duration(d), s.o.Until-s.elapsed()), 0)
	if err := s.host.UpdateBy(dd); err != nil {
		return err
	}
	if s.framing && s.elapsed() >= s.frameDue {
		// Keep the frame rate: the next frame is due one frame after this
		// one was due, not after it woke (in wall time, wake-ups are late).
		// More than a frame behind, start the grid again from now.
		s.frameDue += s.o.Frame
		if s.frameDue <= s.elapsed() {
			s.frameDue = s.elapsed() + s.o.Frame
		}
	}
	return nil
}

// runVirtual is the loop of driver.Run without the sleeping: each wait is
// passed at once.
func (s *session) runVirtual(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		wait, ok := s.Next()
		if !ok {
			return nil
		}
		if err := s.Step(wait); err != nil {
			return err
		}
	}
}

// drive runs the host after the main chunk until the run is over, then
// says on stderr why it stopped when that is not the plain end.
func (s *session) drive(ctx context.Context) error {
	var err error
	if s.quit {
		s.stop = stopQuit
	} else if s.o.Realtime {
		err = driver.Run(ctx, s, driver.System(), driver.Options{})
	} else {
		err = s.runVirtual(ctx)
	}
	if err != nil {
		return s.jobError(err)
	}
	pending := s.pendingSummary()
	at := s.elapsed().DecimalSeconds()
	clock := "virtual time"
	if s.o.Realtime {
		clock = "wall time"
	}
	switch s.stop {
	case stopPaused:
		fmt.Fprintf(s.o.Stderr, "metronome run: the host is paused at %s of %s and nothing can resume it; stopping with %s\n", at, clock, pending)
	case stopUntil:
		fmt.Fprintf(s.o.Stderr, "metronome run: stopped at --until %s (%s of %s) with %s\n", s.o.UntilText, at, clock, pending)
	}
	return nil
}

func (s *session) pendingSummary() string {
	jobs, facets := s.host.Scheduler().Count(), len(s.host.Facets())
	plural := func(n int, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	return plural(jobs, "job") + " pending and " + plural(facets, "facet") + " registered"
}

// jobError turns an error out of a frame into what run prints: a Lua error
// as "file:line: message", its traceback, and which job or facet raised it
// at what time.
func (s *session) jobError(err error) error {
	var api *lua.ApiError
	if !errors.As(err, &api) {
		return err
	}
	e, ok := luaError(s.L, err).(*scriptError)
	if !ok {
		return err
	}
	var je *sched.JobError
	var fe *hostservices.FacetError
	switch {
	case errors.As(err, &je):
		in := fmt.Sprintf("%s #%d", je.Kind, je.ID)
		if je.Label != "" {
			in += " scheduled at " + je.Label
		}
		e.context = fmt.Sprintf("(in %s, at %s)", in, s.elapsed().DecimalSeconds())
	case errors.As(err, &fe):
		e.context = fmt.Sprintf("(in facet %q, at %s)", fe.Name, s.elapsed().DecimalSeconds())
	}
	return e
}

// finish flushes the trace and writes the timeline, whatever the outcome.
func (s *session) finish(runErr error) error {
	if s.rec == nil {
		return nil
	}
	s.rec.end(s.elapsed(), s.host.Paused())
	if err := s.rec.flush(); err != nil {
		return err
	}
	if s.o.Timeline == "" {
		return nil
	}
	info := timelineInfo{
		Script: s.o.Script,
		Start:  s.epoch,
		End:    s.elapsed(),
		Clock:  "virtual time",
		Ended:  s.endText(runErr),
	}
	if s.o.Realtime {
		info.Clock = "wall time"
	}
	return writeTimeline(s.o.Timeline, s.rec, info)
}

func (s *session) endText(runErr error) string {
	switch {
	case runErr != nil:
		msg := runErr.Error()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return "error: " + msg
	case s.stop == stopQuit:
		return "host.quit()"
	case s.stop == stopPaused:
		return "paused"
	case s.stop == stopUntil:
		return "--until " + s.o.UntilText
	}
	return "nothing pending"
}

var _ driver.Steppable = (*session)(nil)

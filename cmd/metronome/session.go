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
// After the main chunk a hostservices.Runner moves the host from due item
// to due item: with no facets registered, straight to the next deadline;
// with facets, frame by frame at --frame. It stops when nothing is pending
// and no facet is registered, when the script called host.quit(), when the
// host is paused (nothing could resume it), or at --until.
type session struct {
	o       runOptions
	host    *hostservices.Host
	runner  *hostservices.Runner
	epoch   temporal.Instant
	L       *lua.LState
	rec     *recorder   // nil without --trace and --timeline
	cluster *runCluster // nil without --cluster
}

func newSession(ctx context.Context, o runOptions, flushEach bool, cl *runCluster) *session {
	s := &session{o: o, cluster: cl}
	var clock temporal.Clock = temporal.Fixed(o.Start)
	if o.Realtime {
		clock = temporal.System()
	}
	s.host = hostservices.New(clock)
	s.epoch = s.host.Now()
	var err error
	s.runner, err = hostservices.NewRunner(s.host, hostservices.RunnerOptions{Frame: o.Frame, Until: o.Until})
	if err != nil {
		panic(err) // runScript makes Frame and Until positive
	}

	mods := scripting.HostModules(s.host, func() {
		s.runner.Quit()
		if s.rec != nil {
			s.rec.event(s.elapsed(), "quit")
		}
	})
	st := stateOptions{dir: dirOf(o.Script), fennel: scripting.FennelCompiler(o.Fennel, o.Script), allowIO: o.AllowIO, stdout: o.Stdout, modules: mods, seed: o.Seed, budgets: o.Budgets, ctx: ctx}
	if cl != nil {
		cl.s, st.cluster = s, cl
	}
	if !o.Realtime {
		// os.time, os.date and os.clock read the host's virtual clock.
		st.now = func() time.Time { return s.host.Now().Time() }
		st.cpu = func() float64 { return s.elapsed().Std().Seconds() }
		// A scheduler made without a clock starts where the host is; the
		// wall clock only with --allow-wallclock.
		st.clock, st.allowWall = s.host, o.AllowWallClock
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
			// hs:on_error took a job's error: the run goes on, the lane
			// gets its ring.
			Failed: func(err error) {
				if je := (*sched.JobError)(nil); errors.As(err, &je) {
					s.rec.failed(s.elapsed(), je.Job.ID)
				}
			},
		})
	}
	s.L = newState(st)
	if s.rec != nil && s.rec.out != nil {
		scripting.SetLoopTrace(s.L, func(e scripting.LoopEvent) { s.rec.loop(s.elapsed(), e) })
	}
	return s
}

func (s *session) elapsed() temporal.Duration { return s.host.Scheduler().Elapsed() }

// drive runs the host after the main chunk until the run is over, then
// says on stderr why it stopped when that is not the plain end.
func (s *session) drive(ctx context.Context) error {
	var err error
	var clusterUntil bool
	r := newBudgetedRunner(s)
	if !s.o.Realtime {
		s.warnFarFirstRun()
	}
	if s.o.Realtime {
		clusterUntil, err = s.runRealtime(ctx, r)
	} else {
		err = driver.RunVirtual(ctx, r)
	}
	if err != nil {
		if je := (*sched.JobError)(nil); s.rec != nil && errors.As(err, &je) {
			s.rec.failed(s.elapsed(), je.Job.ID)
		}
		return s.jobError(err)
	}
	pending := s.pendingSummary()
	if clusterUntil {
		fmt.Fprintf(s.o.Stderr, "metronome run: stopped at --until %s (%s) with %s and owners claimed in the cluster\n", s.o.UntilText, s.when(), pending)
		return nil
	}
	switch s.runner.Stopped() {
	case hostservices.StopPaused:
		fmt.Fprintf(s.o.Stderr, "metronome run: the host is paused at %s and nothing can resume it; stopping with %s\n", s.when(), pending)
	case hostservices.StopUntil:
		fmt.Fprintf(s.o.Stderr, "metronome run: stopped at --until %s (%s) with %s%s\n", s.o.UntilText, s.when(), pending, s.nextPending())
		if s.host.Scheduler().Count() == 0 && len(s.host.Facets()) > 0 {
			fmt.Fprintf(s.o.Stderr, "metronome run: hint: no job was pending; only the facets registered (%s) kept the run going until --until: unregister a facet when it is done (hs:unregister(name)), or end the run with host.quit()\n",
				strings.Join(s.host.Facets(), ", "))
		}
	case hostservices.StopLastInstant:
		return fmt.Errorf("virtual time cannot go past %s, the last instant it can hold: stopped there (%s) with %s", s.host.Now(), s.when(), pending)
	}
	return nil
}

// when says how far the run is: "1.5s of virtual time".
func (s *session) when() string {
	clock := "virtual time"
	if s.o.Realtime {
		clock = "wall time"
	}
	if at := s.o.resumedAt; at > 0 && s.elapsed() >= at { // restored
		return (s.elapsed() - at).DecimalSeconds() + " of " + clock + " since the saved state's time"
	}
	return s.elapsed().DecimalSeconds() + " of " + clock
}

// nextPending names the job due first and when, "; the next is once #3
// scheduled at game.lua:12, due at 2024-03-08T07:30:00Z (in 8832d7h30m)",
// or "" with none pending.
func (s *session) nextPending() string {
	jobs := s.host.Scheduler().List()
	if len(jobs) == 0 {
		return ""
	}
	j := jobs[0]
	return fmt.Sprintf("; the next is %s, due at %s (in %s)", jobText(j), j.DueAt, humanDuration(j.DueIn))
}

// jobText names a pending job as errors do: "once #3 scheduled at
// game.lua:12".
func jobText(j sched.JobInfo) string {
	return j.String()
}

// farFirstRun is how far past --start a job's first run may be before run
// warns: a run of virtual time that long is rarely what was meant.
const farFirstRun = 365 * 24 * temporal.Hour

// warnFarFirstRun warns, once, when the job due first after the main chunk
// is due more than farFirstRun past the start (a recurrence whose dtstart
// is in a real year, under the default --start of 2000), or past the time
// a restored state moved the run to.
func (s *session) warnFarFirstRun() {
	jobs := s.host.Scheduler().List()
	if len(jobs) == 0 {
		return
	}
	j := jobs[0]
	from, err := s.o.Start.Add(s.o.resumedAt)
	if err != nil {
		return
	}
	d, err := j.DueAt.Sub(from)
	if err != nil || d <= farFirstRun {
		return
	}
	if s.o.resumedAt > 0 {
		fmt.Fprintf(s.o.Stderr, "metronome run: warning: the first job due, %s, is due at %s, %s after the saved state's time %s\n",
			jobText(j), j.DueAt, humanDuration(d), from)
		return
	}
	day := j.DueAt.String()[:len("2006-01-02")]
	fmt.Fprintf(s.o.Stderr, "metronome run: warning: the first job due, %s, is due at %s, %s after --start %s; to run from there give --start %sT00:00:00Z\n",
		jobText(j), j.DueAt, humanDuration(d), s.o.Start, day)
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
// as "file:line: message", its traceback, whose last line names the job or
// facet that raised it, and the time. The job or facet is named again only
// when what is printed does not end with that line (a message that carries
// a traceback of its own).
func (s *session) jobError(err error) error {
	e, ok := luaError(s.L, err).(*scriptError)
	if !ok {
		return err
	}
	tb, _ := scripting.Traceback(err)
	if strings.HasSuffix(e.Error(), tb[strings.LastIndexByte(tb, '\n')+1:]) {
		e.context = "(at " + s.when() + ")"
		return e
	}
	var je *sched.JobError
	var fe *hostservices.FacetError
	switch {
	case errors.As(err, &je):
		e.context = "(in " + je.Job.String() + ", at " + s.when() + ")"
	case errors.As(err, &fe):
		e.context = fmt.Sprintf("(in facet %q, at %s)", fe.Name, s.when())
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
	case s.runner.Stopped() == hostservices.StopQuit:
		return "host.quit()"
	case s.runner.Stopped() == hostservices.StopPaused:
		return "paused"
	case s.runner.Stopped() == hostservices.StopUntil:
		return "--until " + s.o.UntilText
	}
	return "nothing pending"
}

package hostservices

import (
	"github.com/metronome-rt/metronome/temporal"
)

// defaultFrame is a frame's length when RunnerOptions.Frame is zero: 1/60 s
// to the microsecond, as `metronome run` has it.
const defaultFrame = 16_667 * temporal.Microsecond

// RunnerOptions configures NewRunner. The zero value is ready to use.
type RunnerOptions struct {
	// Frame is a frame's length while facets are registered. Zero means
	// 16.667ms (60 frames a second).
	Frame temporal.Duration
	// Until, when > 0, ends the run once the host's elapsed time
	// (h.Scheduler().Elapsed(), counted from New) reaches it; the last step
	// is cut to end there exactly. Zero means no limit.
	Until temporal.Duration
}

// StopReason says why a Runner's Next reported that the run is over.
type StopReason uint8

const (
	// StopNone: the run is not over, or it ended by an error or its context.
	StopNone StopReason = iota
	// StopIdle: no job pending and no facet registered.
	StopIdle
	// StopPaused: the host is paused, and nothing the runner runs could
	// resume it.
	StopPaused
	// StopUntil: the host's elapsed time reached RunnerOptions.Until.
	StopUntil
	// StopQuit: Quit was called.
	StopQuit
	// StopLastInstant: the host's time is at the last instant it can hold
	// (int64 nanoseconds), and a facet would need another frame.
	StopLastInstant
)

func (r StopReason) String() string {
	switch r {
	case StopIdle:
		return "idle"
	case StopPaused:
		return "paused"
	case StopUntil:
		return "until"
	case StopQuit:
		return "quit"
	case StopLastInstant:
		return "last instant"
	}
	return "none"
}

// Runner moves a Host from due item to due item: with no facet registered,
// straight to the next deadline; with facets, frame by frame, on a grid of
// RunnerOptions.Frame. Next and Step make it the target of runtime/driver's
// Run, which steps it in wall time; driver.RunVirtual runs the same loop in
// virtual time, without sleeping.
//
// The grid starts one frame after the first Next that sees a facet, and
// keeps its phase: after a late step (a wall-time wake-up is never early)
// the next frame is due one frame after the previous one was due, not after
// the step. A step that leaves the host more than a frame behind starts the
// grid again from there:
//
//	frame 10ms, facets from elapsed 0, steps late by 3ms:
//	Next 10ms   Step(13ms)   elapsed 13, next frame due at 20
//	Next 7ms    Step(9ms)    elapsed 22, next frame due at 30
//	Next 8ms    Step(25ms)   elapsed 47 (past 40), next frame due at 57
//
// The host's time cannot pass the last instant it can hold (int64
// nanoseconds since 1970, and since its epoch): a step is cut to end there,
// as at Until, and no job can be due after it.
//
// The run is over (Next reports false and Stopped says why) when Quit was
// called, when nothing is pending and no facet is registered, when the host
// is paused, at Until, or at the last instant with a facet registered,
// checked in that order before each step. A paused
// host stops the run because nothing the runner runs could resume it; with
// driver.Options.Calls open, driver.Run then waits for a call, which may
// resume the host and so the run.
//
// A Runner belongs to the goroutine of its host.
type Runner struct {
	h     *Host
	frame temporal.Duration
	until temporal.Duration // 0: no limit

	quit     bool
	stop     StopReason
	framing  bool              // facets are registered: the host runs per frame
	frameDue temporal.Duration // the elapsed time the next frame is due at
}

// NewRunner returns a runner of h. A negative Frame or Until is a
// *temporal.OptionError. NewRunner panics if h is nil.
func NewRunner(h *Host, opts RunnerOptions) (*Runner, error) {
	if h == nil {
		panic("hostservices.NewRunner: nil host")
	}
	if opts.Frame < 0 {
		return nil, &temporal.OptionError{Method: "NewRunner", Param: "opts.Frame", Want: "a duration >= 0", Got: opts.Frame}
	}
	if opts.Until < 0 {
		return nil, &temporal.OptionError{Method: "NewRunner", Param: "opts.Until", Want: "a duration >= 0", Got: opts.Until}
	}
	if opts.Frame == 0 {
		opts.Frame = defaultFrame
	}
	return &Runner{h: h, frame: opts.Frame, until: opts.Until}, nil
}

// Quit ends the run: from now on Next reports false, with StopQuit. A job or
// facet that calls it does not stop its own frame. Pass it as the quit
// function of scripting.HostModules to let scripts end the run.
func (r *Runner) Quit() { r.quit = true }

// Stopped reports why the last call to Next reported false, or StopNone if
// it reported true (or Next has not been called).
func (r *Runner) Stopped() StopReason { return r.stop }

// Next reports how long after the host's current time it needs its next
// step: the time to its next deadline, or to the next frame while facets
// are registered, cut to end at Until. It only asks; Step moves the host. ok is false when the run is over;
// Stopped then says why.
func (r *Runner) Next() (wait temporal.Duration, ok bool) {
	next, pending := r.h.s.NextDeadline()
	facets := len(r.h.facets) > 0
	elapsed := r.h.s.Elapsed()
	switch {
	case r.quit:
		r.stop = StopQuit
	case !facets && !pending:
		r.stop = StopIdle
	case r.h.paused:
		r.stop = StopPaused
	case r.until > 0 && elapsed >= r.until:
		r.stop = StopUntil
	case facets && r.h.room() == 0:
		r.stop = StopLastInstant
	default:
		r.stop = StopNone
	}
	if r.stop != StopNone {
		return 0, false
	}
	var d temporal.Duration
	if facets {
		if !r.framing {
			r.framing, r.frameDue = true, elapsed+r.frame
		}
		d = r.frameDue - elapsed
	} else {
		r.framing = false
		d, _ = next.Sub(r.h.Now())
	}
	if r.until > 0 {
		d = min(d, r.until-elapsed)
	}
	d = min(d, r.h.room())
	return max(d, 0), true
}

// Step runs one frame of elapsed with UpdateBy (cut to end at Until or at
// the last instant the host's time can hold): the
// jobs due within it, then the facets. While the host is paused it runs
// nothing, as UpdateBy does. A negative elapsed counts as zero.
// The frame's error, if any, is returned as UpdateBy returns it.
func (r *Runner) Step(elapsed temporal.Duration) error {
	d := max(elapsed, 0)
	if r.until > 0 {
		d = max(min(d, r.until-r.h.s.Elapsed()), 0)
	}
	d = min(d, r.h.room())
	if err := r.h.UpdateBy(d); err != nil {
		return err
	}
	if now := r.h.s.Elapsed(); r.framing && now >= r.frameDue {
		r.frameDue += r.frame
		if r.frameDue <= now {
			r.frameDue = now + r.frame
		}
	}
	return nil
}

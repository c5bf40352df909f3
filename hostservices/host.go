package hostservices

import (
	"errors"
	"fmt"
	"math"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// ErrNameTaken is wrapped by Register when the name is already registered.
var ErrNameTaken = errors.New("a facet with this name is already registered")

// FacetError wraps the error a facet returned from Update.
type FacetError struct {
	Name string // the facet's registered name
	Err  error
}

func (e *FacetError) Error() string { return fmt.Sprintf("facet %q: %v", e.Name, e.Err) }

func (e *FacetError) Unwrap() error { return e.Err }

// Facet is a part of the host that runs once per frame, after the frame's
// scheduled jobs. deltaMs is the frame's delta in milliseconds. A non-nil
// error stops the frame and is returned, in a *FacetError, by the call that
// ran it.
type Facet interface {
	Update(deltaMs float64) error
}

// FacetFunc adapts a function to Facet.
type FacetFunc func(deltaMs float64) error

// Update calls f(deltaMs).
func (f FacetFunc) Update(deltaMs float64) error { return f(deltaMs) }

// Host owns a typed scheduler and a facet registry. The zero value is not
// usable; call New.
type Host struct {
	s      *sched.Scheduler
	jobs   *sched.Group
	in     []sched.JobOption // InGroup(jobs)
	facets []*entry          // registration order; removed entries are dropped at once
	byName map[string]*entry
	paused bool
	busy   bool // a frame is running
	obs    Observer

	onError func(error) error // the error policy; nil: errors stop the frame
}

// FrameInfo describes one frame a host ran: an update that was not paused,
// or a step.
type FrameInfo struct {
	Step     bool              // Step or StepBy, not Update or UpdateBy
	From, To temporal.Duration // the host's elapsed time when the frame began and ended
	Facets   []string          // the facets that ran, in order
}

// Observer sees what a host does, for traces and timelines. Nil fields are
// skipped; an unset Observer costs nothing.
type Observer struct {
	// Frame is called after each frame whose jobs and facets all ran (a
	// job or facet whose error the host's error handler took counts as run).
	Frame func(FrameInfo)
	// Paused is called when SetPaused changes the host's state.
	Paused func(paused bool)
	// Failed is called with each error the host's error handler takes (a
	// *sched.JobError or a *FacetError), before the handler; an error that
	// stops the frame comes out of Update or Step instead.
	Failed func(err error)
}

// SetObserver installs o, replacing any earlier one.
func (h *Host) SetObserver(o Observer) { h.obs = o }

type entry struct {
	name    string
	f       Facet
	removed bool // unregistered: a frame that listed it skips it
}

// New returns a running (not paused) host whose scheduler's epoch, and Now,
// is clock.Now(). New panics if clock is nil.
func New(clock temporal.Clock) *Host {
	if clock == nil {
		panic("hostservices.New: nil clock")
	}
	g := &sched.Group{Name: "app-host"}
	return &Host{s: sched.New(clock), jobs: g, in: []sched.JobOption{sched.InGroup(g)}, byName: map[string]*entry{}}
}

// Scheduler returns the host's scheduler: the one timeline that Update and
// Step move. Other layers add jobs to it through groups of their own
// (compat.New(h.Scheduler())); moving its time directly (Advance, Update)
// bypasses pause and facets.
func (h *Host) Scheduler() *sched.Scheduler { return h.s }

// Jobs returns the group that holds the host's own typed jobs: what
// ScheduleOnce, ScheduleEvery and ScheduleRecurrence add and Clear removes.
func (h *Host) Jobs() *sched.Group { return h.jobs }

// with is opts and the host's group.
func (h *Host) with(opts []sched.JobOption) []sched.JobOption {
	if len(opts) == 0 {
		return h.in
	}
	return append(opts[:len(opts):len(opts)], h.in[0])
}

// ScheduleOnce runs fn once, delay after Now(); see sched.Scheduler.
func (h *Host) ScheduleOnce(delay temporal.Duration, fn func() error, opts ...sched.JobOption) (sched.Handle, error) {
	return h.s.ScheduleOnce(delay, fn, h.with(opts)...)
}

// ScheduleEvery runs fn as e says, by default every e.Interval from
// Now()+e.Interval; see sched.Scheduler.
func (h *Host) ScheduleEvery(e sched.Every, fn func() error, opts ...sched.JobOption) (sched.Handle, error) {
	return h.s.ScheduleEvery(e, fn, h.with(opts)...)
}

// ScheduleRecurrence fires fn at each occurrence of r not before Now(),
// with the occurrence's instant and index; see sched.Scheduler.
func (h *Host) ScheduleRecurrence(r sched.Recurrence, fn func(at temporal.Instant, index int) error, opts ...sched.JobOption) (sched.Handle, error) {
	return h.s.ScheduleRecurrence(r, fn, h.with(opts)...)
}

// Clear deactivates the host's own pending jobs. Jobs other groups put on
// the scheduler (compatibility timers) and the facets stay. Called from a
// job, it stops the host's jobs due at the same deadline.
func (h *Host) Clear() error { return h.s.Clear(h.jobs) }

// Register adds f under name, after the facets registered so far. A name
// already taken is an error wrapping ErrNameTaken; an empty name or a nil f
// is a *temporal.OptionError. Registered during a frame, f first runs in the
// next frame.
func (h *Host) Register(name string, f Facet) error {
	if name == "" {
		return &temporal.OptionError{Method: "Register", Param: "name", Want: "a non-empty string", Got: `""`}
	}
	if f == nil {
		return &temporal.OptionError{Method: "Register", Param: "f", Want: "a facet", Got: "nil"}
	}
	if ff, ok := f.(FacetFunc); ok && ff == nil {
		return &temporal.OptionError{Method: "Register", Param: "f", Want: "a facet", Got: "nil FacetFunc"}
	}
	if _, taken := h.byName[name]; taken {
		return &sched.CallError{Method: "Register", Err: fmt.Errorf("facet %q: %w", name, ErrNameTaken)}
	}
	e := &entry{name: name, f: f}
	h.facets = append(h.facets, e)
	h.byName[name] = e
	return nil
}

// Unregister removes the facet registered under name and reports whether
// there was one. Unregistered during a frame, it does not run later in that
// frame.
func (h *Host) Unregister(name string) bool {
	e, ok := h.byName[name]
	if !ok {
		return false
	}
	e.removed = true
	delete(h.byName, name)
	for i, x := range h.facets {
		if x == e {
			// A new slice, so a frame iterating the old one is undisturbed.
			h.facets = append(h.facets[:i:i], h.facets[i+1:]...)
			break
		}
	}
	return true
}

// Facets returns the registered facet names in registration order.
func (h *Host) Facets() []string {
	out := make([]string, len(h.facets))
	for i, e := range h.facets {
		out[i] = e.name
	}
	return out
}

// SetPaused pauses or resumes the host. While paused, Update checks its
// delta and that it is not called from inside the host, and does nothing
// else; Step still runs. It takes effect from the
// next frame.
func (h *Host) SetPaused(p bool) {
	was := h.paused
	h.paused = p
	if was != p && h.obs.Paused != nil {
		h.obs.Paused(p)
	}
}

// Paused reports whether the host is paused.
func (h *Host) Paused() bool { return h.paused }

// Now returns the host's current instant: its epoch plus the time its
// frames advanced, or, while a job runs, that job's deadline.
func (h *Host) Now() temporal.Instant { return h.s.Now() }

// Update runs one frame of deltaMs milliseconds unless the host is paused:
// the scheduled jobs due within it first, in (deadline, creation) order, then
// the facets in registration order, each given deltaMs. While paused it
// checks its call as an unpaused one would and returns: paused updates
// advance nothing and nothing accumulates for later. deltaMs must be
// finite and >= 0 (temporal.Millis); it is rounded to the nearest
// nanosecond once.
func (h *Host) Update(deltaMs float64) error {
	d, err := h.millis("Update", deltaMs)
	if err != nil {
		return err
	}
	if h.paused {
		return h.canRun("Update")
	}
	return h.frame("Update", d, deltaMs)
}

// Step runs one frame of deltaMs milliseconds as Update does, even while
// the host is paused. It does not change whether the host is paused.
func (h *Host) Step(deltaMs float64) error {
	d, err := h.millis("Step", deltaMs)
	if err != nil {
		return err
	}
	return h.frame("Step", d, deltaMs)
}

// UpdateBy is Update with an exact duration d >= 0; facets get d in
// milliseconds as a float.
func (h *Host) UpdateBy(d temporal.Duration) error {
	if err := h.checkDuration("UpdateBy", d); err != nil {
		return err
	}
	if h.paused {
		return h.canRun("UpdateBy")
	}
	return h.frame("UpdateBy", d, d.Milliseconds())
}

// StepBy is Step with an exact duration d >= 0.
func (h *Host) StepBy(d temporal.Duration) error {
	if err := h.checkDuration("StepBy", d); err != nil {
		return err
	}
	return h.frame("StepBy", d, d.Milliseconds())
}

func (h *Host) millis(name string, ms float64) (temporal.Duration, error) {
	d, ok := temporal.Millis(ms)
	if !ok {
		return 0, &temporal.OptionError{Method: name, Param: "deltaMs", Want: temporal.WantMillis, Got: ms}
	}
	if h.tooLong(d) {
		return 0, &temporal.OptionError{Method: name, Param: "deltaMs", Want: "a number of milliseconds that keeps the host's time within int64 nanoseconds", Got: ms}
	}
	return d, nil
}

func (h *Host) checkDuration(name string, d temporal.Duration) error {
	if d < 0 {
		return &temporal.OptionError{Method: name, Param: "d", Want: "a duration >= 0", Got: d}
	}
	if h.tooLong(d) {
		return &temporal.OptionError{Method: name, Param: "d", Want: "a duration that keeps the host's time within int64 nanoseconds", Got: d}
	}
	return nil
}

// tooLong reports whether a frame of d >= 0 would take the host's time
// past int64 nanoseconds: both the elapsed time and the instant (epoch +
// elapsed) must stay within them, as the scheduler requires of deadlines.
func (h *Host) tooLong(d temporal.Duration) bool { return d > h.room() }

// room is the longest frame tooLong allows.
func (h *Host) room() temporal.Duration {
	elapsed := int64(h.s.Elapsed())
	epoch := h.s.Now().UnixNano() - elapsed
	used := elapsed + max(epoch, 0)
	return temporal.Duration(math.MaxInt64 - used)
}

// canRun returns the error a frame would fail with before it moves time:
// called from inside the host, or on a dropped scheduler.
func (h *Host) canRun(name string) error {
	if h.busy || h.s.Running() {
		return &sched.CallError{Method: name, Err: sched.ErrReentrant}
	}
	if h.s.Dropped() {
		return &sched.CallError{Method: name, Err: sched.ErrDropped}
	}
	return nil
}

// frame advances the scheduler by d, then runs the facets listed now.
func (h *Host) frame(name string, d temporal.Duration, deltaMs float64) error {
	if err := h.canRun(name); err != nil {
		return err
	}
	h.busy = true
	defer func() { h.busy = false }()
	// The frame's facets are those registered when it starts. Register and
	// Unregister never edit this list in place (Unregister makes a new one;
	// Register appends past its end), so facets that jobs or facets add wait
	// for the next frame, and nothing shifts under the loop.
	facets := h.facets
	onErr := h.onError // the frame's policy: set during it, it waits for the next
	if onErr != nil && h.obs.Failed != nil {
		onErr = h.observed(onErr)
	}
	from := h.s.Elapsed()
	if err := h.advance(d, onErr); err != nil {
		return err
	}
	var ran []string
	for _, e := range facets {
		if e.removed {
			continue
		}
		if err := e.f.Update(deltaMs); err != nil {
			if err := facetFailed(onErr, &FacetError{Name: e.name, Err: err}); err != nil {
				return err
			}
		}
		if h.obs.Frame != nil {
			ran = append(ran, e.name)
		}
	}
	if h.obs.Frame != nil {
		h.obs.Frame(FrameInfo{Step: name == "Step" || name == "StepBy", From: from, To: h.s.Elapsed(), Facets: ran})
	}
	return nil
}

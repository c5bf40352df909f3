package sched

import (
	"errors"

	"github.com/metronome-rt/metronome/temporal"
)

// ErrNotResettable is returned, wrapped in a *CallError, by Reset on a
// handle whose job cannot be scheduled again: a recurrence (its
// occurrences are fixed by its set), a job with options scheduled without
// Rearmable (its handle does not remember it), or the zero Handle.
var ErrNotResettable = errors.New("the job cannot be reset")

// ScheduleOnceAt runs fn once at the instant at. at equal to Now() is due
// now, as a zero delay is; at before Now() is an *OptionError naming both
// instants, since the moment has passed.
func (s *Scheduler) ScheduleOnceAt(at temporal.Instant, fn Func, opts ...JobOption) (Handle, error) {
	const name = "ScheduleOnceAt"
	if err := s.check(name); err != nil {
		return Handle{}, err
	}
	now := s.Now()
	if at.Before(now) {
		return Handle{}, &OptionError{Method: name, Param: "at", Want: "an instant not before now (" + now.String() + ")", Got: at}
	}
	d, err := at.Sub(now)
	if err != nil {
		return Handle{}, &OptionError{Method: name, Param: "at", Err: err}
	}
	return s.scheduleOnce(name, "at", d, fn, opts)
}

// Every says when an interval job fires.
type Every struct {
	Interval temporal.Duration // > 0
	// Delay is the first due time after Now(), which anchors the grid: the
	// job fires at Now()+Delay, then every Interval. nil means Interval;
	// 0 is due now.
	Delay *temporal.Duration
	// Count is how many times the job fires in all, catch-up included (a
	// Jump's single fire counts once); then it is inactive. 0: no end.
	Count int
}

// ScheduleEveryWith runs fn as e says: first at Now()+e.Delay, then every
// e.Interval, at most e.Count times. Within one call that moves time it
// fires once for each period that call passes.
func (s *Scheduler) ScheduleEveryWith(e Every, fn Func, opts ...JobOption) (Handle, error) {
	return s.scheduleEvery("ScheduleEveryWith", "e.Interval", e, fn, opts)
}

func (s *Scheduler) scheduleEvery(name, ivParam string, e Every, fn Func, opts []JobOption) (Handle, error) {
	if err := s.check(name); err != nil {
		return Handle{}, err
	}
	if e.Interval <= 0 {
		return Handle{}, &OptionError{Method: name, Param: ivParam, Want: "a duration > 0", Got: e.Interval}
	}
	delay, dParam := e.Interval, ivParam
	if e.Delay != nil {
		delay, dParam = *e.Delay, "e.Delay"
	}
	if delay < 0 {
		return Handle{}, &OptionError{Method: name, Param: dParam, Want: "a duration >= 0", Got: delay}
	}
	if e.Count < 0 {
		return Handle{}, &OptionError{Method: name, Param: "e.Count", Want: "an integer >= 0", Got: e.Count}
	}
	if fn == nil {
		return Handle{}, nilFunc(name)
	}
	at, err := s.deadline(name, dParam, delay)
	if err != nil {
		return Handle{}, err
	}
	tag := uint64(tagEvery)
	ext := s.newExt(opts)
	if e.Count > 0 {
		tag, ext.left = tagEveryCount, e.Count
	}
	f := jobFn{fn, int64(e.Interval)}
	h, err := s.pushExt(name, at, tag, ext, f)
	if err == nil && ext.rearm {
		h.re = ref(newRearm(h.ID(), ext, f, e.Count))
	}
	return h, err
}

// rearm is what Reset schedules again: a once or every job's callback,
// period and count, its options, and the id it keeps.
type rearm struct {
	id    uint64
	f     jobFn // interval 0: a one-shot
	count int
	group *Group
	label string
	name  string
	data  any
}

func newRearm(id uint64, e *jobExt, f jobFn, count int) *rearm {
	return &rearm{id: id, f: f, count: count, group: e.group, label: e.label, name: e.name, data: e.data}
}

// Due returns the job's next deadline; ok is false when the handle is
// inactive. Inside an interval's own callback it is the next tick's, since
// the job was re-queued before its callback ran.
func (h Handle) Due() (at temporal.Instant, ok bool) {
	when, ok := h.when()
	if !ok {
		return temporal.Instant{}, false
	}
	return temporal.FromUnixNano(h.s.epoch.UnixNano() + when), true
}

// Remaining returns the time from Now() to the job's next deadline, never
// negative (a job a Jump made due reports 0); ok is false when the handle
// is inactive.
func (h Handle) Remaining() (d temporal.Duration, ok bool) {
	when, ok := h.when()
	if !ok {
		return 0, false
	}
	return temporal.Duration(max(when-h.s.now, 0)), true
}

func (h Handle) when() (int64, bool) {
	if h.s == nil {
		return 0, false
	}
	when, key, _, ok := h.s.q.Get(h.qid)
	return when, ok && key == h.key
}

// Reset re-arms the job, as time.Timer.Reset does: it cancels it (when
// pending) and schedules it again, with the same callback, options and id,
// due d after Now() (an interval: first at Now()+d, then on that grid,
// with its whole count again). It works on a one-shot that fired or was
// cancelled. The handle must remember the job: a one-shot scheduled
// without options does; a job with options (every interval has some) does
// when scheduled with Rearmable, and the Reset job keeps it. The new job is ordered as if scheduled at the call: among
// jobs due at one instant it runs after those scheduled before the Reset.
// h then refers to the new job; other copies of h refer to the old one and
// report inactive. d must be >= 0. A recurrence's handle and the zero
// Handle return a *CallError wrapping ErrNotResettable; bad arguments
// change nothing.
func (h *Handle) Reset(d temporal.Duration) error {
	const name = "Handle.Reset"
	s := h.s
	if s == nil || h.re == nil {
		return &CallError{Method: name, Err: ErrNotResettable}
	}
	if err := s.check(name); err != nil {
		return err
	}
	if d < 0 {
		return &OptionError{Method: name, Param: "d", Want: "a duration >= 0", Got: d}
	}
	at, err := s.deadline(name, "d", d)
	if err != nil {
		return err
	}
	var r *rearm
	if h.key&tagMask == tagOnce {
		r = &rearm{id: h.ID(), f: jobFn{fn: refFunc(h.re)}}
	} else {
		r = (*rearm)(h.re)
	}
	live := h.live()
	if !live && s.q.Len() >= s.maxPending {
		return &CallError{Method: name, Err: ErrTooManyPending}
	}
	h.Cancel()
	e := s.newExt(nil)
	e.group, e.label, e.name, e.data, e.id = r.group, r.label, r.name, r.data, r.id
	tag := uint64(tagOnceExt)
	if r.f.interval > 0 {
		tag = tagEvery
		if r.count > 0 {
			tag, e.left = tagEveryCount, r.count
		}
	}
	nh, err := s.pushExt(name, at, tag, e, r.f)
	if err != nil {
		return err
	}
	nh.re = ref(r)
	*h = nh
	return nil
}

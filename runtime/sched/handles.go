package sched

import (
	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// Handle refers to one job: a once, every or recurrence job, a spawned
// task, or one generation of a keyed timer. The zero Handle refers to
// nothing: it is inactive and its methods do nothing. Handles stay valid
// after the job ends; they never affect a later job.
type Handle struct {
	s   *Scheduler
	key uint64 // the job's queue seq: creation number and tag
	qid timerq.ID
	// re is what the handle keeps beyond the queue entry: the callback of
	// a plain one-shot (tag tagOnce), the *rearm of a Rearmable once or
	// every job, the *timer or *task of a keyed timer or a spawned task,
	// or nil.
	re ref
}

var errNotResettable = errorString("the job cannot be reset: a recurrence, a spawned task, a keyed timer, a job with options scheduled without Rearmable, or the zero Handle")

// ID returns the job's id: its creation number, as List shows it. Reset
// keeps it.
func (h Handle) ID() uint64 {
	switch h.key & tagMask {
	case tagOnceExt, tagEvery, tagEveryCount:
		if h.re != nil {
			return (*rearm)(h.re).id
		}
	}
	return h.key >> tagBits
}

// Key returns a keyed timer's key and generation: 1 for the key's first
// registration under its owner, one more for each registration after it.
// Other jobs have none: "" and 0.
func (h Handle) Key() (key string, generation uint64) {
	if t := h.timer(); t != nil {
		return t.tick.Key, t.tick.Generation
	}
	return "", 0
}

func (h Handle) timer() *timer {
	if h.key&tagMask != tagTimer || h.re == nil {
		return nil
	}
	return (*timer)(h.re)
}

func (h Handle) task() *task {
	if h.key&tagMask != tagSpawn || h.re == nil {
		return nil
	}
	return (*task)(h.re)
}

// live reports whether the handle's job is still queued: its queue ID
// holds an entry with the job's key (IDs are reused, keys are not).
func (h Handle) live() bool {
	if h.s == nil {
		return false
	}
	_, key, _, ok := h.s.q.Get(h.qid)
	return ok && key == h.key
}

// Active reports whether the job will run again: a one-shot that has not
// fired, an interval or recurrence with occurrences left, a task that has
// not ended (a step runs or it waits), a keyed timer's generation not
// cancelled, superseded or dropped.
func (h Handle) Active() bool {
	switch h.key & tagMask {
	case tagTimer:
		t := h.timer()
		return t != nil && !t.canceled && !t.s.dropped
	case tagSpawn:
		t := h.task()
		return t != nil && (t.live || t.queued())
	}
	return h.live()
}

// Cancel stops future callbacks of the job and reports whether it stopped
// pending work, as time.Timer.Stop does: false for a one-shot that already
// fired, a job already cancelled and the zero Handle. It never interrupts
// a callback that is running: called from inside an interval's own
// callback it ends the rest of that interval's catch-up (and returns
// true); a task's running step ends the task when it returns; a keyed
// timer's running handler ends the generation when it returns (its
// TimerOptions.OnCancel runs then, or at once when no handler runs). It
// works on a dropped scheduler too (and returns false: Drop cancelled
// everything).
func (h Handle) Cancel() bool { return h.stop(EventCancel) }

// Drop is Cancel, reported to the observer as EventDrop rather than
// EventCancel (a task reports neither).
func (h Handle) Drop() bool { return h.stop(EventDrop) }

func (h Handle) stop(ev Event) bool {
	if h.s == nil {
		return false
	}
	if tag := h.key & tagMask; tag == tagTimer || tag == tagSpawn {
		return h.stopOwned(ev)
	}
	// The heap's RemoveSeq inlines here; it misses on the wheel (see queue).
	p, ok := h.s.q.h.RemoveSeq(h.qid, h.key)
	if !ok && h.s.q.w != nil {
		p, ok = h.s.q.w.RemoveSeq(h.qid, h.key)
	}
	if ok {
		if h.s.observer != nil {
			h.s.observeStop(ev, h.key, p)
		}
		h.s.released(h.qid, h.key, p)
	}
	return ok
}

// stopOwned stops a keyed timer's generation or a task, which track their
// own queue entries.
func (h Handle) stopOwned(ev Event) bool {
	if t := h.timer(); t != nil {
		return t.stop(ev)
	}
	if t := h.task(); t != nil {
		return t.cancel()
	}
	return false
}

// Due returns the job's next deadline and the time from Now() to it, never
// negative (a job a Jump made due reports 0); ok is false when nothing of
// the job is pending. Inside an interval's own callback it is the next
// tick's, since the job was re-queued before its callback ran. A task's is
// when it resumes, while it waits. A keyed timer's is its next tick's
// nominal deadline, or Now() for a late one (inside the handler, the tick
// after the one running), and there is none while its owner does not
// admit it.
func (h Handle) Due() (at temporal.Instant, left temporal.Duration, ok bool) {
	var when int64
	switch h.key & tagMask {
	case tagTimer:
		t := h.timer()
		if t == nil {
			return temporal.Instant{}, 0, false
		}
		when, ok = t.due()
	case tagSpawn:
		t := h.task()
		if t == nil || !t.queued() {
			return temporal.Instant{}, 0, false
		}
		when, _, _, ok = h.s.q.Get(t.qid)
	default:
		when, ok = h.when()
	}
	if !ok {
		return temporal.Instant{}, 0, false
	}
	return temporal.FromUnixNano(h.s.epoch.UnixNano() + when), temporal.Duration(max(when-h.s.now, 0)), true
}

func (h Handle) when() (int64, bool) {
	if h.s == nil {
		return 0, false
	}
	when, key, _, ok := h.s.q.Get(h.qid)
	return when, ok && key == h.key
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

// Reset re-arms a once or every job, as time.Timer.Reset does: it cancels
// it (when pending) and schedules it again, with the same callback,
// options and id, due d after Now() (an interval: first at Now()+d, then
// on that grid, with its whole count again). It works on a one-shot that
// fired or was cancelled. The handle must remember the job: a one-shot
// scheduled without options does; a job with options (every interval has
// some) does when scheduled with Rearmable, and the Reset job keeps it.
// The new job is ordered as if scheduled at the call: among jobs due at
// one instant it runs after those scheduled before the Reset. h then
// refers to the new job; other copies of h refer to the old one and report
// inactive. d must be >= 0. Any other job, and the zero Handle, is a
// *CallError; bad arguments change nothing.
func (h *Handle) Reset(d temporal.Duration) error {
	const name = "Handle.Reset"
	s := h.s
	tag := h.key & tagMask
	if s == nil || h.re == nil || tag == tagTimer || tag == tagSpawn {
		return &CallError{Method: name, Err: errNotResettable}
	}
	if err := s.check(name); err != nil {
		return err
	}
	if d < 0 {
		return &temporal.OptionError{Method: name, Param: "d", Want: "a duration >= 0", Got: d}
	}
	at, err := s.deadline(name, "d", d)
	if err != nil {
		return err
	}
	var r *rearm
	if tag == tagOnce {
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
	tag = tagOnceExt
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

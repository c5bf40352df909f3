package sched

import (
	"math"
	"unsafe"

	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// Kind tells what made a job.
type Kind uint8

// Job kinds, as List and traces name them.
const (
	KindOnce Kind = iota
	KindEvery
	KindRecurrence
	KindTimer // a keyed timer's tick or its running handler (keyed.go)
	KindSpawn // a spawned task waiting to resume (spawn.go)
)

func (k Kind) String() string {
	switch k {
	case KindOnce:
		return "once"
	case KindEvery:
		return "every"
	case KindRecurrence:
		return "recurrence"
	case KindTimer:
		return "timer"
	case KindSpawn:
		return "spawn"
	}
	return "unknown"
}

// Func is a once or every callback. A non-nil error stops the drain and is
// returned by the call that fired it.
type Func func() error

// RecurrenceFunc is a recurrence callback; it receives the occurrence.
type RecurrenceFunc func(Occurrence) error

// Occurrence is what a recurrence callback receives.
type Occurrence struct {
	ScheduledAt temporal.Instant // the occurrence's instant
	Index       int              // one-based within the handle
}

// A job lives in its queue slot: {deadline, key, ref, queue ID}, 32 bytes.
// The key is the creation number shifted left by tagBits, with the job's tag
// in the low bits, so it orders ties by creation and still tells the fire
// path what ref holds without a second load. ref is one word: a one-shot
// without options keeps its Func there and needs nothing else (a pending
// plain one-shot is its slot plus a 4-byte queue position, no allocation);
// every other job keeps a *jobExt there, which holds its Func.
type ref = unsafe.Pointer

const (
	tagOnce       = iota // ref is the Func
	tagOnceExt           // ref is a *jobExt
	tagEvery             // ref is a *jobExt
	tagRecurrence        // ref is a *jobExt
	tagTimer             // ref is a *Timer, whose first field is its jobExt
	tagEveryCount        // ref is a *jobExt: an every job with a count
	tagSpawn             // ref is a *Task, whose first field is its jobExt
	tagLate              // ref is a *jobExt: a restored job's catch-up (restore.go)

	tagBits = 3
	tagMask = 1<<tagBits - 1
)

// maxCreations bounds creation numbers, so that one shifted by tagBits
// still fits the queue's uint64 seq.
const maxCreations = math.MaxUint64 >> tagBits

func tagKind(tag uint64) Kind {
	switch tag {
	case tagEvery:
		return KindEvery
	case tagRecurrence:
		return KindRecurrence
	case tagTimer:
		return KindTimer
	case tagEveryCount:
		return KindEvery
	case tagSpawn:
		return KindSpawn
	}
	return KindOnce
}

// funcRef and refFunc convert between a Func and its one-word ref: a func
// value is a single pointer, so the ref keeps the closure alive for the GC
// like the Func would.
func funcRef(fn Func) ref  { return *(*ref)(unsafe.Pointer(&fn)) }
func refFunc(p ref) Func   { return *(*Func)(unsafe.Pointer(&p)) }
func refExt(p ref) *jobExt { return (*jobExt)(p) }

// jobExt holds what a job keeps beyond its slot, except its callback: a
// fire does not read it unless the job has left the queue or fails.
type jobExt struct {
	group *Group // nil: no group
	label string
	name  string // see WithName
	rec   *recurrence
	data  any    // see WithData
	id    uint64 // the id a Reset kept; 0: the key's
	left  int    // an every job with a count: fires left
	rearm bool   // see Rearmable
	kind  Kind   // tagLate: the job's kind
}

// jobFn is the callback of a once or every job with an extension, and an
// every job's period in ns. The scheduler keeps them in a table by queue ID,
// so that an interval's fire reads 16 bytes next to those of other jobs, not
// a line of its own.
type jobFn struct {
	fn       Func
	interval int64
}

type recurrence struct {
	spec   Recurrence // what it was scheduled with, for Snapshot
	fn     RecurrenceFunc
	it     *temporal.RecurrenceIterator
	limit  int // 0: none
	fired  int // occurrences delivered; the next index is fired+1
	nextAt temporal.Instant
}

// job names the job with queue key and extension e (nil for a plain
// one-shot) for errors and traces.
func (e *jobExt) job(key uint64) Job {
	j := Job{ID: key >> tagBits, Kind: tagKind(key & tagMask)}
	if e != nil {
		j.Label, j.Name = e.label, e.name
		if key&tagMask == tagLate {
			j.Kind = e.kind
		}
		if e.id != 0 {
			j.ID = e.id
		}
	}
	return j
}

// JobOption sets optional job metadata.
type JobOption func(*jobExt)

// WithLabel records where a job was scheduled (a script's file:line, say);
// traces and errors show it.
func WithLabel(label string) JobOption {
	return func(e *jobExt) { e.label = label }
}

// WithName gives a job a name of its user's choosing (a script's label
// option, "regen" say). Errors, List and traces show it beside the position
// WithLabel records: "every #3 'regen' scheduled at game.lua:14".
func WithName(name string) JobOption {
	return func(e *jobExt) { e.name = name }
}

// Rearmable makes a once or every job's handle remember how it was
// scheduled, so that Handle.Reset can schedule it again after it fired or
// was cancelled. It costs one small allocation per job; a one-shot without
// options needs no such option (its handle holds its Func).
func Rearmable() JobOption { return rearmable }

var rearmable JobOption = func(e *jobExt) { e.rearm = true }

// WithData attaches v to a job; List reports it in JobInfo.Data. A layer
// that schedules jobs on behalf of its own objects (a debouncer's keys)
// uses it to describe them.
func WithData(v any) JobOption {
	return func(e *jobExt) { e.data = v }
}

// Handle refers to one scheduled job. The zero Handle refers to nothing: it
// is inactive and its methods do nothing. Handles stay valid after the job
// ends; they never affect a later job.
type Handle struct {
	s   *Scheduler
	key uint64 // the job's queue seq: creation number and tag
	qid timerq.ID
	// re is what Reset needs: the Func of a plain one-shot (tag tagOnce),
	// else a *rearm, or nil for a recurrence.
	re ref
}

// ID returns the job's id: its creation number, as List shows it. Reset
// keeps it.
func (h Handle) ID() uint64 {
	if h.key&tagMask != tagOnce && h.re != nil {
		return (*rearm)(h.re).id
	}
	return h.key >> tagBits
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

// Active reports whether the job will fire again: a one-shot that has not
// fired, an interval or recurrence with occurrences left, none cancelled.
func (h Handle) Active() bool { return h.live() }

// Cancel stops future callbacks of the job and reports whether it stopped a
// pending one, as time.Timer.Stop does: false for a one-shot that already
// fired, a job already cancelled and the zero Handle. It does not wait for a
// callback that is running; called from inside an interval's own callback it
// ends the rest of that interval's catch-up (and returns true). It works on
// a dropped scheduler too (and returns false: Drop cancelled everything).
func (h Handle) Cancel() bool { return h.stop(EventCancel) }

// Drop cancels the job, releases what the handle holds and reports, as
// Cancel does, whether it stopped a pending job. An observer sees a drop
// rather than a cancel.
func (h Handle) Drop() bool { return h.stop(EventDrop) }

func (h Handle) stop(ev Event) bool {
	if h.s == nil {
		return false
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

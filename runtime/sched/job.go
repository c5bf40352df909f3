package sched

import (
	"math"
	"unsafe"

	"github.com/metronome-rt/metronome/temporal"
)

// Kind tells what made a job.
type Kind uint8

// Job kinds, as List and traces name them.
const (
	KindOnce Kind = iota
	KindEvery
	KindRecurrence
	KindTimer // a keyed timer's tick or its running handler
	KindSpawn // a spawned task waiting to resume
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
	tagTimer             // ref is a *timer, whose first field is its jobExt
	tagEveryCount        // ref is a *jobExt: an every job with a count
	tagSpawn             // ref is a *task, whose first field is its jobExt
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

// funcRef and refFunc convert between a callback and its one-word ref: a
// func value is a single pointer, so the ref keeps the closure alive for
// the GC like the func would.
func funcRef(fn func() error) ref { return *(*ref)(unsafe.Pointer(&fn)) }
func refFunc(p ref) func() error  { return *(*func() error)(unsafe.Pointer(&p)) }
func refExt(p ref) *jobExt        { return (*jobExt)(p) }

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
	fn       func() error
	interval int64
}

type recurrence struct {
	spec   Recurrence // what it was scheduled with, for Snapshot
	fn     func(at temporal.Instant, index int) error
	it     *temporal.RecurrenceIterator
	limit  int // 0: none
	fired  int // occurrences delivered; the next index is fired+1
	nextAt temporal.Instant
}

// job names the job with queue key and extension e (nil for a plain
// one-shot) for errors and traces.
func (e *jobExt) job(key uint64) JobInfo {
	j := JobInfo{ID: key >> tagBits, Kind: tagKind(key & tagMask)}
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

// JobOption sets optional job metadata: WithLabel, WithName, WithData,
// InGroup, Rearmable.
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
// options needs no such option (its handle holds its callback).
func Rearmable() JobOption { return rearmable }

var rearmable JobOption = func(e *jobExt) { e.rearm = true }

// WithData attaches v to a job; List reports it in JobInfo.Data. A layer
// that schedules jobs on behalf of its own objects (a debouncer's keys)
// uses it to describe them.
func WithData(v any) JobOption {
	return func(e *jobExt) { e.data = v }
}

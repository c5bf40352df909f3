package runtime

import (
	"github.com/metronome-rt/metronome/runtime/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// Kind tells what made a job.
type Kind uint8

// Job kinds, as List and traces name them.
const (
	KindOnce Kind = iota
	KindEvery
	KindRecurrence
)

func (k Kind) String() string {
	switch k {
	case KindOnce:
		return "once"
	case KindEvery:
		return "every"
	case KindRecurrence:
		return "recurrence"
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

// job is kept small: a pending one-shot is this plus its heap slot. What
// only repeating or labelled jobs need lives behind ext.
type job struct {
	timerq.Node
	// meta packs the kind (low 2 bits; here, not in ext, so the fire path
	// reads it without a second miss) and a generation bumped on release,
	// so stale handles see a mismatch. 24 bytes in all.
	meta uint32
	fn   Func
	ext  *jobExt
}

const kindBits = 2

func (j *job) kind() Kind  { return Kind(j.meta & (1<<kindBits - 1)) }
func (j *job) gen() uint32 { return j.meta >> kindBits }

type jobExt struct {
	group    *Group // nil: no group
	label    string
	interval int64 // every: period in ns
	rec      *recurrence
}

type recurrence struct {
	fn     RecurrenceFunc
	it     *temporal.RecurrenceIterator
	limit  int // 0: none
	fired  int // occurrences delivered; the next index is fired+1
	nextAt temporal.Instant
}

func (j *job) label() string { return j.ext.labelOf() }

func (e *jobExt) labelOf() string {
	if e == nil {
		return ""
	}
	return e.label
}

// JobOption sets optional job metadata.
type JobOption func(*jobExt)

// WithLabel records where a job was scheduled (a script's file:line, say);
// traces and errors show it.
func WithLabel(label string) JobOption {
	return func(e *jobExt) { e.label = label }
}

// Handle refers to one scheduled job. The zero Handle refers to nothing: it
// is inactive and its methods do nothing. Handles stay valid after the job
// ends; they never affect a later job.
type Handle struct {
	s   *Scheduler
	j   *job
	id  uint64
	gen uint32
}

// ID returns the job's id: its creation number, as List shows it.
func (h Handle) ID() uint64 { return h.id }

func (h Handle) live() bool { return h.j != nil && h.j.gen() == h.gen }

// Active reports whether the job will fire again: a one-shot that has not
// fired, an interval or recurrence with occurrences left, none cancelled.
func (h Handle) Active() bool { return h.live() && h.j.Queued() }

// Cancel stops future callbacks of the job. It is idempotent and returns
// true. It does not interrupt a callback that is running; called from
// inside an interval's own callback it ends the rest of that interval's
// catch-up. It works on a dropped scheduler too.
func (h Handle) Cancel() bool {
	if h.live() {
		h.s.release(h.j)
	}
	return true
}

// Drop cancels the job and releases what the handle holds. It is idempotent
// and returns true.
func (h Handle) Drop() bool { return h.Cancel() }

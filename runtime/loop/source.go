package loop

import (
	"cmp"
	"strconv"
	"time"
)

// Class says where in a turn the loop asks a source for work.
type Class uint8

const (
	// Turn sources run one task per turn when there is no batch, and one
	// after every batch.
	Turn Class = iota
	// Batch sources run one task as a turn's batch when no task is queued,
	// and one after every batch.
	Batch
	// Settle sources share one empty task, after which each is settled.
	Settle
	// Rendering sources run with the rendering steps.
	Rendering
)

var classNames = [...]string{"turn", "batch", "settle", "rendering"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// TaskSource is a source's rank: the loop asks sources in this order, and
// by name within one.
type TaskSource uint8

const (
	Networking TaskSource = iota
	Embedder
	PostedMessage
	// Other is every other task source, the rank scripts' sources get.
	Other
)

// SourceInfo describes a source; the loop reads it once, at registration.
type SourceInfo struct {
	Name       string
	TaskSource TaskSource
	Class      Class
	// WantsFrames says the loop must ask WantsFrame in NeedsFrame.
	WantsFrames bool
}

// A Source is work the loop pulls. Ready and Run are required; the
// interfaces below add the rest, each with the default its absence means.
//
// Obligations: Ready is true iff Run would run a task and return true,
// budgets and held aside (a source over its budget, or held, may be ready
// and run nothing until the next run or a replenish); a source woken from
// another goroutine is ready before the wake is delivered; a readiness that
// comes with time is reported as a Deadline, and the source is ready once
// the clock reaches it; Ready runs no script and allocates nothing.
type Source interface {
	Info() SourceInfo
	Ready() bool
	// Run runs one task and reports whether it ran one. An error ends the
	// run that called it with that error.
	Run() (bool, error)
}

// Deadliner is a source that becomes ready at a time: ok false means none.
type Deadliner interface {
	Deadline() (at time.Duration, ok bool)
}

// FrameWanter is a source that may want a frame (SourceInfo.WantsFrames).
type FrameWanter interface{ WantsFrame() bool }

// Liver is a source that another goroutine may make ready while Live is
// true. A source that stops being live wakes the host.
type Liver interface{ Live() bool }

// RunBeginner learns the until of every run as it begins; a budgeted
// source takes its allowance for the run here.
type RunBeginner interface{ BeginRun(until time.Duration) }

// TurnBeginner is told at the start of every turn.
type TurnBeginner interface{ BeginTurn() }

// Holder is a source that can hold the run: while Held and no timer is
// due, the run returns.
type Holder interface{ Held() bool }

// Replenisher may take more work once per wait before the clock moves, and
// reports whether it did.
type Replenisher interface{ Replenish() bool }

// Settler is told after the empty task a Settle source shared.
type Settler interface{ Settled() }

// entry is a registered source with its optional methods resolved once.
type entry struct {
	src   Source
	info  SourceInfo
	dl    Deadliner
	wf    FrameWanter
	live  Liver
	br    RunBeginner
	bt    TurnBeginner
	held  Holder
	rep   Replenisher
	settl Settler
}

func newEntry(s Source) *entry {
	e := &entry{src: s, info: s.Info()}
	e.dl, _ = s.(Deadliner)
	e.wf, _ = s.(FrameWanter)
	e.live, _ = s.(Liver)
	e.br, _ = s.(RunBeginner)
	e.bt, _ = s.(TurnBeginner)
	e.held, _ = s.(Holder)
	e.rep, _ = s.(Replenisher)
	e.settl, _ = s.(Settler)
	return e
}

func rankCompare(a, b *entry) int {
	if c := cmp.Compare(a.info.TaskSource, b.info.TaskSource); c != 0 {
		return c
	}
	return cmp.Compare(a.info.Name, b.info.Name)
}

package loop

import (
	"cmp"
	"strconv"

	"github.com/metronome-rt/metronome/temporal"
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

// SourceInfo describes a source; the loop reads it once, at registration,
// and asks sources in the order of their names.
type SourceInfo struct {
	Name  string
	Class Class
	// WantsFrames says the loop must ask the source's WantsFrame method,
	// if it has one, in NeedsFrame.
	WantsFrames bool
}

// A Source is work the loop pulls. Ready and Run are required; a source
// may add the methods of Deadliner and Settler, and the optional methods
// below, each with the default its absence means.
//
// Obligations: Ready is true iff Run would run a task and return true,
// budgets and held aside (a source over its budget, or held, may be ready
// and run nothing until the next run or a replenish); a source woken from
// another goroutine is ready before the wake is delivered; a readiness that
// comes with time is reported as a Deadline, and the source is ready once
// the clock reaches it; Ready runs no script and allocates nothing.
//
// The optional methods, found by the loop when the source is registered:
//
//	WantsFrame() bool      with SourceInfo.WantsFrames: whether it wants a frame now
//	Live() bool            another goroutine may make it ready while true; a
//	                       source that stops being live wakes the host
//	BeginRun(until temporal.Duration)
//	                       told the until of every run as it begins; a budgeted
//	                       source takes its allowance for the run here
//	BeginTurn()            told at the start of every turn
//	Held() bool            while true and no timer is due, the run returns
//	Replenish() bool       may take more work once per wait before the clock
//	                       moves; reports whether it did
type Source interface {
	Info() SourceInfo
	Ready() bool
	// Run runs one task and reports whether it ran one. An error ends the
	// run that called it with that error.
	Run() (bool, error)
}

// Deadliner is a source that becomes ready at a time: ok false means none.
type Deadliner interface {
	Deadline() (at temporal.Duration, ok bool)
}

// Settler is a Settle source told after the empty task it shared.
type Settler interface{ Settled() }

// The optional methods of a Source.
type (
	frameWanter  interface{ WantsFrame() bool }
	liver        interface{ Live() bool }
	runBeginner  interface{ BeginRun(until temporal.Duration) }
	turnBeginner interface{ BeginTurn() }
	holder       interface{ Held() bool }
	replenisher  interface{ Replenish() bool }
)

// entry is a registered source with its optional methods resolved once.
type entry struct {
	src   Source
	info  SourceInfo
	dl    Deadliner
	wf    frameWanter
	live  liver
	br    runBeginner
	bt    turnBeginner
	held  holder
	rep   replenisher
	settl Settler
}

func newEntry(s Source) *entry {
	e := &entry{src: s, info: s.Info()}
	e.dl, _ = s.(Deadliner)
	e.wf, _ = s.(frameWanter)
	e.live, _ = s.(liver)
	e.br, _ = s.(runBeginner)
	e.bt, _ = s.(turnBeginner)
	e.held, _ = s.(holder)
	e.rep, _ = s.(replenisher)
	e.settl, _ = s.(Settler)
	return e
}

func nameCompare(a, b *entry) int { return cmp.Compare(a.info.Name, b.info.Name) }

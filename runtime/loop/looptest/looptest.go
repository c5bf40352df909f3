// Package looptest has the sources and the log the loop's tests use, and
// the suite every Source should pass: a ScriptedSource (tasks a test adds;
// optionally budgeted, live, held, wanting frames, with a deadline; any
// class), a ThreadSource (a goroutine delivers after a delay, or gives up,
// then wakes the host) and a Recorder.
package looptest

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metronome-rt/metronome/runtime/loop"
	"github.com/metronome-rt/metronome/temporal"
)

// Recorder is an ordered log.
type Recorder struct{ entries []string }

// Add appends a formatted entry. A temporal.Duration is written as the
// time package writes a duration (16ms), which a log reads best.
func (r *Recorder) Add(format string, args ...any) {
	for i, a := range args {
		if d, ok := a.(temporal.Duration); ok {
			args[i] = d.Std()
		}
	}
	r.entries = append(r.entries, fmt.Sprintf(format, args...))
}

// Take returns the entries so far and empties the log.
func (r *Recorder) Take() []string {
	e := r.entries
	r.entries = nil
	return e
}

// String joins the entries with spaces.
func (r *Recorder) String() string { return strings.Join(r.entries, " ") }

// ScriptedSource is a source whose tasks a test adds. Budget > 0 makes it
// budgeted: a run takes the tasks it had when it began, plus Budget more at
// one replenish. While Hold is set and it has tasks, it is held: ready,
// running nothing. A deadline, when set, makes it ready at that time, when
// its deadline task joins the queue. A Settle source runs its tasks when
// settled.
type ScriptedSource struct {
	info   loop.SourceInfo
	clock  *loop.Clock
	tasks  []func()
	Budget int
	Hold   bool
	// LiveFlag and Frame are what Live and WantsFrame report.
	LiveFlag, Frame bool

	allowance   int
	replenished bool
	dl          temporal.Duration
	dlTask      func()
	hasDL       bool
	Settles     int
}

// NewScripted returns a source named name of class c on clock (for its
// deadline).
func NewScripted(name string, c loop.Class, clock *loop.Clock) *ScriptedSource {
	return &ScriptedSource{info: loop.SourceInfo{Name: name, Class: c}, clock: clock}
}

// WithFrames makes the source one that wants frames when Frame is set.
func (s *ScriptedSource) WithFrames() *ScriptedSource { s.info.WantsFrames = true; return s }

// Add queues a task.
func (s *ScriptedSource) Add(f func()) { s.tasks = append(s.tasks, f) }

// Pending returns the number of queued tasks.
func (s *ScriptedSource) Pending() int { return len(s.tasks) }

// SetDeadline makes the source ready at at, with f as its task then.
func (s *ScriptedSource) SetDeadline(at temporal.Duration, f func()) {
	s.dl, s.dlTask, s.hasDL = at, f, true
}

func (s *ScriptedSource) Info() loop.SourceInfo { return s.info }

func (s *ScriptedSource) Ready() bool {
	return len(s.tasks) > 0 || (s.hasDL && s.clock.Now() >= s.dl)
}

// OverBudget reports whether a budgeted source has tasks but no allowance.
func (s *ScriptedSource) OverBudget() bool {
	s.poll()
	return s.Budget > 0 && s.allowance <= 0 && len(s.tasks) > 0
}

func (s *ScriptedSource) poll() {
	if s.hasDL && s.clock.Now() >= s.dl {
		s.hasDL = false
		s.tasks = append(s.tasks, s.dlTask)
		if s.Budget > 0 {
			s.allowance++ // a deadline's task is the time's, not the queue's
		}
	}
}

func (s *ScriptedSource) Run() (bool, error) {
	s.poll()
	if len(s.tasks) == 0 || (s.Hold && s.info.Class != loop.Settle) {
		return false, nil
	}
	if s.Budget > 0 {
		if s.allowance <= 0 {
			return false, nil
		}
		s.allowance--
	}
	f := s.tasks[0]
	s.tasks = s.tasks[1:]
	f()
	return true, nil
}

func (s *ScriptedSource) Deadline() (temporal.Duration, bool) { return s.dl, s.hasDL }
func (s *ScriptedSource) WantsFrame() bool                    { return s.Frame }
func (s *ScriptedSource) Live() bool                          { return s.LiveFlag }
func (s *ScriptedSource) Held() bool                          { return s.Hold && len(s.tasks) > 0 }

func (s *ScriptedSource) BeginRun(temporal.Duration) {
	s.allowance, s.replenished = len(s.tasks), false
}

func (s *ScriptedSource) Replenish() bool {
	if s.Budget == 0 || s.replenished || len(s.tasks) <= s.allowance {
		return false
	}
	s.replenished = true
	s.allowance += s.Budget
	return true
}

// Settled runs a Settle source's tasks.
func (s *ScriptedSource) Settled() {
	s.Settles++
	for len(s.tasks) > 0 {
		f := s.tasks[0]
		s.tasks = s.tasks[1:]
		f()
	}
}

// ThreadSource is a source another goroutine makes ready: Start runs a
// goroutine that, after a delay, either delivers one task or gives up, and
// in both cases stops being live and wakes the host. Ready and Live are
// atomics, so they never lock or allocate.
type ThreadSource struct {
	name  string
	ready atomic.Bool
	live  atomic.Bool
	task  func()
	wg    sync.WaitGroup
}

// NewThread returns a thread source named name.
func NewThread(name string) *ThreadSource { return &ThreadSource{name: name} }

// Start makes the source live; after delay a goroutine delivers task (or,
// with task nil, gives up), ends liveness and calls wake.
func (t *ThreadSource) Start(delay temporal.Duration, task func(), wake func()) {
	t.task = task
	t.live.Store(true)
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		time.Sleep(delay.Std())
		if task != nil {
			t.ready.Store(true) // ready before the wake is delivered
		}
		t.live.Store(false)
		wake()
	}()
}

// Wait waits for the goroutine Start ran.
func (t *ThreadSource) Wait() { t.wg.Wait() }

func (t *ThreadSource) Info() loop.SourceInfo {
	return loop.SourceInfo{Name: t.name, Class: loop.Turn}
}
func (t *ThreadSource) Ready() bool { return t.ready.Load() }
func (t *ThreadSource) Live() bool  { return t.live.Load() }

func (t *ThreadSource) Run() (bool, error) {
	if !t.ready.CompareAndSwap(true, false) {
		return false, nil
	}
	t.task()
	return true, nil
}

// TB is the part of testing.TB the suite uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// SourceSuite checks a source's first obligation: not ready, then, after
// add, ready and it runs, then not ready once drained.
func SourceSuite(t TB, src loop.Source, add func()) {
	t.Helper()
	if src.Ready() {
		t.Fatalf("%s: ready before anything was added", src.Info().Name)
	}
	add()
	if !src.Ready() {
		t.Fatalf("%s: not ready after add", src.Info().Name)
	}
	ran, err := src.Run()
	if err != nil || !ran {
		t.Fatalf("%s: Run = %v, %v; want true, nil", src.Info().Name, ran, err)
	}
	for i := 0; src.Ready(); i++ {
		if i > 1000 {
			t.Fatalf("%s: still ready after 1000 runs", src.Info().Name)
		}
		if _, err := src.Run(); err != nil {
			t.Fatalf("%s: Run: %v", src.Info().Name, err)
		}
	}
	if src.Ready() {
		t.Fatalf("%s: ready once drained", src.Info().Name)
	}
}

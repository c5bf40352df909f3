package loop

import (
	"slices"

	"github.com/metronome-rt/metronome/runtime/internal/timerq"
	"github.com/metronome-rt/metronome/temporal"
)

// FramePeriod is the length of a frame: animation frames fall on its grid.
const FramePeriod = 16 * temporal.Millisecond

// MaxDelay is the longest timer delay, 2^31-1 ms as in HTML; the loop
// refuses longer ones instead of wrapping them.
const MaxDelay = (1<<31 - 1) * temporal.Millisecond

// nestingClamp: timers set more than clampLevel levels deep wait at least
// clampMin (HTML timer initialization steps, steps 5 to 7).
const (
	clampLevel = 5
	clampMin   = 4 * temporal.Millisecond
)

// timerRec is a timer's state beside its timerq entry, indexed by queue id.
type timerRec struct {
	fn      func(id int)
	timeout temporal.Duration // as given, before the clamp
	level   int32             // nesting level its task runs at
	id      int32
	repeat  bool
	host    bool
}

type frameCB struct {
	id int
	fn func(at temporal.Duration)
}

// A Scheduler is one agent's event loop state: its FIFO of tasks, its
// sources, its timers and its animation frame callbacks. Run, over a
// LoopHost, moves it. It belongs to one goroutine.
type Scheduler struct {
	clock *Clock

	tasks []func()
	head  int

	sources []*entry
	wantFr  []*entry // sources with WantsFrames

	timers   timerq.Heap[int32] // value: the public id
	recs     []timerRec         // by queue id
	scriptID map[int32]timerq.ID
	hostID   map[int32]timerq.ID
	lastID   [2]int32 // script, host
	seq      uint64

	level     int32 // nesting level of the running timer task; 0 outside one
	saved     []int32
	frames    []frameCB
	running   []frameCB // the frame being run
	frameAt   temporal.Duration
	lastFrame int

	hook     func() // after every task, before the host's TaskEnded
	inRun    bool
	limit    int               // the loop limit; 0: none
	limitRun bool              // limit counts the whole run, not one instant
	ran      int               // callbacks admitted under limit
	ranAt    temporal.Duration // the instant ran counts, per instant
	over     bool              // Admit refused one: runs return ErrLoopLimit
	start    temporal.Duration // a virtual clock's start, for Reset
	lastRnd  temporal.Duration // when the Rendering sources last ran
	rendered bool
}

// NewScheduler returns an empty scheduler on clock c (a virtual clock when
// c is nil).
func NewScheduler(c *Clock) *Scheduler {
	if c == nil {
		c = NewVirtualClock(0)
	}
	return &Scheduler{clock: c, start: c.now, scriptID: map[int32]timerq.ID{}, hostID: map[int32]timerq.ID{}}
}

// SetLoopLimit sets the loop limit and starts counting afresh: at most n
// callbacks (tasks, timers, frame callbacks, and what the host counts with
// Admit) run in all when perRun is set, else at most n at one instant of a
// virtual clock (a real clock's time moves by itself). Past it, Admit
// refuses the next callback, which stays queued, and Run returns
// ErrLoopLimit. n <= 0 is no limit.
func (s *Scheduler) SetLoopLimit(n int, perRun bool) {
	s.limit, s.limitRun = max(n, 0), perRun
	s.ran, s.ranAt, s.over = 0, s.clock.now, false
}

// Admit counts one callback against the loop limit before it runs. It
// reports false, and the callback must not run, when the limit is reached.
func (s *Scheduler) Admit() bool {
	if s.limit == 0 {
		return true
	}
	return s.admit()
}

func (s *Scheduler) admit() bool {
	if !s.limitRun {
		if s.clock.real {
			return true
		}
		if s.clock.now != s.ranAt {
			s.ranAt, s.ran = s.clock.now, 0
		}
	}
	if s.over || s.ran >= s.limit {
		s.over = true
		return false
	}
	s.ran++
	return true
}

// LimitReached reports whether Admit refused a callback since
// SetLoopLimit.
func (s *Scheduler) LimitReached() bool { return s.over }

// Pending returns the number of pending timers, queued tasks and animation
// frame callbacks.
func (s *Scheduler) Pending() int {
	return s.timers.Len() + s.TasksPending() + len(s.frames)
}

// Reset drops every pending timer, task and animation frame callback and
// puts a virtual clock back at its start; sources stay registered and ids
// keep counting up, so an old id never clears a new timer. It returns
// ErrReentrant from inside a run.
func (s *Scheduler) Reset() error {
	if s.inRun {
		return ErrReentrant
	}
	s.clearTimers()
	clear(s.tasks)
	s.tasks, s.head = s.tasks[:0], 0
	clear(s.frames)
	s.frames = s.frames[:0]
	s.level, s.saved = 0, s.saved[:0]
	s.rendered = false
	if !s.clock.real {
		s.clock.now = s.start
	}
	return nil
}

// Clock returns s's clock.
func (s *Scheduler) Clock() *Clock { return s.clock }

// Now returns the clock's time.
func (s *Scheduler) Now() temporal.Duration { return s.clock.Now() }

// RegisterSource adds src; the loop asks sources in the order of their
// names. A source or a name registered before is refused with
// ErrRegistered.
func (s *Scheduler) RegisterSource(src Source) error {
	e := newEntry(src)
	for _, o := range s.sources {
		if o.src == src || o.info.Name == e.info.Name {
			return ErrRegistered
		}
	}
	if e.info.Class > Rendering {
		return &temporal.OptionError{Method: "RegisterSource", Param: "Info().Class", Want: "Turn, Batch, Settle or Rendering", Got: e.info.Class}
	}
	i, _ := slices.BinarySearchFunc(s.sources, e, nameCompare)
	s.sources = slices.Insert(s.sources, i, e)
	if e.info.WantsFrames && e.wf != nil {
		s.wantFr = append(s.wantFr, e)
	}
	return nil
}

// QueueTask appends f to the FIFO: it runs in the batch of a later turn
// than any task running now.
func (s *Scheduler) QueueTask(f func()) {
	if s.head > 0 && s.head == len(s.tasks) {
		s.tasks, s.head = s.tasks[:0], 0
	}
	s.tasks = append(s.tasks, f)
}

// TasksPending returns the number of queued tasks.
func (s *Scheduler) TasksPending() int { return len(s.tasks) - s.head }

// SetTaskHook sets the function run once after every task (nil: none).
func (s *Scheduler) SetTaskHook(f func()) { s.hook = f }

// SetTimer is a script's setTimeout (repeat false) or setInterval: f runs
// after delay, at least, as HTML's timer initialization steps say. A
// negative delay is 0; set more than five levels deep (inside timers set
// by timers...), a delay under 4 ms is 4 ms. It returns the timer's id, an
// integer >= 1 in the script timers' own id space, which f is given at each
// run: one f can serve many timers. A delay over MaxDelay is refused with a
// *temporal.OptionError.
func (s *Scheduler) SetTimer(f func(id int), delay temporal.Duration, repeat bool) (int, error) {
	return s.setTimer("SetTimer", f, delay, repeat, false)
}

// setHostTimer is SetTimer for the host: never clamped, run as a task of
// its own, in an id space separate from the script's.
func (s *Scheduler) setHostTimer(f func(id int), delay temporal.Duration, repeat bool) (int, error) {
	return s.setTimer("SetHostTimer", f, delay, repeat, true)
}

func (s *Scheduler) setTimer(method string, f func(id int), delay temporal.Duration, repeat, host bool) (int, error) {
	if f == nil {
		return 0, &temporal.OptionError{Method: method, Param: "f", Want: "a function", Got: nil}
	}
	if delay > MaxDelay {
		return 0, &temporal.OptionError{Method: method, Param: "delay", Want: "at most 2^31-1 ms", Got: delay}
	}
	sp := 0
	if host {
		sp = 1
	}
	if s.lastID[sp] == 1<<31-1 {
		return 0, &temporal.OptionError{Method: method, Param: "delay", Want: "an id left (2^31-1 timers were set)", Got: delay}
	}
	s.lastID[sp]++
	id := s.lastID[sp]
	rec := timerRec{fn: f, timeout: max(delay, 0), id: id, repeat: repeat, host: host}
	at, level := s.initTimer(&rec)
	s.seq++
	q := s.timers.Push(int64(at), s.seq, id)
	rec.level = level
	for int(q) >= len(s.recs) {
		s.recs = append(s.recs, timerRec{})
	}
	s.recs[q] = rec
	if host {
		s.hostID[id] = q
	} else {
		s.scriptID[id] = q
	}
	return int(id), nil
}

// initTimer returns the due time and the nesting level of rec's next task.
func (s *Scheduler) initTimer(rec *timerRec) (temporal.Duration, int32) {
	d := rec.timeout
	if rec.host {
		return s.due(d), 0
	}
	level := s.level
	if level > clampLevel && d < clampMin {
		d = clampMin
	}
	return s.due(d), level + 1
}

func (s *Scheduler) due(d temporal.Duration) temporal.Duration {
	now := s.clock.Now()
	if d > Never-1-now {
		return Never - 1
	}
	return now + d
}

// ClearTimer cancels the script timer id; an unknown id, or one of the
// host's, is a no-op. A timer cleared by an earlier task never fires, and
// an interval cleared by its own callback does not repeat.
func (s *Scheduler) ClearTimer(id int) { s.clear(s.scriptID, id) }

// clearHostTimer is ClearTimer for setHostTimer's ids.
func (s *Scheduler) clearHostTimer(id int) { s.clear(s.hostID, id) }

func (s *Scheduler) clear(m map[int32]timerq.ID, id int) {
	if id <= 0 || id > 1<<31-1 {
		return
	}
	q, ok := m[int32(id)]
	if !ok {
		return
	}
	delete(m, int32(id))
	s.timers.Remove(q)
	s.recs[q] = timerRec{}
}

// clearTimers cancels every timer, the script's and the host's.
func (s *Scheduler) clearTimers() {
	s.timers.Clear()
	clear(s.recs)
	clear(s.scriptID)
	clear(s.hostID)
}

// timerDue reports whether a timer is due now.
func (s *Scheduler) timerDue() bool {
	_, when, _, _, ok := s.timers.Peek()
	return ok && temporal.Duration(when) <= s.clock.Now()
}

// TimersPending returns the number of pending timers.
func (s *Scheduler) TimersPending() int { return s.timers.Len() }

// RequestFrame queues f for the next animation frame, which is the first
// FramePeriod boundary after the oldest pending request; f gets the frame's
// time. A callback requested inside a frame runs in the next one. It
// returns an id >= 1 for CancelFrame.
func (s *Scheduler) RequestFrame(f func(at temporal.Duration)) int {
	if len(s.frames) == 0 {
		s.frameAt = s.clock.Now()
	}
	s.lastFrame++
	s.frames = append(s.frames, frameCB{s.lastFrame, f})
	return s.lastFrame
}

// CancelFrame removes the callback id, also from the frame running now; an
// unknown id is a no-op.
func (s *Scheduler) CancelFrame(id int) {
	for _, l := range []*[]frameCB{&s.frames, &s.running} {
		for i := range *l {
			if (*l)[i].id == id {
				if l == &s.running {
					(*l)[i].fn = nil
				} else {
					*l = slices.Delete(*l, i, i+1)
				}
				return
			}
		}
	}
}

// frameDue returns when the next frame is due: the first FramePeriod boundary
// after the oldest pending request; ok is false with none pending.
func (s *Scheduler) frameDue() (at temporal.Duration, ok bool) {
	if len(s.frames) == 0 {
		return 0, false
	}
	return (s.frameAt/FramePeriod + 1) * FramePeriod, true
}

// BeginCheckpoint opens the microtask checkpoint's bracket: timers set
// inside it are at nesting level 0. EndCheckpoint closes it.
func (s *Scheduler) BeginCheckpoint() {
	s.saved = append(s.saved, s.level)
	s.level = 0
}

// EndCheckpoint closes the bracket BeginCheckpoint opened; unmatched, it is
// a no-op.
func (s *Scheduler) EndCheckpoint() {
	if n := len(s.saved); n > 0 {
		s.level = s.saved[n-1]
		s.saved = s.saved[:n-1]
	}
}

// lastTimer returns the due time of the latest pending timer; ok is false
// with none. It reads every timer: O(n).
func (s *Scheduler) lastTimer() (at temporal.Duration, ok bool) {
	s.timers.Each(func(_ timerq.ID, when int64, _ uint64, _ int32) bool {
		at, ok = max(at, temporal.Duration(when)), true
		return true
	})
	return at, ok
}

package loop

import "github.com/metronome-rt/metronome/temporal"

// A LoopHost owns a Scheduler and gives the loop what it does not own.
// Each method uses the host only for its own duration: tasks run between
// the calls and may call back into the host.
type LoopHost interface {
	Scheduler() *Scheduler
	// TaskEnded is the host's safe point, after every task and its hook.
	TaskEnded()
	// UpdateRendering runs the rendering steps of the frame at at; it
	// must run the animation frame callbacks (RunFrames), or the frame
	// stays due.
	UpdateRendering(at temporal.Duration)
	// Park blocks until a wake or until the clock reaches deadline
	// (Never: only a wake). It reports false when no source is live, so no
	// wake can come: at once when deadline is Never, or after a wake that
	// left no source live or ready. Otherwise (the deadline came, or a wake
	// after which a source may be ready) it reports true.
	Park(deadline temporal.Duration) bool
	// Closing asks a run to return: Run checks it at the start of every
	// turn, and a test verb leaves the clock where the run stopped.
	Closing() bool
}

// endTask ends a task: the task hook, then the host's TaskEnded.
func endTask(h LoopHost) {
	if f := h.Scheduler().hook; f != nil {
		f()
	}
	h.TaskEnded()
}

// RunFrames runs the animation frame callbacks pending now, each as a task
// given at; callbacks they request go to the next frame.
func RunFrames(h LoopHost, at temporal.Duration) {
	s := h.Scheduler()
	s.frames, s.running = s.running[:0], s.frames
	for i := range s.running {
		f := s.running[i].fn
		if f == nil { // cancelled by an earlier callback of this frame
			continue
		}
		if s.limit > 0 && !s.admit() {
			s.requeueFrames(i, at)
			break
		}
		s.running[i].fn = nil
		f(at)
		endTask(h)
	}
	clear(s.running)
	s.running = s.running[:0]
}

// requeueFrames puts the callbacks of the frame at at from i on, which the
// loop limit kept from running, back before those requested since, due at
// at.
func (s *Scheduler) requeueFrames(i int, at temporal.Duration) {
	rest := make([]frameCB, 0, len(s.running)-i+len(s.frames))
	for _, f := range s.running[i:] {
		if f.fn != nil {
			rest = append(rest, f)
		}
	}
	s.frames = append(rest, s.frames...)
	s.frameAt = at - 1
}

// ready reports whether a run has work now: a queued task, a due timer or
// a ready source.
func (s *Scheduler) ready() bool {
	if len(s.tasks) > s.head || s.timerDue() {
		return true
	}
	for _, e := range s.sources {
		if e.src.Ready() {
			return true
		}
	}
	return false
}

// NeedsFrame reports whether the host should run the loop on its next
// display frame: a frame is requested, a source wants one, or a run has work now (a
// queued task, a due timer or a ready source).
func NeedsFrame(h LoopHost) bool {
	s := h.Scheduler()
	if len(s.frames) > 0 {
		return true
	}
	for _, e := range s.wantFr {
		if e.wf.WantsFrame() {
			return true
		}
	}
	return s.ready()
}

// NextTimer returns now while a run has work, else max(now, the
// earliest timer or source deadline), and Never when none is scheduled. It
// does not say now for a due frame: NeedsFrame does.
func NextTimer(h LoopHost) temporal.Duration {
	s := h.Scheduler()
	now := s.clock.Now()
	if len(s.tasks) > s.head {
		return now
	}
	m := Never
	if _, when, _, _, ok := s.timers.Peek(); ok {
		if m = temporal.Duration(when); m <= now {
			return now
		}
	}
	for _, e := range s.sources {
		if e.src.Ready() {
			return now
		}
		if e.dl != nil {
			if at, ok := e.dl.Deadline(); ok && at < m {
				m = at
			}
		}
	}
	if m == Never {
		return Never
	}
	return max(now, m)
}

type itemKind uint8

const (
	itemNone itemKind = iota
	itemTimer
	itemFrame
	itemDeadline
)

// nextItem is the earliest of the next timer, the frame and the earliest
// source deadline after now; on a tie the timer, then the frame.
func (s *Scheduler) nextItem(now temporal.Duration) (temporal.Duration, itemKind) {
	at, kind := Never, itemNone
	if _, when, _, _, ok := s.timers.Peek(); ok {
		at, kind = temporal.Duration(when), itemTimer
	}
	if f, ok := s.frameDue(); ok && f < at {
		at, kind = f, itemFrame
	}
	for _, e := range s.sources {
		if e.dl != nil {
			if d, ok := e.dl.Deadline(); ok && d > now && d < at {
				at, kind = d, itemDeadline
			}
		}
	}
	return at, kind
}

// Run runs the loop until until has passed, the host is closing, or it
// has nothing left to do before until. Each turn, in order:
//
//   - if the host is closing, return; every source's BeginTurn;
//   - the batch: the tasks queued when the turn began, in FIFO order; or
//     else one Turn source's task, after which the next turn starts at once
//     (unless until has passed and the run has run for FramePeriod: then the
//     Rendering sources run and Run returns); or else one Batch source's
//     task, which counts as the batch;
//   - after a batch: every other Turn and Batch source runs one task in
//     rank order, the Rendering sources run if FramePeriod passed since they
//     last did, and Run returns if until has passed and it ran for
//     FramePeriod. With no batch: if no timer is due and a source is held,
//     return; else ready Settle sources share one empty task and are then
//     settled; else the Rendering sources run;
//   - the next item, the earliest of the next timer (by due time, then
//     sequence), the frame and the earliest source deadline after now (on a
//     tie: timer, frame, deadline). If it is later than now: after a batch,
//     the next turn; else, once per wait, sources may replenish (if one
//     did: return if the item is after until, else the next turn); else,
//     with a live source, park until the item or until; else return if
//     the item is after until, or skip the clock to it. A due timer runs
//     as a task at its nesting level; a due frame is UpdateRendering at
//     its time; at a due deadline the next turn starts.
//
// On a virtual clock a run never waits while no source is live: it moves
// the clock to the next item, and leaves it at the last item it ran (at
// most until). With a live source and nothing due by until, it parks until
// a wake. Run returns the first error a source's Run returns, and
// ErrReentrant when called from a task of its own run.
func Run(h LoopHost, until temporal.Duration) error {
	s := h.Scheduler()
	if s.inRun {
		return ErrReentrant
	}
	s.inRun = true
	defer func() { s.inRun = false }()
	for _, e := range s.sources {
		if e.br != nil {
			e.br.BeginRun(until)
		}
	}
	c := s.clock
	start := c.Now()
	done := func() bool { now := c.Now(); return now >= until && now-start >= FramePeriod }
	replenished := false
	for {
		if s.over {
			return ErrLoopLimit
		}
		if h.Closing() {
			return nil
		}
		for _, e := range s.sources {
			if e.bt != nil {
				e.bt.BeginTurn()
			}
		}
		batch := false
		var batchSrc *entry
		if n := s.TasksPending(); n > 0 {
			for range n {
				if s.limit > 0 && !s.admit() {
					return ErrLoopLimit
				}
				f := s.tasks[s.head]
				s.tasks[s.head] = nil
				s.head++
				f()
				endTask(h)
			}
			batch = true
		} else if e, err := s.runFirst(h, Turn); err != nil {
			return err
		} else if e != nil {
			if done() {
				return s.runRendering(h)
			}
			continue
		} else if e, err := s.runFirst(h, Batch); err != nil {
			return err
		} else if e != nil {
			batch, batchSrc = true, e
		}
		if batch {
			for _, e := range s.sources {
				if e == batchSrc || e.info.Class > Batch || !e.src.Ready() {
					continue
				}
				if err := s.runOne(h, e); err != nil {
					return err
				}
			}
			if !s.rendered || c.Now()-s.lastRnd >= FramePeriod {
				if err := s.runRendering(h); err != nil {
					return err
				}
			}
			if done() {
				return nil
			}
		} else {
			if !s.timerDue() && s.anyHeld() {
				return nil
			}
			if !s.settle(h) {
				if err := s.runRendering(h); err != nil {
					return err
				}
			}
		}

		now := c.Now()
		at, kind := s.nextItem(now)
		if at > now {
			if batch {
				continue
			}
			if !replenished {
				replenished = true
				if s.replenish() {
					if at > until {
						return nil
					}
					continue
				}
			}
			live := s.anyLive()
			if (at > until || at == Never) && (!live || now >= until) {
				return nil
			}
			if c.real {
				more := h.Park(min(at, until))
				replenished = false
				if !more && at > until {
					return nil
				}
				continue
			}
			if at > until || at == Never { // live: only a wake can bring work
				replenished = false
				if !h.Park(Never) {
					return nil
				}
				continue
			}
			c.advanceTo(at)
		}
		replenished = false
		switch kind {
		case itemTimer:
			s.runTimer(h)
		case itemFrame:
			h.UpdateRendering(at)
		}
	}
}

// runOne runs e's task, ending it if it ran one.
func (s *Scheduler) runOne(h LoopHost, e *entry) error {
	ran, err := e.src.Run()
	if err != nil {
		return err
	}
	if ran {
		endTask(h)
	}
	return nil
}

// runFirst runs one task of the first source of class c, in rank order,
// that is ready and runs one.
func (s *Scheduler) runFirst(h LoopHost, c Class) (*entry, error) {
	for _, e := range s.sources {
		if e.info.Class != c || !e.src.Ready() {
			continue
		}
		ran, err := e.src.Run()
		if err != nil {
			return nil, err
		}
		if ran {
			endTask(h)
			return e, nil
		}
	}
	return nil, nil
}

func (s *Scheduler) runRendering(h LoopHost) error {
	s.lastRnd, s.rendered = s.clock.Now(), true
	for _, e := range s.sources {
		if e.info.Class == Rendering && e.src.Ready() {
			if err := s.runOne(h, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// settle runs the one empty task of the ready Settle sources and settles
// them; it reports whether any was ready.
func (s *Scheduler) settle(h LoopHost) bool {
	any := false
	for _, e := range s.sources {
		if e.info.Class == Settle && e.src.Ready() {
			any = true
			break
		}
	}
	if !any {
		return false
	}
	var ready [8]*entry
	list := ready[:0]
	for _, e := range s.sources {
		if e.info.Class == Settle && e.src.Ready() {
			list = append(list, e)
		}
	}
	endTask(h)
	for _, e := range list {
		if e.settl != nil {
			e.settl.Settled()
		}
	}
	return true
}

func (s *Scheduler) anyHeld() bool {
	for _, e := range s.sources {
		if e.held != nil && e.held.Held() {
			return true
		}
	}
	return false
}

func (s *Scheduler) anyLive() bool {
	for _, e := range s.sources {
		if e.live != nil && e.live.Live() {
			return true
		}
	}
	return false
}

func (s *Scheduler) replenish() bool {
	did := false
	for _, e := range s.sources {
		if e.rep != nil && e.rep.Replenish() {
			did = true
		}
	}
	return did
}

// runTimer runs the due timer at the queue's top as a task.
func (s *Scheduler) runTimer(h LoopHost) {
	q, _, seq, id, ok := s.timers.Peek()
	if !ok || s.limit > 0 && !s.admit() {
		return
	}
	rec := s.recs[q]
	m := s.scriptID
	if rec.host {
		m = s.hostID
	}
	if !rec.repeat {
		s.timers.Remove(q)
		s.recs[q] = timerRec{}
		delete(m, id)
	}
	prev := s.level
	s.level = 0
	if !rec.host {
		s.level = rec.level
	}
	rec.fn(int(rec.id))
	if rec.repeat {
		// HTML: the repeat is initialized after the callback, in its task,
		// so it is sequenced after the timers the callback set. The entry
		// is still this timer's if its seq did not change.
		if _, seq2, _, ok := s.timers.Get(q); ok && seq2 == seq {
			at, level := s.initTimer(&rec)
			s.seq++
			s.timers.Update(q, int64(at), s.seq)
			s.recs[q].level = level
		}
	}
	s.level = prev
	endTask(h)
}

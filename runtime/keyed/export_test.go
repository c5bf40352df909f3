package keyed

// Hooks are the scheduler's test seams.
type Hooks struct {
	Idle        func()
	BeforeStart func(*Timer)
	OnBatch     func(n int)
	EarlyMin    int // batches that may reach this many records are published while drained; 0: the default
}

// NewWithHooks is New with test seams.
func NewWithHooks(opts Options, h Hooks) (*Scheduler, error) {
	return newScheduler(opts, hooks{h.Idle, h.BeforeStart, h.OnBatch, h.EarlyMin})
}

// Delivered returns the number of ticks t delivered.
func Delivered(t *Timer) int64 {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	return t.cad.Delivered()
}

// Stats returns the scheduler's wake-ups, batches, batch hand-offs to the
// workers, and the records run before their batch was sealed; read after
// Close.
func Stats(s *Scheduler) (wakeups, batches, handoffs, early int64) {
	return s.wakeups, s.batches, s.handoffs, s.early.Load()
}

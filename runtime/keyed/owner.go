package keyed

import (
	"sync/atomic"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/temporal"
)

// Gate is the host's execution authority: a tick starts only after
// Acquire granted it. Acquire runs on the scheduler goroutine under its
// lock and must not block or call into the Scheduler; Release runs on the
// worker once the callback returned (or did not start). A refused tick is
// retained and retried at every later wake-up of the scheduler; a host
// whose gate opens calls Scheduler.Retry.
type Gate interface {
	Acquire(t *Timer) bool
	Release(t *Timer)
}

// Owner scopes keys and holds the authority its timers tick under. The
// Scheduler's own owner (Scheduler.Register) never expires.
type Owner struct {
	s     *Scheduler
	auth  cadence.Authority
	local *localLease // nil for another Authority

	// Guarded by s.mu.
	slots  map[string]*slot
	parked []*Timer      // due while the authority lapsed: waiting for Refresh
	seen   cadence.Lease // the lease last read
	lapsed bool          // a read found the authority lapsed; the next valid one resumes
}

// localLease is the default authority: deadline = last renewal + lease on
// the scheduler's clock, a new fence on each transfer.
type localLease struct {
	lease int64
	cur   atomic.Pointer[cadence.Lease]
}

func (l *localLease) Lease() (cadence.Lease, bool) { return *l.cur.Load(), true }

// forever is the authority of the scheduler's own owner.
type forever struct{}

func (forever) Lease() (cadence.Lease, bool) { return cadence.Lease{Deadline: cadence.Never}, true }

// NewOwner returns an owner holding a local lease that lasts lease (> 0)
// after each renewal, renewed now.
func (s *Scheduler) NewOwner(lease temporal.Duration) (*Owner, error) {
	if lease <= 0 {
		return nil, &temporal.OptionError{Method: "NewOwner", Param: "lease", Want: "a duration > 0", Got: lease}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, &CallError{"NewOwner", ErrClosed}
	}
	l := &localLease{lease: int64(lease)}
	s.fences++
	cur := cadence.Lease{Fence: s.fences, Deadline: satAdd(s.now(), int64(lease))}
	l.cur.Store(&cur)
	o := s.newOwner(l)
	o.local = l
	return o, nil
}

// NewOwnerAuthority returns an owner whose timers tick under a.
func (s *Scheduler) NewOwnerAuthority(a cadence.Authority) (*Owner, error) {
	if a == nil {
		return nil, &temporal.OptionError{Method: "NewOwnerAuthority", Param: "a", Want: "a cadence.Authority", Got: nil}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, &CallError{"NewOwnerAuthority", ErrClosed}
	}
	return s.newOwner(a), nil
}

func (s *Scheduler) newOwner(a cadence.Authority) *Owner {
	o := &Owner{s: s, auth: a, slots: make(map[string]*slot)}
	o.seen, _ = a.Lease()
	s.owners = append(s.owners, o)
	return o
}

// Authority returns the authority o's timers tick under: its local lease,
// or the one NewOwnerAuthority was given.
func (o *Owner) Authority() cadence.Authority { return o.auth }

// Renew moves a local lease's deadline to now + lease. Renewed after its
// deadline passed, the owner's timers resume from their next nominal tick:
// the ticks due meanwhile are skipped (SkippedTicks counts them), never
// delivered in a burst.
func (o *Owner) Renew() error { return o.setLocal("Renew", false) }

// Transfer starts a new authority under a new fence and renews it: ticks
// queued or retained under the old fence never run, registrations stay,
// and each timer goes on from its next nominal tick. A callback already
// running finishes.
func (o *Owner) Transfer() error { return o.setLocal("Transfer", true) }

func (o *Owner) setLocal(method string, transfer bool) error {
	if o.local == nil {
		return &CallError{method, ErrNotLocal}
	}
	s := o.s
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	cur := *o.local.cur.Load()
	if now >= cur.Deadline {
		o.lapsed = true
	}
	if transfer {
		s.fences++
		cur.Fence = s.fences
	}
	cur.Deadline = satAdd(now, o.local.lease)
	o.local.cur.Store(&cur)
	o.check(now)
	s.wakeLocked()
	return nil
}

// Refresh tells the scheduler that the owner's Authority may answer
// differently now (it gained, renewed or lost ownership). An authority
// that lapsed and holds again resumes its timers from their next nominal
// tick; one under a new fence drops what was queued under the old.
func (o *Owner) Refresh() {
	s := o.s
	s.mu.Lock()
	defer s.mu.Unlock()
	o.check(s.now())
	s.wakeLocked()
}

// check reads the authority at now and reports the lease and whether
// admission is open. The first valid read after a lapse, and any read
// under a new fence, resumes every timer of the owner from now. s.mu held.
func (o *Owner) check(now int64) (cadence.Lease, bool) {
	l, held := o.auth.Lease()
	ok := held && now < l.Deadline
	if !ok {
		o.lapsed = true
		return l, false
	}
	if o.lapsed || l.Fence != o.seen.Fence {
		// Under a new fence even a tick due at this very instant was due
		// under the old authority.
		from := now
		if l.Fence != o.seen.Fence {
			from = satAdd(now, 1)
		}
		o.lapsed = false
		o.seen = l
		o.resumeAll(from)
	}
	o.seen = l
	return l, true
}

// resumeAll drops the ticks of every timer of o due before from and puts
// parked timers back in the queue. s.mu held.
func (o *Owner) resumeAll(from int64) {
	s := o.s
	for _, sl := range o.slots {
		t := sl.cur
		if t == nil {
			continue
		}
		switch t.where {
		case inQueue:
			t.cad.Resume(from)
			s.rekey(t, t.cad.Due())
		case inFlight:
			if !t.hasResume || from > t.resumeAt {
				t.resumeAt, t.hasResume = from, true
			}
		case inRetained: // its entry in s.retained goes stale
			t.cad.Resume(from)
			s.queue(t)
		default: // parked, blocked on its key, or being admitted
			t.cad.Resume(from)
		}
	}
	parked := o.parked
	o.parked = nil
	for _, t := range parked {
		s.queue(t)
	}
}

// satAdd is a+b, saturating at cadence.Never.
func satAdd(a, b int64) int64 {
	if b > 0 && a > cadence.Never-b {
		return cadence.Never
	}
	return a + b
}

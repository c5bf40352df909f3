package debounce

import (
	"time"

	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// Clock is the time a Debouncer runs on: a reading of now and one-shot
// callbacks. Now is monotonic time since an origin of the clock's choosing
// (only differences matter). AfterFunc runs f once, at least d after Now,
// unless the returned Timer is stopped first; an error means nothing was
// scheduled. f's error is the clock's to report: the virtual clock returns
// it from the call that moved time, the real-time one hands it to its
// error function.
//
// A Timer may also have an Active() bool method, reporting whether it is
// still pending; a Debouncer then notices a timer that was cancelled behind
// its back (a scheduler's Clear) and treats the key as idle.
//
// A Debouncer calls AfterFunc and Stop without its lock held, so a clock
// may run f before AfterFunc returns, or make Stop wait for a callback
// that has started. It calls Now and Active with its lock held: they must
// not wait for a callback.
type Clock interface {
	Now() time.Duration
	AfterFunc(d time.Duration, f func() error) (Timer, error)
}

// Timer is a callback a Clock scheduled. Stop prevents it from running and
// reports whether it did so, as time.Timer.Stop does; it may or may not
// wait for a callback that has started.
type Timer interface {
	Stop() bool
}

// activeTimer is a Timer that knows whether it is pending.
type activeTimer interface {
	Active() bool
}

// keyedClock is a Clock that records which key a timer is for. keyTag
// describes a key once; each timer of the key then reuses the tag.
type keyedClock interface {
	keyTag(key any) any
	afterFuncTagged(tag any, d time.Duration, f func() error) (Timer, error)
}

// Virtual is a Clock on the typed scheduler: Now is the scheduler's
// elapsed time, and each timer is a one-shot job of the scheduler (or of
// one of its groups), so a Debouncer's keys fire in the scheduler's
// (deadline, creation) order together with every other job, when its time
// moves. A callback's error stops the drain and comes out of the call that
// moved time, as any job's does. Like the scheduler, it belongs to one
// goroutine.
type Virtual struct {
	s    *sched.Scheduler
	opts []sched.JobOption
}

// OnScheduler returns a Virtual clock on s whose jobs join g (nil: no
// group) and carry opts (a label, say). Each job also carries a KeyData
// (sched.WithData) naming the debouncer key it is for, so s.List can show
// it.
func OnScheduler(s *sched.Scheduler, g *sched.Group, opts ...sched.JobOption) *Virtual {
	opts = opts[:len(opts):len(opts)]
	if g != nil {
		opts = append(opts, sched.InGroup(g))
	}
	return &Virtual{s: s, opts: opts}
}

// KeyData is the sched.JobInfo.Data of a debouncer's job on a Virtual
// clock: the key the job will fire.
type KeyData struct{ Key any }

// Now returns the scheduler's elapsed time: while a job runs, its deadline.
func (v *Virtual) Now() time.Duration { return v.s.Elapsed().Std() }

// AfterFunc schedules f as a one-shot job d from now.
func (v *Virtual) AfterFunc(d time.Duration, f func() error) (Timer, error) {
	return v.schedule(d, f, v.opts)
}

// keyTag is the key's job options: v's and the key's data.
func (v *Virtual) keyTag(key any) any {
	return append(v.opts, sched.WithData(KeyData{key}))
}

func (v *Virtual) afterFuncTagged(tag any, d time.Duration, f func() error) (Timer, error) {
	return v.schedule(d, f, tag.([]sched.JobOption))
}

func (v *Virtual) schedule(d time.Duration, f func() error, opts []sched.JobOption) (Timer, error) {
	h, err := v.s.ScheduleOnce(temporal.Duration(d), f, opts...)
	if err != nil {
		return nil, err
	}
	return virtualTimer{h}, nil
}

type virtualTimer struct{ h sched.Handle }

func (t virtualTimer) Stop() bool   { return t.h.Cancel() }
func (t virtualTimer) Active() bool { return t.h.Active() }

// ID is the job's id, as sched.JobInfo.ID shows it.
func (t virtualTimer) ID() uint64 { return t.h.ID() }

// Real is a Clock in wall time on the time package: Now is the monotonic
// time since the clock was made, and each timer is a time.AfterFunc, whose
// callback runs on a goroutine of its own. It is safe for concurrent use.
type Real struct {
	start   time.Time
	onError func(error)
}

// RealTime returns a Real clock starting now. A callback's error goes to
// onError (nil: dropped), on the callback's goroutine.
func RealTime(onError func(error)) *Real {
	return &Real{start: time.Now(), onError: onError}
}

// Now returns the time since RealTime.
func (c *Real) Now() time.Duration { return time.Since(c.start) }

// AfterFunc runs f on its own goroutine at least d from now. It never fails.
func (c *Real) AfterFunc(d time.Duration, f func() error) (Timer, error) {
	return time.AfterFunc(d, func() {
		if err := f(); err != nil && c.onError != nil {
			c.onError(err)
		}
	}), nil
}

// ServiceClock is a Clock on a driver.Service: each timer is one task on
// the service's timer wheel, run by its strategy (inline on the service
// goroutine, or on its pool), so a thousand debounced keys cost a thousand
// wheel entries, not a thousand runtime timers. It is safe for concurrent
// use. A callback's error goes to onError (nil: dropped) on the goroutine
// that ran it; a stopped service makes AfterFunc fail with
// driver.ErrServiceStopped, and the touch changes nothing.
type ServiceClock struct {
	s       *driver.Service
	start   time.Time
	onError func(error)
}

// OnService returns a Clock whose timers run on s.
func OnService(s *driver.Service, onError func(error)) *ServiceClock {
	return &ServiceClock{s: s, start: time.Now(), onError: onError}
}

// Now returns the time since OnService.
func (c *ServiceClock) Now() time.Duration { return time.Since(c.start) }

// AfterFunc schedules f on the service, d from now.
func (c *ServiceClock) AfterFunc(d time.Duration, f func() error) (Timer, error) {
	t, err := c.s.Schedule(d, func() {
		if err := f(); err != nil && c.onError != nil {
			c.onError(err)
		}
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

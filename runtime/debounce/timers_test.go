package debounce

import (
	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// schedTimers runs the wake-ups as one-shot jobs of a typed scheduler in
// virtual time, each job's data the key it is for, as the Lua binding does.
// Now is the scheduler's elapsed time, so that a wake-up past the end of
// int64 nanoseconds after the epoch is the scheduler's error.
type schedTimers struct{ s *sched.Scheduler }

// keyData is a wake-up job's sched.JobInfo.Data.
type keyData struct{ Key any }

func onScheduler(s *sched.Scheduler) Timers { return schedTimers{s} }

func (v schedTimers) Now() temporal.Instant { return temporal.FromUnixNano(int64(v.s.Elapsed())) }

// Tag is the job option that names the key.
func (v schedTimers) Tag(key any) any { return sched.WithData(keyData{key}) }

func (v schedTimers) AfterFunc(d temporal.Duration, tag any, f func() error) (Timer, error) {
	h, err := v.s.ScheduleOnce(d, f, tag.(sched.JobOption))
	if err != nil {
		return nil, err
	}
	return schedTimer{h}, nil
}

type schedTimer struct{ h sched.Handle }

func (t schedTimer) Stop() bool   { return t.h.Cancel() }
func (t schedTimer) Active() bool { return t.h.Active() }

// serviceTimers runs the wake-ups on a driver.Service; a callback's error
// goes to onError.
type serviceTimers struct {
	s       *driver.Service
	clock   temporal.Clock
	onError func(error)
}

func onService(s *driver.Service, onError func(error)) Timers {
	return serviceTimers{s, RealTime(nil), onError}
}

func (c serviceTimers) Now() temporal.Instant { return c.clock.Now() }

func (c serviceTimers) AfterFunc(d temporal.Duration, _ any, f func() error) (Timer, error) {
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

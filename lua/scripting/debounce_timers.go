package scripting

import (
	"github.com/metronome-rt/metronome/runtime/debounce"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// debounceTimers is debounce.Timers on a typed scheduler: each wake-up is a
// one-shot job of s (or of g), so a debouncer's keys fire in the
// scheduler's (deadline, creation) order together with every other job,
// and a callback's error comes out of the call that moved time. Now is the
// scheduler's elapsed time, so that a wake-up past int64 nanoseconds after
// the epoch is the scheduler's error. Each job carries a debounceKey
// (sched.WithData) naming the key, which list() shows.
type debounceTimers struct {
	s    *sched.Scheduler
	g    *sched.Group
	opts []sched.JobOption
}

// debounceKey is the sched.JobInfo.Data of a debouncer's job.
type debounceKey struct{ key any }

func (v *debounceTimers) Now() temporal.Instant {
	return temporal.FromUnixNano(int64(v.s.Elapsed()))
}

// Tag is a key's job options, made once per key in play.
func (v *debounceTimers) Tag(key any) any {
	opts := append(v.opts[:len(v.opts):len(v.opts)], sched.WithData(debounceKey{key}))
	if v.g != nil {
		opts = append(opts, sched.InGroup(v.g))
	}
	return opts
}

// AfterFunc schedules f as a one-shot job d from now.
func (v *debounceTimers) AfterFunc(d temporal.Duration, tag any, f func() error) (debounce.Timer, error) {
	h, err := v.s.ScheduleOnce(d, f, tag.([]sched.JobOption)...)
	if err != nil {
		return nil, err
	}
	return debounceWake{h}, nil
}

type debounceWake struct{ h sched.Handle }

func (t debounceWake) Stop() bool   { return t.h.Cancel() }
func (t debounceWake) Active() bool { return t.h.Active() }

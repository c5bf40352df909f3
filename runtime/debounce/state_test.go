package debounce

import (
	"fmt"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// TestStateRestoresTheRun: a debouncer put back with SetState on a fresh
// scheduler, at the same elapsed time, fires as the original goes on to:
// the same keys, instants and arguments, and later ceilings drawn from the
// same generator state.
func TestStateRestoresTheRun(t *testing.T) {
	ms := temporal.Duration(1e6)
	c := Config{Timeout: 130 * ms, BusyTimeout: 200 * ms, ForceMin: 150 * ms, ForceMax: 300 * ms, Throttle: 50 * ms, Trailing: true, Seed: 9}
	type sys struct {
		s   *sched.Scheduler
		d   *Debouncer[string, int]
		log []string
	}
	mk := func() *sys {
		y := &sys{s: sched.New(temporal.Fixed(temporal.FromUnixNano(0)))}
		d, err := New(onScheduler(y.s), c, func(k string, a int) error {
			y.log = append(y.log, fmt.Sprintf("%s %s %d", y.s.Elapsed(), k, a))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		y.d = d
		return y
	}
	touches := []string{"a", "b", "a", "a", "c", "a", "b", "a", "c", "a"}
	run := func(y *sys, from, to int) {
		for i := from; i < to; i++ {
			if err := y.d.Debounce(touches[i], i); err != nil {
				t.Fatal(err)
			}
			if err := y.s.Advance(60 * ms); err != nil {
				t.Fatal(err)
			}
		}
	}
	one := mk()
	run(one, 0, 5)
	st := one.d.State()
	if len(st.Keys) == 0 || st.Draws == nil {
		t.Fatalf("State = %+v: want keys and the generator's state", st)
	}
	n0 := len(one.log)
	run(one, 5, len(touches))
	if err := one.s.Advance(1000 * ms); err != nil {
		t.Fatal(err)
	}

	two := mk()
	if err := two.s.Advance(300 * ms); err != nil { // the snapshot's elapsed time
		t.Fatal(err)
	}
	err := two.d.SetState(st, func(key string, wake func() error) Timer {
		for _, ks := range st.Keys {
			if ks.Key == key {
				h, err := two.s.ScheduleOnce(temporal.Duration(ks.Wake-int64(two.s.Elapsed())), wake)
				if err != nil {
					t.Fatal(err)
				}
				return schedTimer{h}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := two.d.SetState(st, nil); err == nil {
		t.Error("SetState on a debouncer with keys: want an error")
	}
	run(two, 5, len(touches))
	if err := two.s.Advance(1000 * ms); err != nil {
		t.Fatal(err)
	}
	want := one.log[n0:]
	if fmt.Sprint(two.log) != fmt.Sprint(want) || len(want) < 3 {
		t.Errorf("restored run:\n got %q\nwant %q", two.log, want)
	}
}

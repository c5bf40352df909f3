package sched_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// observed records what the observer sees as "event kind #id @elapsed".
func observed(s *sched.Scheduler) *[]string {
	var got []string
	s.SetObserver(func(f sched.Fire) {
		d, _ := f.At.Sub(epoch)
		line := fmt.Sprintf("%s %s #%d @%s", f.Event, f.Kind, f.ID, d.DecimalSeconds())
		if f.Kind == sched.KindTimer {
			line += fmt.Sprintf(" %q g%d", f.Key, f.Generation)
		}
		got = append(got, line)
	})
	return &got
}

func nop() error { return nil }

func TestObserverSeesCancelsAndDrops(t *testing.T) {
	s := sched.New(temporal.Fixed(epoch))
	got := observed(s)
	a, _ := s.ScheduleOnce(10*ms, nop)
	e, _ := s.ScheduleEvery(sched.Every{Interval: 4 * ms}, nop, sched.WithLabel("f.lua:3"))
	d, _ := s.ScheduleOnce(20*ms, nop)
	must(t, s.Advance(5*ms))
	a.Cancel()
	a.Cancel() // cancelled already: no second event
	d.Drop()
	must(t, s.Advance(3*ms))
	e.Cancel()
	want := []string{
		"fire every #2 @0.004s",
		"cancel once #1 @0.005s",
		"drop once #3 @0.005s",
		"fire every #2 @0.008s",
		"cancel every #2 @0.008s",
	}
	if !slices.Equal(*got, want) {
		t.Fatalf("observed\n%q\nwant\n%q", *got, want)
	}
}

func TestObserverSeesNoCancelOfAFiredOneShot(t *testing.T) {
	s := sched.New(temporal.Fixed(epoch))
	got := observed(s)
	h, _ := s.ScheduleOnce(ms, nop)
	must(t, s.Advance(ms))
	h.Cancel()
	h.Drop()
	if want := []string{"fire once #1 @0.001s"}; !slices.Equal(*got, want) {
		t.Fatalf("observed %q, want %q", *got, want)
	}
}

func TestObserverSeesClearAndDropInDueOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		stop  func(*sched.Scheduler)
		event string
	}{
		{"Clear", func(s *sched.Scheduler) { must(t, s.Clear()) }, "cancel"},
		{"Drop", (*sched.Scheduler).Drop, "drop"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := sched.New(temporal.Fixed(epoch))
			got := observed(s)
			_, _ = s.ScheduleOnce(9*ms, nop)
			_, _ = s.ScheduleOnce(3*ms, nop)
			_, _ = s.ScheduleEvery(sched.Every{Interval: 3 * ms}, nop)
			_, _ = s.RegisterTimer("k", sched.TimerOptions{Interval: ms}, func(*sched.Step) error { return nil })
			c.stop(s)
			want := []string{
				c.event + " once #2 @0s",
				c.event + " every #3 @0s",
				c.event + " once #1 @0s",
				c.event + ` timer #4 @0s "k" g1`,
			}
			if !slices.Equal(*got, want) {
				t.Fatalf("observed\n%q\nwant\n%q", *got, want)
			}
		})
	}
}

func TestObserverSeesAGroupClearOnlyForTheGroup(t *testing.T) {
	s := sched.New(temporal.Fixed(epoch))
	got := observed(s)
	g := &sched.Group{Name: "g"}
	_, _ = s.ScheduleOnce(ms, nop)
	_, _ = s.ScheduleOnce(2*ms, nop, sched.InGroup(g))
	must(t, s.Clear(g))
	if want := []string{"cancel once #2 @0s"}; !slices.Equal(*got, want) {
		t.Fatalf("observed %q, want %q", *got, want)
	}
}

func TestObserverSeesKeyedGenerationsEnd(t *testing.T) {
	s := sched.New(temporal.Fixed(epoch))
	got := observed(s)
	tick := func(*sched.Step) error { return nil }
	t1, _ := s.RegisterTimer("k", sched.TimerOptions{Interval: 10 * ms}, tick)
	must(t, s.Advance(10*ms))
	t2, _ := s.RegisterTimer("k", sched.TimerOptions{Interval: 10 * ms}, tick) // ends generation 1
	t1.Cancel()                                                                // ended already
	t2.Drop()
	t2.Cancel()
	want := []string{
		`fire timer #1 @0.01s "k" g1`,
		`cancel timer #1 @0.01s "k" g1`,
		`drop timer #2 @0.01s "k" g2`,
	}
	if !slices.Equal(*got, want) {
		t.Fatalf("observed\n%q\nwant\n%q", *got, want)
	}
}

func TestEventString(t *testing.T) {
	for e, want := range map[sched.Event]string{sched.EventFire: "fire", sched.EventCancel: "cancel", sched.EventDrop: "drop", 9: "unknown"} {
		if e.String() != want {
			t.Errorf("Event(%d).String() = %q, want %q", e, e.String(), want)
		}
	}
}

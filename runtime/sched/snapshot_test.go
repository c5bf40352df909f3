package sched_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/metronome-rt/metronome/runtime/cadence"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/runtime/sched/snapshot"
	"github.com/metronome-rt/metronome/temporal"
)

// saveSys is a scheduler whose callbacks, bound by label, and observer
// write one log, so two runs compare as text.
type saveSys struct {
	s   *sched.Scheduler
	log []string
}

func newSaveSys(at temporal.Instant) *saveSys {
	y := &saveSys{s: sched.New(temporal.Fixed(at))}
	y.s.SetObserver(func(f sched.Fire) {
		y.log = append(y.log, fmt.Sprintf("%s %s #%d %q idx=%d key=%q gen=%d del=%d skip=%d at %s",
			f.Event, f.Kind, f.ID, f.Name, f.ScheduledIndex, f.Key, f.Generation, f.DeliveryIndex, f.SkippedTicks, f.At))
	})
	return y
}

func (y *saveSys) note(format string, args ...any) {
	y.log = append(y.log, fmt.Sprintf("  %s: ", y.s.Now())+fmt.Sprintf(format, args...))
}

// handlers are the callbacks of every label the tests use.
func (y *saveSys) handlers() map[string]any {
	plain := func(label string) func() error {
		return func() error { y.note("%s", label); return nil }
	}
	return map[string]any{
		"bomb":  plain("bomb"),
		"regen": plain("regen"),
		"a":     plain("a"),
		"b":     plain("b"),
		"spawner": func() error {
			y.note("spawner")
			_, err := y.s.ScheduleOnce(7*ms, plain("a"), sched.WithName("a"))
			return err
		},
		"daily": func(at temporal.Instant, index int) error {
			y.note("daily %s #%d", at, index)
			return nil
		},
		"tick": func(t *sched.Step) error {
			y.note("tick %s gen %d: delivery %d scheduled %d skipped %d", t.Key, t.Generation, t.DeliveryIndex, t.ScheduledIndex, t.SkippedTicks)
			if t.Fence != 0 {
				y.note("fence %d", t.Fence)
			}
			return nil
		},
	}
}

func (y *saveSys) fn(label string) func() error { return y.handlers()[label].(func() error) }

func (y *saveSys) daily() func(temporal.Instant, int) error {
	return y.handlers()["daily"].(func(temporal.Instant, int) error)
}

func (y *saveSys) tick() func(*sched.Step) error {
	return y.handlers()["tick"].(func(*sched.Step) error)
}

// roundTrip snapshots a, writes and reads the JSON text, and restores it
// into a fresh scheduler at epoch.
func roundTrip(t interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}, a *saveSys, opts sched.RestoreOptions) (*saveSys, []byte) {
	t.Helper()
	snap, err := a.s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	text, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	back, err := snapshot.Decode(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	b := newSaveSys(epoch)
	if opts.Handlers == nil {
		opts.Handlers = b.handlers()
	}
	if left, err := b.s.Restore(back, opts); err != nil || len(left) > 0 {
		t.Fatalf("restore: %v, left out %v\n%s", err, left, text)
	}
	return b, text
}

// sameContinuation runs step on the uninterrupted scheduler a and on its
// restored copy b and requires the same log from the snapshot on.
func sameContinuation(t *testing.T, a, b *saveSys, step func(*saveSys)) []string {
	t.Helper()
	from := len(a.log)
	step(a)
	step(b)
	if got, want := b.log, a.log[from:]; !slices.Equal(got, want) {
		t.Fatalf("restored run differs\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if got, want := b.s.Now(), a.s.Now(); got != want {
		t.Fatalf("now %s, want %s", got, want)
	}
	return b.log
}

func TestRestoreOnce(t *testing.T) {
	a := newSaveSys(epoch)
	must(a.s.ScheduleOnce(4500*ms, a.fn("bomb"), sched.WithName("bomb"), sched.WithLabel("game.lua:9")))
	must(0, a.s.Advance(1000*ms))
	b, text := roundTrip(t, a, sched.RestoreOptions{})
	if !strings.Contains(string(text), `"kind":"once","seq":1,"label":"bomb","where":"game.lua:9","due":"PT3.5S"`) {
		t.Fatalf("text %s", text)
	}
	log := sameContinuation(t, a, b, func(y *saveSys) {
		must(y.s.ScheduleOnce(2*temporal.Second, y.fn("a"), sched.WithName("a"))) // the same id on both
		must(0, y.s.Advance(5*temporal.Second))
	})
	if len(log) != 4 || !strings.Contains(log[1], "00:00:03Z: a") || !strings.Contains(log[3], "00:00:04.5Z: bomb") {
		t.Fatalf("log %q", log)
	}
}

func TestRestoreEveryWithCount(t *testing.T) {
	a := newSaveSys(epoch)
	must(a.s.ScheduleEvery(sched.Every{Interval: temporal.Second, Count: 5}, a.fn("regen"), sched.WithName("regen")))
	must(0, a.s.Advance(2500*ms))
	b, text := roundTrip(t, a, sched.RestoreOptions{})
	if !strings.Contains(string(text), `"interval":"PT1S","left":3`) {
		t.Fatalf("text %s", text)
	}
	log := sameContinuation(t, a, b, func(y *saveSys) { must(0, y.s.Advance(10*temporal.Second)) })
	if n := len(log); n != 6 || b.s.Count() != 0 {
		t.Fatalf("%d lines, %d pending: %q", n, b.s.Count(), log)
	}
}

func TestRestoreRecurrenceAcrossDST(t *testing.T) {
	start := mustInstant("2024-03-08T12:00:00Z")
	a := newSaveSys(start)
	set := must(temporal.NewRecurrenceSet(temporal.RecurrenceSpec{DTStart: must(temporal.ParseLocalDateTime("2024-03-08T09:00:00")),
		RRules: []string{"FREQ=DAILY"}}))
	must(a.s.ScheduleRecurrence(sched.Recurrence{Set: set, Zone: "America/New_York", Disambiguation: temporal.Compatible, Limit: 5},
		a.daily(), sched.WithName("daily")))
	must(0, a.s.Advance(24*temporal.Hour)) // 2024-03-09T14:00Z: the first, EST
	snap := must(a.s.Snapshot())
	b := newSaveSys(start)
	if _, err := b.s.Restore(snap, sched.RestoreOptions{Handlers: b.handlers()}); err != nil {
		t.Fatal(err)
	}
	log := sameContinuation(t, a, b, func(y *saveSys) { must(0, y.s.Advance(10*24*temporal.Hour)) })
	// 09:00 in New York: EST (UTC-5) until 10 March, then EDT (UTC-4).
	want := []string{"2024-03-09T14:00:00Z #2", "2024-03-10T13:00:00Z #3", "2024-03-11T13:00:00Z #4", "2024-03-12T13:00:00Z #5"}
	var got []string
	for _, l := range log {
		if i := strings.Index(l, "daily "); i >= 0 {
			got = append(got, l[i+len("daily "):])
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestRestoreKeyedTimers(t *testing.T) {
	a := newSaveSys(epoch)
	tick := a.tick()
	d := 3 * ms
	name := sched.WithName("tick")
	must(a.s.RegisterTimer("poison", sched.TimerOptions{Interval: 10 * ms, Delay: &d}, tick))
	must(a.s.RegisterTimer("poison", sched.TimerOptions{Interval: 10 * ms}, tick)) // generation 2
	must(a.s.RegisterTimer("regen", sched.TimerOptions{Interval: 7 * ms,
		Overrun: cadence.Overrun{Policy: cadence.CatchUpBounded, MaxCatchUpTicks: 2}}, tick, name))
	must(a.s.RegisterTimer("slow", sched.TimerOptions{Interval: 6 * ms, Overrun: cadence.Overrun{Policy: cadence.DelayNextTick}}, tick, name))
	o := must(a.s.NewOwner(sched.OwnerOptions{ID: "w1", Lease: 50 * ms})) // lapses at 50 ms
	must(a.s.RegisterTimer("lease", sched.TimerOptions{Interval: 9 * ms, Owner: o}, tick, name))
	o2 := must(a.s.NewOwner(sched.OwnerOptions{ID: "w2", Lease: temporal.Second}))
	must(0, o2.Transfer()) // a fence the restored owner takes over
	must(a.s.RegisterTimer("fenced", sched.TimerOptions{Interval: 9 * ms, Owner: o2}, tick, name))
	must(0, a.s.Advance(33*ms))
	must(0, a.s.Jump(25*ms)) // late ticks: each policy delivers its own
	b := newSaveSys(epoch)
	snap := must(a.s.Snapshot())
	b1 := must(b.s.NewOwner(sched.OwnerOptions{ID: "w1", Lease: temporal.Second}))
	b2 := must(b.s.NewOwner(sched.OwnerOptions{ID: "w2", Lease: temporal.Minute}))
	if _, err := b.s.Restore(snap, sched.RestoreOptions{Handlers: map[string]any{"tick": b.tick(), "poison": b.tick()},
		Owners: map[string]*sched.Owner{"w1": b1, "w2": b2}}); err != nil {
		t.Fatal(err)
	}
	log := sameContinuation(t, a, b, func(y *saveSys) {
		must(0, y.s.Advance(40*ms))
		must(0, y.s.Jump(31*ms))
		must(0, y.s.Advance(20*ms))
	})
	if len(log) < 20 {
		t.Fatalf("log %q", log)
	}
	// The owners' leases and fences went over: w1's lapsed, so "lease"
	// stays parked; w2's ticks carry its fence (the log compared above).
	if !slices.ContainsFunc(log, func(l string) bool { return strings.HasSuffix(l, ": fence 1") }) ||
		slices.ContainsFunc(log, func(l string) bool { return strings.Contains(l, "tick lease") }) {
		t.Fatalf("leased owners: %q", log)
	}
}

func TestSnapshotRefusals(t *testing.T) {
	a := newSaveSys(epoch)
	must(a.s.ScheduleOnce(ms, a.fn("a"), sched.WithLabel("game.lua:3")))                                       // no label
	must(a.s.ScheduleEvery(sched.Every{Interval: ms}, a.fn("regen"), sched.WithName("regen")))                 // kept
	must(a.s.Spawn(func(st *sched.Step) error { return st.Wait(ms, func(*sched.Step) error { return nil }) })) // waiting
	snap, err := a.s.Snapshot()
	var se *snapshot.Error
	if !errors.As(err, &se) || len(se.Jobs) != 2 {
		t.Fatalf("%v", err)
	}
	if got := err.Error(); !strings.Contains(got, "once #1 scheduled at game.lua:3: no label") || !strings.Contains(got, "spawn #3: a waiting task") {
		t.Fatal(got)
	}
	if len(snap.Jobs) != 1 || snap.Jobs[0].Label != "regen" {
		t.Fatalf("the rest: %+v", snap.Jobs)
	}

	// A label missing from the handlers: nothing changes, or it is left out.
	snap.Jobs = append(snap.Jobs, snapshot.Job{Kind: "once", Seq: 1, Label: "lost", Where: "game.lua:8", Due: "PT1S"})
	b := newSaveSys(epoch)
	_, err = b.s.Restore(snap, sched.RestoreOptions{Handlers: b.handlers()})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), `once #1 'lost' scheduled at game.lua:8: no handler for its label "lost"`) || b.s.Count() != 0 {
		t.Fatalf("%v, %d pending", err, b.s.Count())
	}
	_, err = b.s.Restore(snap, sched.RestoreOptions{Handlers: map[string]any{"regen": b.daily(), "lost": b.fn("a")}})
	if err == nil || !strings.Contains(err.Error(), `its handler "regen" is a func(temporal.Instant, int) error; a every needs a func() error`) || b.s.Count() != 0 {
		t.Fatalf("%v", err)
	}
	left, err := b.s.Restore(snap, sched.RestoreOptions{Handlers: b.handlers(), Skip: true})
	if err != nil || len(left) != 1 || left[0].Label != "lost" || b.s.Count() != 1 {
		t.Fatalf("%v %v %d", left, err, b.s.Count())
	}
	// Now b is not empty.
	_, err = b.s.Restore(snap, sched.RestoreOptions{Handlers: b.handlers(), Skip: true})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "every #2 'regen': pending in the scheduler restored into") || b.s.Count() != 1 {
		t.Fatalf("%v", err)
	}
}

func TestRestoreMisfire(t *testing.T) {
	const down = 35 * ms // the restoring scheduler starts 35 ms after the snapshot
	setup := func() sched.Snapshot {
		a := newSaveSys(epoch)
		must(a.s.ScheduleOnce(5*ms, a.fn("bomb"), sched.WithName("bomb")))
		must(a.s.ScheduleEvery(sched.Every{Interval: 10 * ms, Count: 10}, a.fn("regen"), sched.WithName("regen")))
		must(a.s.RegisterTimer("tick", sched.TimerOptions{Interval: 10 * ms}, a.tick()))
		return must(a.s.Snapshot())
	}
	for _, tc := range []struct {
		misfire string
		max     int
		want    []string
	}{
		{"", 0, []string{ // fire-once: each overdue job once at 35 ms, then on its grid
			"035Z: bomb", "035Z: regen", "035Z: tick tick gen 1: delivery 1 scheduled 3 skipped 2", "04Z: regen", "04Z: tick tick gen 1: delivery 2 scheduled 4 skipped 0"}},
		{"fire-all", 0, []string{ // each missed run (at 10, 20, 30), then 40 on the grid
			"035Z: bomb", "035Z: regen", "035Z: regen", "035Z: regen", "035Z: tick tick gen 1: delivery 1 scheduled 3 skipped 2",
			"04Z: regen", "04Z: tick tick gen 1: delivery 2 scheduled 4 skipped 0"}},
		{"fire-all", 2, []string{"035Z: bomb", "035Z: regen", "035Z: regen", "035Z: tick tick gen 1: delivery 1 scheduled 3 skipped 2",
			"04Z: regen", "04Z: tick tick gen 1: delivery 2 scheduled 4 skipped 0"}},
		{"skip", 0, []string{"04Z: regen", "04Z: tick tick gen 1: delivery 1 scheduled 4 skipped 3"}},
	} {
		t.Run(fmt.Sprintf("%s-%d", tc.misfire, tc.max), func(t *testing.T) {
			b := newSaveSys(must(epoch.Add(down)))
			if _, err := b.s.Restore(setup(), sched.RestoreOptions{Handlers: b.handlers(), Misfire: tc.misfire, MaxCatchUpTicks: tc.max}); err != nil {
				t.Fatal(err)
			}
			must(0, b.s.Advance(5*ms))
			var got []string
			for _, l := range b.log {
				if strings.HasPrefix(l, "  ") {
					got = append(got, strings.TrimPrefix(l, "  2000-01-01T00:00:00."))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
			// The count counts the catch-up fires: 10 in all, whatever the policy.
			must(0, b.s.Advance(temporal.Second))
			n := 0
			for _, l := range b.log {
				if strings.HasSuffix(l, ": regen") {
					n++
				}
			}
			if n != 10 || b.s.Count() != 1 {
				t.Fatalf("%d regen fires, want 10; %d pending, want the timer", n, b.s.Count())
			}
		})
	}
}

func TestRestoreRefusesBadOptions(t *testing.T) {
	b := newSaveSys(epoch)
	_, err := b.s.Restore(sched.Snapshot{Version: 1, Now: epoch.String()}, sched.RestoreOptions{Misfire: "later"})
	var oe *temporal.OptionError
	if !errors.As(err, &oe) || oe.Param != "opts.Misfire" {
		t.Fatal(err)
	}
}

// FuzzDecodeSnapshot: any text is a snapshot or an error, never a panic;
// a snapshot that decodes restores (or is refused) without one either.
func FuzzDecodeSnapshot(f *testing.F) {
	a := newSaveSys(epoch)
	must(a.s.ScheduleOnce(4500*ms, a.fn("bomb"), sched.WithName("bomb")))
	must(a.s.ScheduleEvery(sched.Every{Interval: temporal.Second, Count: 3}, a.fn("regen"), sched.WithName("regen")))
	must(a.s.RegisterTimer("tick", sched.TimerOptions{Interval: 7 * ms}, a.tick()))
	must(0, a.s.Advance(1200*ms))
	text := must(json.Marshal(must(a.s.Snapshot())))
	f.Add(text)
	f.Add([]byte(`{"version":1,"now":"2000-01-01T00:00:00Z","seq":1,"jobs":[{"kind":"recurrence","seq":1,"label":"daily","due":"PT9H","dtstart":"2000-01-01T09:00:00","rrule":["FREQ=DAILY"],"zone":"UTC","disambiguation":"reject","index":1}]}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		snap, err := snapshot.Decode(text)
		if err != nil {
			return
		}
		b := newSaveSys(epoch)
		h := map[string]any{}
		for _, j := range snap.Jobs {
			switch j.Kind {
			case "recurrence":
				h[j.Label] = b.handlers()["daily"]
			case "timer":
				h[j.Label] = b.handlers()["tick"]
			default:
				h[j.Label] = b.fn("a")
			}
		}
		owners := map[string]*sched.Owner{}
		for _, o := range snap.Owners {
			owners[o.ID] = must(b.s.NewOwner(sched.OwnerOptions{ID: o.ID, Lease: temporal.Second}))
		}
		if _, err := b.s.Restore(snap, sched.RestoreOptions{Handlers: h, Owners: owners, Skip: true, Misfire: "fire-all"}); err != nil {
			return
		}
		_ = b.s.Advance(temporal.Second)
	})
}

// TestRestoreContinuesExactly: a random workload, snapshot at a random
// point, restored into a fresh scheduler: both continuations log the same
// callbacks, arguments and observer events at the same instants.
func TestRestoreContinuesExactly(t *testing.T) {
	set := must(temporal.NewRecurrenceSet(temporal.RecurrenceSpec{DTStart: must(temporal.ParseLocalDateTime("2000-01-01T00:00:00")),
		RRules: []string{"FREQ=SECONDLY;INTERVAL=2"}}))
	rapid.Check(t, func(t *rapid.T) {
		a := newSaveSys(epoch)
		labels := []string{"a", "b", "spawner", "regen"}
		op := func(t *rapid.T, ys []*saveSys, before bool) {
			label := rapid.SampledFrom(labels).Draw(t, "label")
			switch rapid.IntRange(0, 6).Draw(t, "op") {
			case 0:
				d := temporal.Duration(rapid.Int64Range(0, 3000).Draw(t, "delay")) * ms
				for _, y := range ys {
					must(y.s.ScheduleOnce(d, y.fn(label), sched.WithName(label)))
				}
			case 1:
				iv := temporal.Duration(rapid.Int64Range(1, 900).Draw(t, "interval")) * ms
				count := rapid.IntRange(0, 6).Draw(t, "count")
				for _, y := range ys {
					must(y.s.ScheduleEvery(sched.Every{Interval: iv, Count: count}, y.fn(label), sched.WithName(label)))
				}
			case 2:
				if !before {
					return
				}
				limit := rapid.IntRange(0, 4).Draw(t, "limit")
				for _, y := range ys {
					must(y.s.ScheduleRecurrence(sched.Recurrence{Set: set, Zone: "Europe/Paris", Disambiguation: temporal.Compatible, Limit: limit},
						y.daily(), sched.WithName("daily")))
				}
			case 3:
				if !before {
					return
				}
				key := rapid.SampledFrom([]string{"k1", "k2"}).Draw(t, "key")
				iv := temporal.Duration(rapid.Int64Range(1, 700).Draw(t, "interval")) * ms
				pol := cadence.Policy(rapid.IntRange(0, 2).Draw(t, "policy"))
				for _, y := range ys {
					must(y.s.RegisterTimer(key, sched.TimerOptions{Interval: iv, Overrun: cadence.Overrun{Policy: pol, MaxCatchUpTicks: 2}},
						y.tick(), sched.WithName("tick")))
				}
			case 4, 5:
				d := temporal.Duration(rapid.Int64Range(0, 2000).Draw(t, "advance")) * ms
				for _, y := range ys {
					must(0, y.s.Advance(d))
				}
			case 6:
				d := temporal.Duration(rapid.Int64Range(0, 2000).Draw(t, "jump")) * ms
				for _, y := range ys {
					must(0, y.s.Jump(d))
				}
			}
		}
		for i, n := 0, rapid.IntRange(0, 30).Draw(t, "before"); i < n; i++ {
			op(t, []*saveSys{a}, true)
		}
		b, _ := roundTrip(t, a, sched.RestoreOptions{})
		from := len(a.log)
		for i, n := 0, rapid.IntRange(0, 30).Draw(t, "after"); i < n; i++ {
			op(t, []*saveSys{a, b}, false)
		}
		must(0, a.s.Advance(5*temporal.Second))
		must(0, b.s.Advance(5*temporal.Second))
		if got, want := b.log, a.log[from:]; !slices.Equal(got, want) {
			t.Fatalf("restored run differs\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
		}
		if !slices.EqualFunc(a.s.List(), b.s.List(), func(x, y sched.JobInfo) bool {
			return x.ID == y.ID && x.DueAt == y.DueAt && x.Kind == y.Kind && x.OccurrenceIndex == y.OccurrenceIndex
		}) {
			t.Fatalf("pending differs\n got %+v\nwant %+v", b.s.List(), a.s.List())
		}
	})
}

// A catch-up not yet run is saved too: restored again at once, the run
// goes on as from the first restore.
func TestRestoreKeepsAPendingCatchUp(t *testing.T) {
	a := newSaveSys(epoch)
	must(a.s.ScheduleEvery(sched.Every{Interval: 10 * ms, Count: 6}, a.fn("regen"), sched.WithName("regen")))
	set := must(temporal.NewRecurrenceSet(temporal.RecurrenceSpec{DTStart: must(temporal.ParseLocalDateTime("2000-01-01T00:00:01")),
		RRules: []string{"FREQ=SECONDLY"}}))
	must(a.s.ScheduleRecurrence(sched.Recurrence{Set: set, Zone: "UTC", Limit: 9}, a.daily(), sched.WithName("daily")))
	snap := must(a.s.Snapshot())
	for _, misfire := range []string{"fire-once", "fire-all"} {
		b := newSaveSys(must(epoch.Add(3500 * ms)))
		if _, err := b.s.Restore(snap, sched.RestoreOptions{Handlers: b.handlers(), Misfire: misfire, MaxCatchUpTicks: 2}); err != nil {
			t.Fatal(err)
		}
		c, _ := roundTrip(t, b, sched.RestoreOptions{})
		log := sameContinuation(t, b, c, func(y *saveSys) { must(0, y.s.Advance(10*temporal.Second)) })
		if len(log) < 10 {
			t.Fatalf("%s: %q", misfire, log)
		}
	}
}

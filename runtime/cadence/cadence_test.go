package cadence

import (
	"math/rand/v2"
	"testing"
)

const ms = int64(1_000_000)

// takeAll delivers every tick due at now, as a free handler that returns at
// once would receive them.
func takeAll(c *Cadence, now int64) []Tick {
	var got []Tick
	for {
		t, ok := c.Take(now)
		if !ok {
			return got
		}
		got = append(got, t)
		c.Ended(now)
	}
}

func TestCadenceStalledHost(t *testing.T) {
	// The timeline of the Policy doc: period 10ms, first due at 10ms, the
	// host stalled until 35ms.
	for _, tc := range []struct {
		o        Overrun
		at35     []Tick
		nextDue  int64
		afterDue Tick
	}{
		{Overrun{}, []Tick{{1, 3, 2}}, 40 * ms, Tick{2, 4, 0}},
		{Overrun{CatchUpBounded, 2}, []Tick{{1, 2, 1}, {2, 3, 0}}, 40 * ms, Tick{3, 4, 0}},
		{Overrun{DelayNextTick, 0}, []Tick{{1, 3, 2}}, 45 * ms, Tick{2, 4, 0}},
	} {
		t.Run(tc.o.Policy.String(), func(t *testing.T) {
			c := New(10*ms, 10*ms, tc.o)
			if got := takeAll(&c, 35*ms); !equalTicks(got, tc.at35) {
				t.Fatalf("at 35ms: got %v, want %v", got, tc.at35)
			}
			if c.Due() != tc.nextDue {
				t.Fatalf("next due %d, want %d", c.Due(), tc.nextDue)
			}
			if got := takeAll(&c, c.Due()); !equalTicks(got, []Tick{tc.afterDue}) {
				t.Fatalf("at next due: got %v, want %v", got, tc.afterDue)
			}
		})
	}
}

func TestCadenceOnTimeDeliversEveryTick(t *testing.T) {
	for _, p := range []Policy{SkipLateTicks, CatchUpBounded, DelayNextTick} {
		c := New(5*ms, 10*ms, Overrun{Policy: p, MaxCatchUpTicks: 3})
		if _, ok := c.Take(5*ms - 1); ok {
			t.Fatalf("%s: a tick one nanosecond early", p)
		}
		for i := int64(1); i <= 100; i++ {
			at := c.Due()
			if at != 5*ms+(i-1)*10*ms {
				t.Fatalf("%s: tick %d due at %d", p, i, at)
			}
			if got := takeAll(&c, at); !equalTicks(got, []Tick{{i, i, 0}}) {
				t.Fatalf("%s: tick %d: %v", p, i, got)
			}
		}
	}
}

func TestCadenceHandlerOverran(t *testing.T) {
	// Period 10ms from 10ms; the first handler runs from 10 to 27.
	t.Run("skip delivers the latest at the handler's end", func(t *testing.T) {
		c := New(10*ms, 10*ms, Overrun{})
		c.Take(10 * ms)
		c.Ended(27 * ms)
		if got := takeAll(&c, 27*ms); !equalTicks(got, []Tick{{2, 2, 0}}) {
			t.Fatal(got)
		}
		if c.Due() != 30*ms {
			t.Fatal(c.Due())
		}
	})
	t.Run("delay-next-tick waits a period after the end", func(t *testing.T) {
		c := New(10*ms, 10*ms, Overrun{Policy: DelayNextTick})
		c.Take(10 * ms)
		c.Ended(27 * ms)
		if _, ok := c.Take(27 * ms); ok {
			t.Fatal("a tick at the handler's end")
		}
		if c.Due() != 37*ms {
			t.Fatal(c.Due())
		}
		if got := takeAll(&c, 37*ms); !equalTicks(got, []Tick{{2, 3, 1}}) {
			t.Fatal(got)
		}
	})
	t.Run("delay-next-tick keeps the grid when the handler was in time", func(t *testing.T) {
		c := New(10*ms, 10*ms, Overrun{Policy: DelayNextTick})
		c.Take(10 * ms)
		c.Ended(19 * ms)
		if c.Due() != 20*ms {
			t.Fatal(c.Due())
		}
	})
}

func TestCadenceResumeSkipsTheGap(t *testing.T) {
	c := New(10*ms, 10*ms, Overrun{CatchUpBounded, 100})
	takeAll(&c, 10*ms)
	c.Resume(55 * ms) // ticks at 20..50 fall in the gap
	if c.Due() != 60*ms {
		t.Fatal(c.Due())
	}
	if got := takeAll(&c, 60*ms); !equalTicks(got, []Tick{{2, 6, 4}}) {
		t.Fatal(got)
	}
	c.Resume(70 * ms) // a tick exactly at the resume instant still runs
	if got := takeAll(&c, 70*ms); !equalTicks(got, []Tick{{3, 7, 0}}) {
		t.Fatal(got)
	}
}

func TestCadenceSaturatesAtTheEndOfTime(t *testing.T) {
	c := New(Never-5, Never/2, Overrun{})
	takeAll(&c, Never-5)
	if c.Due() != Never {
		t.Fatalf("due %d, want Never", c.Due())
	}
	d := New(0, 10, Overrun{Policy: DelayNextTick})
	if got := takeAll(&d, Never-3); len(got) != 1 || d.Due() != Never {
		t.Fatalf("%v, due %d", got, d.Due())
	}
}

func TestOverrunCheck(t *testing.T) {
	for _, o := range []Overrun{{}, {CatchUpBounded, 0}, {CatchUpBounded, 1}, {CatchUpBounded, MaxCatchUpTicksLimit}, {SkipLateTicks, -4}} {
		if err := o.Check(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	for _, o := range []Overrun{{CatchUpBounded, -1}, {CatchUpBounded, MaxCatchUpTicksLimit + 1}, {Policy: 3}} {
		if err := o.Check(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	for _, n := range PolicyNames() {
		if p, ok := ParsePolicy(n); !ok || p.String() != n {
			t.Errorf("%s: %v %v", n, p, ok)
		}
	}
	if _, ok := ParsePolicy("skip"); ok {
		t.Error("ParsePolicy accepted skip")
	}
}

// TestCadenceInvariants drives random handler durations and stalls and
// checks the tick invariants of Tick's doc on every delivery.
func TestCadenceInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for run := 0; run < 300; run++ {
		o := Overrun{Policy: Policy(r.IntN(3)), MaxCatchUpTicks: int64(r.IntN(4))}
		interval := int64(1 + r.IntN(20))
		c := New(int64(r.IntN(30)), interval, o)
		now := int64(0)
		var prev Tick
		for step := 0; step < 200; step++ {
			now += int64(r.IntN(3 * int(interval)))
			if r.IntN(10) == 0 {
				c.Resume(now)
			}
			tk, ok := c.Take(now)
			if !ok {
				if c.Due() <= now {
					t.Fatalf("%+v: due %d at %d but nothing taken", o, c.Due(), now)
				}
				continue
			}
			if tk.DeliveryIndex != prev.DeliveryIndex+1 {
				t.Fatalf("%+v: delivery %d after %d", o, tk.DeliveryIndex, prev.DeliveryIndex)
			}
			if tk.ScheduledIndex <= prev.ScheduledIndex || tk.ScheduledIndex < tk.DeliveryIndex {
				t.Fatalf("%+v: scheduled %d after %d (delivery %d)", o, tk.ScheduledIndex, prev.ScheduledIndex, tk.DeliveryIndex)
			}
			if tk.SkippedTicks != tk.ScheduledIndex-prev.ScheduledIndex-1 {
				t.Fatalf("%+v: skipped %d for %d after %d", o, tk.SkippedTicks, tk.ScheduledIndex, prev.ScheduledIndex)
			}
			if o.Policy == SkipLateTicks && tk.ScheduledIndex != c.latest(now) {
				t.Fatalf("skip-late-ticks delivered %d, latest due is %d", tk.ScheduledIndex, c.latest(now))
			}
			prev = tk
			now += int64(r.IntN(2 * int(interval)))
			c.Ended(now)
		}
	}
}

func equalTicks(a, b []Tick) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

package timerq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// small is a geometry whose every level and the overflow level a short
// test reaches: 4 x 10, 3 x 40, 5 x 120, horizon 600.
var small = Geometry{Tick: 10, Slots: []int{4, 3, 5}}

func newWheel(t testing.TB, g Geometry, start int64) *Wheel[int] {
	t.Helper()
	w, err := NewWheel[int](g, start)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

type popped struct {
	when int64
	seq  uint64
	v    int
}

// drainTo pops everything due by upTo.
func drainTo(w *Wheel[int], upTo int64) []popped {
	var out []popped
	for {
		_, when, seq, v, ok := w.PopDue(upTo)
		if !ok {
			return out
		}
		out = append(out, popped{when, seq, v})
	}
}

func TestGeometryValidate(t *testing.T) {
	if h := DefaultGeometry().Horizon(); h != 24*3600*1e9 {
		t.Fatalf("default horizon = %d ns, want 24 h", h)
	}
	bad := []struct {
		g    Geometry
		want string
	}{
		{Geometry{Tick: 0, Slots: []int{4}}, "timerq.Geometry: Tick is 0 ns, want > 0"},
		{Geometry{Tick: 1}, "timerq.Geometry: 0 levels, want 1 to 8"},
		{Geometry{Tick: 1, Slots: []int{4, 1}}, "timerq.Geometry: Slots[1] is 1, want 2 to 2^20"},
		{Geometry{Tick: 1 << 40, Slots: []int{1 << 20, 1 << 20}}, "timerq.Geometry: the horizon overflows int64 ns at level 1"},
	}
	for _, c := range bad {
		if _, err := NewWheel[int](c.g, 0); err == nil || err.Error() != c.want {
			t.Errorf("NewWheel(%v) error = %v, want %q", c.g, err, c.want)
		}
		if c.g.Horizon() != 0 {
			t.Errorf("Horizon(%v) = %d, want 0", c.g, c.g.Horizon())
		}
	}
	if _, err := NewSharded[int](small, 0, 0); err == nil || err.Error() != "timerq.NewSharded: shards is 0, want 1 to 256" {
		t.Errorf("NewSharded(0 shards) error = %v", err)
	}
}

// levelEdges returns, for each level of g and the horizon, the deadlines
// on either side of the level's first rotation's end, from start.
func levelEdges(g Geometry, start int64) []int64 {
	var out []int64
	span := g.Tick
	for _, n := range g.Slots {
		span *= int64(n)
		for _, d := range []int64{-g.Tick, -1, 0, 1, g.Tick} {
			out = append(out, start+span+d)
		}
	}
	return append(out, start, start+1, start+g.Tick-1, start+g.Tick, start+3*span+7)
}

// Every level's edges, the horizon and far beyond it: each entry comes out
// at its deadline, not a nanosecond before, and none is lost.
func TestWheelLevelBoundaries(t *testing.T) {
	for _, g := range []Geometry{small, DefaultGeometry()} {
		for _, start := range []int64{0, 7, -1234567} {
			t.Run(fmt.Sprintf("%v/%d", g.Slots, start), func(t *testing.T) {
				w := newWheel(t, g, start)
				edges := levelEdges(g, start)
				for i, when := range edges {
					w.Push(when, uint64(i), i)
				}
				slices.Sort(edges)
				edges = slices.Compact(edges)
				for _, when := range edges {
					if got := drainTo(w, when-1); len(got) != 0 {
						t.Fatalf("PopDue(%d) = %v, want nothing before %d", when-1, got, when)
					}
					got := drainTo(w, when)
					if len(got) == 0 {
						t.Fatalf("PopDue(%d) = nothing, want the entries due then", when)
					}
					for _, p := range got {
						if p.when != when {
							t.Fatalf("PopDue(%d) gave deadline %d", when, p.when)
						}
					}
				}
				if w.Len() != 0 {
					t.Fatalf("Len = %d after the last deadline, want 0", w.Len())
				}
			})
		}
	}
}

// Beyond the horizon: entries wait in the overflow level and come back as
// the wheel turns, in order, whether time moves in small steps or jumps.
func TestWheelBeyondHorizon(t *testing.T) {
	h := small.Horizon()
	whens := []int64{h - 1, h, h + 1, 2*h + 5, 10 * h, 10*h + 1, 1 << 40, math.MaxInt64}
	for _, step := range []int64{7, h / 3, h * 5, 1 << 62} {
		w := newWheel(t, small, 0)
		for i, when := range whens {
			w.Push(when, uint64(i), i)
		}
		var got []int64
		for now := int64(0); now < 12*h; now += step {
			got = append(got, whenOf(drainTo(w, now))...)
		}
		got = append(got, whenOf(drainTo(w, 1<<40-1))...)
		got = append(got, whenOf(drainTo(w, math.MaxInt64))...)
		if !slices.Equal(got, whens) {
			t.Errorf("step %d: popped %v, want %v", step, got, whens)
		}
	}
}

func whenOf(ps []popped) []int64 {
	var out []int64
	for _, p := range ps {
		out = append(out, p.when)
	}
	return out
}

// A Remove on every level, the overflow level and the ready run takes the
// entry out at once: Len drops, the ID is free, nothing of it pops.
func TestWheelCancelEveryLevel(t *testing.T) {
	h := small.Horizon()
	w := newWheel(t, small, 0)
	drainTo(w, 5) // ready: at or before 5
	whens := []int64{3, 8, 25, 70, 300, h + 50, 5 * h}
	ids := make([]ID, len(whens))
	for i, when := range whens {
		ids[i] = w.Push(when, uint64(i), i)
	}
	w.Next() // settles the last push: every entry is on its list
	for i := range whens {
		if _, ok := w.Remove(ids[i]); !ok {
			t.Fatalf("Remove(deadline %d) = false", whens[i])
		}
		if w.Len() != len(whens)-i-1 {
			t.Fatalf("Len = %d after %d removes", w.Len(), i+1)
		}
		if _, ok := w.Remove(ids[i]); ok {
			t.Fatalf("a second Remove(deadline %d) = true", whens[i])
		}
	}
	if got := drainTo(w, math.MaxInt64); len(got) != 0 {
		t.Fatalf("popped %v after removing everything", got)
	}
	if id := w.Push(9, 0, 0); id != ids[len(ids)-1] {
		t.Fatalf("Push after removes got ID %d, want the last freed, %d", id, ids[len(ids)-1])
	}
}

func TestWheelRemoveSeqAndGet(t *testing.T) {
	w := newWheel(t, small, 0)
	id := w.Push(50, 1, 10)
	w.Remove(id)
	id2 := w.Push(60, 2, 20)
	if id2 != id {
		t.Fatalf("ID not reused")
	}
	if _, ok := w.RemoveSeq(id, 1); ok {
		t.Fatal("RemoveSeq with the old seq removed the new entry")
	}
	if when, seq, v, ok := w.Get(id2); !ok || when != 60 || seq != 2 || v != 20 {
		t.Fatalf("Get = %d %d %d %v", when, seq, v, ok)
	}
	for _, bad := range []ID{-1, 99, 1 << 29} {
		if _, _, _, ok := w.Get(bad); ok {
			t.Fatalf("Get(%d) ok", bad)
		}
	}
}

// Next is the earliest deadline, wherever it waits.
func TestWheelNext(t *testing.T) {
	w := newWheel(t, small, 0)
	if _, ok := w.Next(); ok {
		t.Fatal("Next on an empty wheel: ok")
	}
	for _, when := range []int64{5 * small.Horizon(), 450, 130, 33} {
		w.Push(when, 0, 0)
		if got, _ := w.Next(); got != when {
			t.Fatalf("Next = %d, want %d", got, when)
		}
	}
	drainTo(w, 40)
	if got, _ := w.Next(); got != 130 {
		t.Fatalf("Next after 40 = %d, want 130", got)
	}
}

// model is the reference: a slice kept sorted by key.
type model struct{ s []popped }

func (m *model) push(when int64, seq uint64, v int) {
	i, _ := slices.BinarySearchFunc(m.s, popped{when, seq, v}, cmpPopped)
	m.s = slices.Insert(m.s, i, popped{when, seq, v})
}

func cmpPopped(a, b popped) int {
	if a.when != b.when {
		if a.when < b.when {
			return -1
		}
		return 1
	}
	if a.seq != b.seq {
		if a.seq < b.seq {
			return -1
		}
		return 1
	}
	return 0
}

func (m *model) remove(v int) bool {
	for i, p := range m.s {
		if p.v == v {
			m.s = slices.Delete(m.s, i, i+1)
			return true
		}
	}
	return false
}

// FuzzWheel runs a byte-coded workload through a wheel of a small geometry
// (one of three, so that every level and the overflow are reached) and a
// sorted slice, and compares every pop, Next and Len, and what Get, Each
// and a stale RemoveSeq see.
func FuzzWheel(f *testing.F) {
	f.Add([]byte{0, 5, 0, 200, 2, 3, 1, 0, 3, 250})
	f.Add([]byte{0, 255, 0, 254, 0, 1, 3, 255, 3, 255, 3, 255, 2, 0})
	geometries := []Geometry{small, {Tick: 1, Slots: []int{2, 3, 2}}, {Tick: 7, Slots: []int{3}}}
	f.Fuzz(func(t *testing.T, ops []byte) {
		g := small
		if len(ops)%2 == 1 { // an odd byte out picks the geometry
			g = geometries[int(ops[len(ops)-1])%len(geometries)]
		}
		w := newWheel(t, g, 0)
		var m model
		ids := map[int]ID{}
		now, seq, next := int64(0), uint64(0), 0
		for i := 0; i+1 < len(ops); i += 2 {
			op, x := ops[i]%8, int64(ops[i+1])
			switch op {
			case 0, 1: // push, near or far (beyond the horizon)
				when := now + x*3 - 20
				if op == 1 {
					when = now + x*x*7
				}
				seq++
				ids[next] = w.Push(when, seq, next)
				m.push(when, seq, next)
				next++
			case 2: // remove one
				if len(m.s) == 0 {
					continue
				}
				v := m.s[int(x)%len(m.s)].v
				if _, ok := w.Remove(ids[v]); !ok {
					t.Fatalf("Remove(%d) = false", v)
				}
				m.remove(v)
			case 3: // move time and pop what is due
				now += x * x / 3
				got := drainTo(w, now)
				var want []popped
				for len(m.s) > 0 && m.s[0].when <= now {
					want = append(want, m.s[0])
					m.s = m.s[1:]
				}
				if !slices.Equal(got, want) {
					t.Fatalf("PopDue(%d) = %v, want %v", now, got, want)
				}
			case 4: // re-key one
				if len(m.s) == 0 {
					continue
				}
				p := m.s[int(x)%len(m.s)]
				seq++
				when := now + x*5 - 100
				w.Update(ids[p.v], when, seq)
				m.remove(p.v)
				m.push(when, seq, p.v)
			case 5: // Get one, and RemoveSeq it with a stale seq
				if len(m.s) == 0 {
					continue
				}
				p := m.s[int(x)%len(m.s)]
				if gw, gs, gv, ok := w.Get(ids[p.v]); !ok || gw != p.when || gs != p.seq || gv != p.v {
					t.Fatalf("Get(%d) = %d %d %d %v, want %v", p.v, gw, gs, gv, ok, p)
				}
				if _, ok := w.RemoveSeq(ids[p.v], p.seq+1); ok {
					t.Fatalf("RemoveSeq(%d) with a stale seq removed it", p.v)
				}
			case 6: // Each sees what the model holds
				var got []popped
				w.Each(func(_ ID, when int64, seq uint64, v int) bool {
					got = append(got, popped{when, seq, v})
					return true
				})
				slices.SortFunc(got, cmpPopped)
				if !slices.Equal(got, m.s) {
					t.Fatalf("Each = %v, want %v", got, m.s)
				}
			case 7: // now and then, Clear
				if x%16 == 0 {
					w.Clear()
					m.s = nil
				}
			}
			if w.Len() != len(m.s) {
				t.Fatalf("Len = %d, want %d", w.Len(), len(m.s))
			}
			when, ok := w.Next()
			if ok != (len(m.s) > 0) || ok && when != m.s[0].when {
				t.Fatalf("Next = %d %v, want %v", when, ok, m.s)
			}
		}
	})
}

// queue is what a scheduler needs of its deadline queue; the heap and the
// wheel both provide it, so one workload can run through either.
type queue interface {
	Push(when int64, seq uint64, v int) ID
	Remove(id ID) (int, bool)
	Update(id ID, when int64, seq uint64) bool
	PopDue(upTo int64) (ID, int64, uint64, int, bool)
}

type heapQueue struct{ Heap[int] }

func (h *heapQueue) PopDue(upTo int64) (ID, int64, uint64, int, bool) {
	id, when, seq, v, ok := h.Peek()
	if !ok || when > upTo {
		return -1, 0, 0, 0, false
	}
	h.Pop()
	return id, when, seq, v, true
}

// runWorkload is a scheduler in miniature: one-shots and intervals, some
// cancelled, fired in time steps; each fire may schedule a one-shot due at
// once or cancel another. It returns the trace of fires: (time, value).
func runWorkload(q queue, seed uint64, steps int) []popped {
	r := rand.New(rand.NewPCG(seed, 7))
	type job struct {
		id     ID
		period int64 // 0: a one-shot
		live   bool
	}
	jobs := []*job{}
	seq := uint64(0)
	now := int64(0)
	add := func(when, period int64) {
		seq++
		j := &job{period: period, live: true}
		j.id = q.Push(when, seq, len(jobs))
		jobs = append(jobs, j)
	}
	var trace []popped
	for step := 0; step < steps; step++ {
		for k := r.IntN(4); k > 0; k-- {
			switch r.IntN(5) {
			case 0:
				add(now+r.Int64N(200_000_000_000), 0) // up to 200 s
			case 1:
				add(now+r.Int64N(1e9), 1e9+r.Int64N(59e9)) // intervals 1 to 60 s
			case 2:
				add(now+r.Int64N(3*86400e9), 0) // beyond 24 h
			default:
				add(now+r.Int64N(5e6), 0) // within a few ms
			}
		}
		if len(jobs) > 0 && r.IntN(3) == 0 {
			j := jobs[r.IntN(len(jobs))]
			if j.live {
				q.Remove(j.id)
				j.live = false
			}
		}
		now += r.Int64N(2e9)
		for {
			_, when, s, v, ok := q.PopDue(now)
			if !ok {
				break
			}
			trace = append(trace, popped{when, s, v})
			j := jobs[v]
			if j.period > 0 {
				seq++
				j.id = q.Push(when+j.period, seq, v)
			} else {
				j.live = false
			}
			if v%7 == 0 {
				add(now, 0) // due at once, inside this drain
			}
		}
	}
	return trace
}

// The same random workload through the heap and the wheel fires the same
// entries in the same order.
func TestWheelHeapSameTrace(t *testing.T) {
	for seed := range uint64(3) {
		h := &heapQueue{}
		w := newWheel(t, DefaultGeometry(), 0)
		want := runWorkload(h, seed, 2000)
		got := runWorkload(w, seed, 2000)
		if len(want) < 1000 {
			t.Fatalf("seed %d: only %d fires", seed, len(want))
		}
		if !slices.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Fatalf("seed %d: traces differ at fire %d of %d/%d", seed, i, len(got), len(want))
		}
	}
}

// Many goroutines add and remove while one drains: every entry leaves
// exactly once, by Remove or by Due. Run under -race.
func TestShardedConcurrent(t *testing.T) {
	s, err := NewSharded[int](small, 0, 8)
	if err != nil {
		t.Fatal(err)
	}
	const workers, per = 4, 2000
	removed := make([]int, workers)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			var hs []Handle
			for i := range per {
				h, err := s.Add(r.Int64N(5000), g*per+i)
				if err != nil {
					t.Error(err)
					return
				}
				hs = append(hs, h)
				if r.IntN(2) == 0 {
					k := r.IntN(len(hs))
					if s.Remove(hs[k]) {
						removed[g]++
					}
					hs[k] = Handle{}
				}
			}
		}()
	}
	seen := make(map[int]bool)
	fired := 0
	var now int64
	drain := func() {
		s.Due(now, func(when int64, v int) {
			if seen[v] {
				t.Errorf("%d fired twice", v)
			}
			seen[v] = true
			fired++
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; now += 50 {
		select {
		case <-done:
			running = false
		default:
		}
		drain()
	}
	now = math.MaxInt64
	drain()
	total := fired
	for _, r := range removed {
		total += r
	}
	if total != workers*per || s.Len() != 0 {
		t.Fatalf("fired %d + removed %d != added %d (Len %d)", fired, total-fired, workers*per, s.Len())
	}
	if _, err := s.Add(1, 0); err != nil {
		t.Fatal(err)
	}
	if n := s.Stop(); n != 1 {
		t.Fatalf("Stop dropped %d, want 1", n)
	}
	if _, err := s.Add(1, 0); err != ErrStopped {
		t.Fatalf("Add after Stop: %v, want ErrStopped", err)
	}
	if s.Remove(Handle{}) {
		t.Fatal("Remove(zero Handle) = true")
	}
}

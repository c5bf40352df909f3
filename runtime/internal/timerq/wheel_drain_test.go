package timerq

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// drainQueue is what the typed scheduler uses of its queue: a pass over
// what is due that re-keys in place, and Peek and Pop of the smallest.
type drainQueue interface {
	Push(when int64, seq uint64, v int) ID
	Remove(id ID) (int, bool)
	Update(id ID, when int64, seq uint64) bool
	Peek() (ID, int64, uint64, int, bool)
	Pop() (ID, int64, uint64, int, bool)
	peekDue(upTo int64) func() (ID, int64, uint64, int, bool)
}

type heapDrainQueue struct{ Heap[int] }

func (h *heapDrainQueue) peekDue(upTo int64) func() (ID, int64, uint64, int, bool) {
	d := h.Drain(upTo)
	return d.Peek
}

type wheelDrainQueue struct{ *Wheel[int] }

func (w wheelDrainQueue) peekDue(upTo int64) func() (ID, int64, uint64, int, bool) {
	d := w.Drain(upTo)
	return d.Peek
}

// runDrainWorkload drives q as the scheduler does: intervals re-keyed in
// place during a pass, one-shots taken with Pop, work pushed and cancelled
// from inside the pass, and jumps to the next deadline by Peek. It returns
// every fire and every Peek, in order.
func runDrainWorkload(q drainQueue, seed uint64, steps int) []popped {
	r := rand.New(rand.NewPCG(seed, 11))
	period := map[int]int64{}
	ids := map[int]ID{}
	seq, now, next := uint64(0), int64(0), 0
	add := func(when, p int64) {
		seq++
		ids[next] = q.Push(when, seq, next)
		period[next] = p
		next++
	}
	var trace []popped
	for range steps {
		for k := r.IntN(4); k > 0; k-- {
			switch r.IntN(4) {
			case 0:
				add(now+r.Int64N(90e9), 0)
			case 1:
				add(now+r.Int64N(1e9), 1e6+r.Int64N(30e9))
			case 2:
				add(now+r.Int64N(2*86400e9), 0) // beyond the horizon
			default:
				add(now+r.Int64N(5e6), 0)
			}
		}
		if next > 0 && r.IntN(3) == 0 {
			v := r.IntN(next)
			if id, ok := ids[v]; ok {
				q.Remove(id)
				delete(ids, v)
			}
		}
		if r.IntN(5) == 0 {
			// Jump to the earliest deadline, as Next and RunAll do.
			if _, when, s, v, ok := q.Peek(); ok {
				trace = append(trace, popped{when, s, -1 - v})
				now = max(now, when)
			}
		} else {
			now += r.Int64N(3e9)
		}
		peek := q.peekDue(now)
		for {
			id, when, s, v, ok := peek()
			if !ok {
				break
			}
			trace = append(trace, popped{when, s, v})
			if p := period[v]; p > 0 {
				seq++
				q.Update(id, when+p, seq)
			} else {
				q.Pop()
				delete(ids, v)
			}
			if v%5 == 0 {
				add(when+r.Int64N(3)*1e6, 0) // due within the pass, or just past it
			}
		}
	}
	for {
		_, when, s, v, ok := q.Pop()
		if !ok {
			break
		}
		trace = append(trace, popped{when, s, v})
	}
	return trace
}

// Driven as a scheduler drives it, the wheel peeks, pops and drains
// exactly what the heap does, in the same order.
func TestWheelDrainSameAsHeap(t *testing.T) {
	small := Geometry{Tick: 1e6, Slots: []int{4, 4, 4}} // 64 ms: most entries overflow
	for _, g := range []Geometry{DefaultGeometry(), small} {
		for seed := range uint64(4) {
			want := runDrainWorkload(&heapDrainQueue{}, seed, 1500)
			got := runDrainWorkload(wheelDrainQueue{newWheel(t, g, 0)}, seed, 1500)
			if len(want) < 1000 {
				t.Fatalf("seed %d: only %d events", seed, len(want))
			}
			if !slices.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Fatalf("%v seed %d: traces differ at event %d of %d/%d", g.Slots, seed, i, len(got), len(want))
			}
		}
	}
}

func TestWheelPeekPopEdges(t *testing.T) {
	w := newWheel(t, DefaultGeometry(), 0)
	if _, _, _, _, ok := w.Peek(); ok {
		t.Fatal("Peek on an empty wheel reported an entry")
	}
	if _, _, _, _, ok := w.Pop(); ok {
		t.Fatal("Pop on an empty wheel reported an entry")
	}
	d := w.Drain(10)
	if _, _, _, _, ok := d.Peek(); ok {
		t.Fatal("Drain.Peek on an empty wheel reported an entry")
	}
	// Peek moves time to the earliest deadline; a later push before it
	// still comes first.
	w.Push(50e9, 2, 2)
	if _, when, _, v, ok := w.Peek(); !ok || when != 50e9 || v != 2 {
		t.Fatalf("Peek = %d %d %v, want 50e9 2 true", when, v, ok)
	}
	w.Push(20e9, 3, 3)
	w.Push(50e9, 1, 1)
	d = w.Drain(49e9)
	if _, when, _, v, ok := d.Peek(); !ok || when != 20e9 || v != 3 {
		t.Fatalf("Drain(49e9).Peek = %d %d %v, want 20e9 3 true", when, v, ok)
	}
	w.Pop()
	if _, _, _, _, ok := d.Peek(); ok {
		t.Fatal("Drain(49e9).Peek reported an entry due at 50e9")
	}
	for _, want := range []int{1, 2} {
		if _, _, _, v, ok := w.Pop(); !ok || v != want {
			t.Fatalf("Pop = %d %v, want %d", v, ok, want)
		}
	}
	if w.Len() != 0 {
		t.Fatalf("Len = %d after popping everything", w.Len())
	}
}

package timerq

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// The model is a slice of queued values kept sorted by (when, seq). A
// harness applies every operation to a Heap and to the model and compares
// what they return; a second heap, "other", holds some of the same pool of
// values so the tests also cover values queued in another queue.

type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

type modelEntry struct {
	x    *item
	when int64
	seq  uint64
}

type harness struct {
	t       tb
	h       *Heap[*item]
	other   Heap[*item]
	pool    []*item
	model   []modelEntry // values queued in h, sorted by key
	inOther map[*item]bool
	seq     uint64
}

func newHarness(t tb, poolSize, capacity int) *harness {
	hs := &harness{t: t, h: NewHeap[*item](capacity), inOther: map[*item]bool{}}
	for i := range poolSize {
		hs.pool = append(hs.pool, &item{name: fmt.Sprint(i)})
	}
	return hs
}

func (hs *harness) find(x *item) int {
	return slices.IndexFunc(hs.model, func(e modelEntry) bool { return e.x == x })
}

func (hs *harness) insert(x *item, when int64, seq uint64) {
	i, _ := slices.BinarySearchFunc(hs.model, modelEntry{when: when, seq: seq}, func(e, k modelEntry) int {
		if before(e.when, e.seq, k.when, k.seq) {
			return -1
		}
		return 1 // equal keys go after the ones already there
	})
	hs.model = slices.Insert(hs.model, i, modelEntry{x, when, seq})
}

func (hs *harness) push(i int, when int64, seq uint64) {
	x := hs.pool[i]
	if hs.find(x) >= 0 || hs.inOther[x] {
		if !panics(func() { hs.h.Push(x, when, seq) }) {
			hs.t.Fatalf("Push of queued %s did not panic", x.name)
		}
		return
	}
	hs.h.Push(x, when, seq)
	hs.insert(x, when, seq)
}

func (hs *harness) pushOther(i int, when int64, seq uint64) {
	x := hs.pool[i]
	if hs.find(x) >= 0 || hs.inOther[x] {
		return
	}
	hs.other.Push(x, when, seq)
	hs.inOther[x] = true
}

func (hs *harness) remove(i int) {
	x := hs.pool[i]
	j := hs.find(x)
	if got := hs.h.Remove(x); got != (j >= 0) {
		hs.t.Fatalf("Remove(%s) = %v, model has it at %d", x.name, got, j)
	}
	if j >= 0 {
		hs.model = slices.Delete(hs.model, j, j+1)
	}
}

func (hs *harness) update(i int, when int64, seq uint64) {
	x := hs.pool[i]
	if hs.inOther[x] {
		if !panics(func() { hs.h.Update(x, when, seq) }) {
			hs.t.Fatalf("Update of %s, queued in another heap, did not panic", x.name)
		}
		return
	}
	if j := hs.find(x); j >= 0 {
		hs.model = slices.Delete(hs.model, j, j+1)
	}
	hs.h.Update(x, when, seq)
	hs.insert(x, when, seq)
}

// takeTop checks that x with key (when, seq) may come first: ok matches
// the model and the key is the smallest. Among equal keys any value may
// come first, so the model entry matched is x's own.
func (hs *harness) takeTop(what string, x *item, when int64, seq uint64, ok bool) int {
	hs.t.Helper()
	if !ok {
		if len(hs.model) != 0 {
			hs.t.Fatalf("%s: empty, model has %d", what, len(hs.model))
		}
		if x != nil || when != 0 || seq != 0 {
			hs.t.Fatalf("%s: empty with non-zero results", what)
		}
		return -1
	}
	if len(hs.model) == 0 {
		hs.t.Fatalf("%s: returned %s, model is empty", what, x.name)
	}
	top := hs.model[0]
	if when != top.when || seq != top.seq {
		hs.t.Fatalf("%s: key %d/%d, model's smallest is %d/%d", what, when, seq, top.when, top.seq)
	}
	j := hs.find(x)
	if j < 0 || hs.model[j].when != when || hs.model[j].seq != seq {
		hs.t.Fatalf("%s: %s with key %d/%d is not in the model with that key", what, x.name, when, seq)
	}
	return j
}

func (hs *harness) pop() {
	x, when, seq, ok := hs.h.Pop()
	if j := hs.takeTop("Pop", x, when, seq, ok); j >= 0 {
		hs.model = slices.Delete(hs.model, j, j+1)
	}
}

func (hs *harness) peek() {
	x, when, seq, ok := hs.h.Peek()
	hs.takeTop("Peek", x, when, seq, ok)
}

func (hs *harness) clear() {
	hs.h.Clear()
	hs.model = hs.model[:0]
}

// check compares everything observable with the model.
func (hs *harness) check() {
	hs.t.Helper()
	checkHeap(hs.t, hs.h)
	checkHeap(hs.t, &hs.other)
	if hs.h.Len() != len(hs.model) {
		hs.t.Fatalf("Len() = %d, model has %d", hs.h.Len(), len(hs.model))
	}
	for _, x := range hs.pool {
		if want := hs.find(x) >= 0 || hs.inOther[x]; x.Queued() != want {
			hs.t.Fatalf("%s.Queued() = %v, want %v", x.name, x.Queued(), want)
		}
	}
	seen := 0
	hs.h.Each(func(x *item, when int64, seq uint64) bool {
		j := hs.find(x)
		if j < 0 || hs.model[j].when != when || hs.model[j].seq != seq {
			hs.t.Fatalf("Each gave %s %d/%d, not in the model", x.name, when, seq)
		}
		seen++
		return true
	})
	if seen != len(hs.model) {
		hs.t.Fatalf("Each visited %d, model has %d", seen, len(hs.model))
	}
}

// Keys come from a small set, so ties on when and on (when, seq) are
// common, plus the integer edges.
var (
	whens = []int64{math.MinInt64, -2, -1, 0, 1, 2, 3, math.MaxInt64}
	seqs  = []uint64{0, 1, 2, math.MaxUint64}
)

func TestHeapModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		poolSize := rapid.SampledFrom([]int{4, 16, 300}).Draw(rt, "pool")
		capacity := rapid.SampledFrom([]int{0, 1, 100}).Draw(rt, "capacity")
		hs := newHarness(rt, poolSize, capacity)
		idx := rapid.IntRange(0, poolSize-1)
		when := rapid.OneOf(rapid.SampledFrom(whens), rapid.Int64())
		seq := rapid.OneOf(rapid.SampledFrom(seqs), rapid.Uint64())
		rt.Repeat(map[string]func(*rapid.T){
			"push": func(rt *rapid.T) {
				hs.push(idx.Draw(rt, "x"), when.Draw(rt, "when"), seq.Draw(rt, "seq"))
			},
			"pushMany": func(rt *rapid.T) {
				for i := range rapid.IntRange(1, 200).Draw(rt, "n") {
					hs.push(i%poolSize, int64(i*7919%401), uint64(i))
				}
			},
			"pushOther": func(rt *rapid.T) {
				hs.pushOther(idx.Draw(rt, "x"), when.Draw(rt, "when"), seq.Draw(rt, "seq"))
			},
			"remove": func(rt *rapid.T) { hs.remove(idx.Draw(rt, "x")) },
			"update": func(rt *rapid.T) {
				hs.update(idx.Draw(rt, "x"), when.Draw(rt, "when"), seq.Draw(rt, "seq"))
			},
			"pop": func(rt *rapid.T) { hs.pop() },
			"popMany": func(rt *rapid.T) {
				for range rapid.IntRange(1, 200).Draw(rt, "n") {
					hs.pop()
				}
			},
			"peek":  func(rt *rapid.T) { hs.peek() },
			"clear": func(rt *rapid.T) { hs.clear() },
			"":      func(rt *rapid.T) { hs.check() },
		})
	})
}

// FuzzHeap runs the same harness on an op sequence read from the input,
// three bytes per op: op and value, when, seq.
func FuzzHeap(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 3, 1, 0, 4, 2, 0, 5, 0, 5, 0, 0, 5, 0, 0, 5, 0, 0})
	f.Add([]byte{0, 1, 1, 16, 2, 1, 32, 0, 0, 48, 5, 1, 64, 0, 0, 80, 0, 0})
	f.Add([]byte{0, 0, 0, 1, 7, 3, 2, 1, 0, 3, 6, 2, 4, 0, 0, 6, 0, 0, 7, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		const poolSize = 16
		hs := newHarness(t, poolSize, 0)
		for ; len(data) >= 3; data = data[3:] {
			i := int(data[0]>>4) % poolSize
			when := whens[int(data[1])%len(whens)]
			seq := seqs[int(data[2])%len(seqs)]
			if data[1] >= 128 {
				when = int64(data[1]) - 192 // dense keys, fewer ties
			}
			switch data[0] % 9 {
			case 0, 1:
				hs.push(i, when, seq)
			case 2:
				hs.pushOther(i, when, seq)
			case 3:
				hs.remove(i)
			case 4:
				hs.update(i, when, seq)
			case 5:
				hs.pop()
			case 6:
				hs.peek()
			case 7:
				if data[1] == 0 {
					hs.clear()
				}
			case 8:
				for n := range int(data[1]) {
					hs.push(n%poolSize, int64(n*31%7), uint64(n))
				}
			}
			hs.check()
		}
	})
}

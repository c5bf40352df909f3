package timerq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// The model is a slice of queued entries kept sorted by (when, seq), and
// the IDs the heap must hand out: released ones, last released first, then
// new ones from the end of the table, all forgotten once the heap is empty.
// A harness applies every operation to a Heap and to the model and compares
// what they return; after every step it checks the heap's internals with
// checkHeap and everything observable against the model.

type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

type modelEntry struct {
	id   ID
	when int64
	seq  uint64
	v    *item
}

type harness struct {
	t     tb
	h     *Heap[*item]
	model []modelEntry // queued entries, sorted by key
	free  []ID         // released IDs; the last is handed out next
	next  ID           // the ID after the free ones run out
	maxID ID           // largest ID handed out, for picking stale ones
	made  int          // values created, to name them
}

// newHarness starts from NewHeap(capacity), or from the zero Heap if
// capacity is negative.
func newHarness(t tb, capacity int) *harness {
	hs := &harness{t: t, h: &Heap[*item]{}, maxID: -1}
	if capacity >= 0 {
		hs.h = NewHeap[*item](capacity)
	}
	return hs
}

func (hs *harness) find(id ID) int {
	return slices.IndexFunc(hs.model, func(e modelEntry) bool { return e.id == id })
}

func (hs *harness) insert(e modelEntry) {
	i, _ := slices.BinarySearchFunc(hs.model, e, func(m, k modelEntry) int {
		if before(m.when, m.seq, k.when, k.seq) {
			return -1
		}
		return 1 // equal keys go after the ones already there
	})
	hs.model = slices.Insert(hs.model, i, e)
}

// delete takes model entry j out and releases its ID.
func (hs *harness) delete(j int) {
	id := hs.model[j].id
	hs.model = slices.Delete(hs.model, j, j+1)
	hs.free = append(hs.free, id)
	if len(hs.model) == 0 {
		hs.free, hs.next = nil, 0
	}
}

func (hs *harness) push(when int64, seq uint64) {
	hs.t.Helper()
	hs.made++
	v := &item{name: fmt.Sprint("v", hs.made)}
	want := hs.next
	if n := len(hs.free); n > 0 {
		want, hs.free = hs.free[n-1], hs.free[:n-1]
	} else {
		hs.next++
	}
	if id := hs.h.Push(when, seq, v); id != want {
		hs.t.Fatalf("Push(%d, %d) = #%d, want #%d", when, seq, id, want)
	}
	hs.maxID = max(hs.maxID, want)
	hs.insert(modelEntry{want, when, seq, v})
}

// pushMany pushes n entries: with wide set, keys spread over all of int64
// (a sort of more than 16 of them takes the radix path); else keys from a
// few whens and seqs, so many are equal.
// fuzzMaxQueued bounds FuzzHeap's bulk pushes: room for the radix sort's
// path and for shrinking, and quick steps.
const fuzzMaxQueued = 4096

func (hs *harness) pushMany(n int, wide bool, seed uint64) {
	hs.t.Helper()
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	for i := range n {
		if wide {
			when := int64(r.Uint64()) // both signs, all bytes
			switch r.IntN(16) {
			case 0:
				when = math.MinInt64
			case 1:
				when = math.MaxInt64
			case 2, 3:
				when = r.Int64N(64) - 32 // some equal whens among the spread
			}
			hs.push(when, r.Uint64())
			continue
		}
		hs.push(int64(i*7919%13)-6, uint64(i%3))
	}
}

func (hs *harness) get(id ID) {
	hs.t.Helper()
	when, seq, v, ok := hs.h.Get(id)
	j := hs.find(id)
	if ok != (j >= 0) {
		hs.t.Fatalf("Get(#%d) ok = %v, model has it at %d", id, ok, j)
	}
	if !ok {
		if when != 0 || seq != 0 || v != nil {
			hs.t.Fatalf("Get(#%d) not queued with non-zero results %d/%d %v", id, when, seq, v)
		}
		return
	}
	if e := hs.model[j]; when != e.when || seq != e.seq || v != e.v {
		hs.t.Fatalf("Get(#%d) = %s %d/%d, model has %s %d/%d", id, v.name, when, seq, e.v.name, e.when, e.seq)
	}
}

func (hs *harness) remove(id ID) {
	hs.t.Helper()
	v, ok := hs.h.Remove(id)
	j := hs.find(id)
	if ok != (j >= 0) {
		hs.t.Fatalf("Remove(#%d) ok = %v, model has it at %d", id, ok, j)
	}
	if !ok {
		if v != nil {
			hs.t.Fatalf("Remove(#%d) not queued returned %s", id, v.name)
		}
		return
	}
	if v != hs.model[j].v {
		hs.t.Fatalf("Remove(#%d) = %s, model has %s", id, v.name, hs.model[j].v.name)
	}
	hs.delete(j)
}

// removeSeq checks RemoveSeq: it removes the entry id only if its seq is
// seq.
func (hs *harness) removeSeq(id ID, seq uint64) {
	hs.t.Helper()
	v, ok := hs.h.RemoveSeq(id, seq)
	j := hs.find(id)
	if want := j >= 0 && hs.model[j].seq == seq; ok != want {
		hs.t.Fatalf("RemoveSeq(#%d, %d) ok = %v, want %v", id, seq, ok, want)
	}
	if !ok {
		if v != nil {
			hs.t.Fatalf("RemoveSeq(#%d, %d) not queued returned %s", id, seq, v.name)
		}
		return
	}
	if v != hs.model[j].v {
		hs.t.Fatalf("RemoveSeq(#%d, %d) = %s, model has %s", id, seq, v.name, hs.model[j].v.name)
	}
	hs.delete(j)
}

// seqOf returns the seq of the entry id if it is queued, else seq.
func (hs *harness) seqOf(id ID, seq uint64) uint64 {
	if j := hs.find(id); j >= 0 {
		return hs.model[j].seq
	}
	return seq
}

func (hs *harness) update(id ID, when int64, seq uint64) {
	hs.t.Helper()
	ok := hs.h.Update(id, when, seq)
	j := hs.find(id)
	if ok != (j >= 0) {
		hs.t.Fatalf("Update(#%d) = %v, model has it at %d", id, ok, j)
	}
	if ok {
		e := hs.model[j]
		hs.model = slices.Delete(hs.model, j, j+1)
		e.when, e.seq = when, seq
		hs.insert(e)
	}
}

// rekeyTop re-keys the smallest entry to delta ns later, as a scheduler
// does with an interval that fires: the pattern that fills the far ring.
func (hs *harness) rekeyTop(delta int64) {
	hs.t.Helper()
	id, when, seq, _, ok := hs.h.Peek()
	if !ok {
		return
	}
	if when > math.MaxInt64-delta {
		when = math.MaxInt64 - delta
	}
	hs.update(id, when+delta, seq)
}

// withFarMin makes the harness's heap start its far ring at n entries.
func (hs *harness) withFarMin(n int) *harness {
	hs.h.tuned().farMin = n
	return hs
}

// takeTop checks that entry id may come first: ok matches the model and
// the key is the smallest. Among equal keys any entry may come first, so
// the model entry matched is id's own; it returns its index.
func (hs *harness) takeTop(what string, id ID, when int64, seq uint64, v *item, ok bool) int {
	hs.t.Helper()
	if !ok {
		if len(hs.model) != 0 {
			hs.t.Fatalf("%s: empty, model has %d", what, len(hs.model))
		}
		if id != 0 || when != 0 || seq != 0 || v != nil {
			hs.t.Fatalf("%s: empty with non-zero results #%d %d/%d %v", what, id, when, seq, v)
		}
		return -1
	}
	if len(hs.model) == 0 {
		hs.t.Fatalf("%s: returned #%d, model is empty", what, id)
	}
	if top := hs.model[0]; when != top.when || seq != top.seq {
		hs.t.Fatalf("%s: key %d/%d, model's smallest is %d/%d", what, when, seq, top.when, top.seq)
	}
	j := hs.find(id)
	if j < 0 || hs.model[j].when != when || hs.model[j].seq != seq || hs.model[j].v != v {
		hs.t.Fatalf("%s: #%d %d/%d is not in the model with that key and value", what, id, when, seq)
	}
	return j
}

func (hs *harness) pop() {
	hs.t.Helper()
	id, when, seq, v, ok := hs.h.Pop()
	if j := hs.takeTop("Pop", id, when, seq, v, ok); j >= 0 {
		hs.delete(j)
	}
}

func (hs *harness) peek() {
	hs.t.Helper()
	id, when, seq, v, ok := hs.h.Peek()
	hs.takeTop("Peek", id, when, seq, v, ok)
}

func (hs *harness) clear() {
	hs.h.Clear()
	hs.model, hs.free, hs.next = nil, nil, 0
}

// sortDue checks that sortDue moves exactly the heap's entries due by upTo
// into the run; the model does not change.
func (hs *harness) sortDue(upTo int64) {
	hs.t.Helper()
	notRun := func() []slot[*item] { // the heap's entries and the hot one
		s := slices.Clone(hs.h.s)
		if hs.h.hasHot {
			s = append(s, hs.h.hot)
		}
		return s
	}
	due := 0
	for _, e := range notRun() {
		if e.when <= upTo {
			due++
		}
	}
	inHeap, inRun := len(notRun()), hs.h.run.len()
	hs.h.sortDue(upTo)
	if len(notRun()) != inHeap-due || hs.h.run.len() != inRun+due {
		hs.t.Fatalf("sortDue(%d) of %d due: heap %d -> %d, run %d -> %d", upTo, due, inHeap, len(notRun()), inRun, hs.h.run.len())
	}
	for _, e := range notRun() {
		if e.when <= upTo {
			hs.t.Fatalf("sortDue(%d) left #%d %d/%d out of the run", upTo, e.id, e.when, e.seq)
		}
	}
}

// drain takes every entry due by upTo through a Drain, the way a scheduler
// fires its due jobs, with the sort policy set to (minLen, shift): each due
// entry is popped, removed, re-keyed past upTo (an interval), or, one time
// in four, taken while a new due entry is pushed (a job scheduling work
// inside the window). Peek must give the model's smallest due entry, and
// once the drain has taken the policy's share, the heap and the hot entry
// must hold nothing due: it sorted them into the run.
func (hs *harness) drain(upTo int64, minLen, shift int, seed uint64) {
	hs.t.Helper()
	hs.h.SetSortPolicy(minLen, shift)
	sortAt := -1
	if n := hs.h.Len(); n >= minLen {
		sortAt = n >> shift
	}
	d := hs.h.Drain(upTo)
	for k := 0; ; k++ {
		id, when, seq, v, ok := d.Peek()
		if len(hs.model) == 0 || hs.model[0].when > upTo {
			if ok || id != 0 || when != 0 || seq != 0 || v != nil {
				hs.t.Fatalf("Drain(%d).Peek() = #%d %d/%d %v %v, nothing is due", upTo, id, when, seq, v, ok)
			}
			return
		}
		j := hs.takeTop(fmt.Sprintf("Drain(%d).Peek", upTo), id, when, seq, v, ok)
		if k == sortAt {
			if hs.h.hasHot && hs.h.hot.when <= upTo {
				hs.t.Fatalf("Drain(%d) took %d of %d: the hot entry is due and not sorted", upTo, k, sortAt)
			}
			for _, e := range hs.h.s {
				if e.when <= upTo {
					hs.t.Fatalf("Drain(%d) took %d of %d: #%d %d/%d is due and still in the heap", upTo, k, sortAt, e.id, e.when, e.seq)
				}
			}
		}
		switch (seed + uint64(k)) % 4 {
		case 0:
			hs.pop()
		case 1:
			hs.remove(id)
		case 2:
			if upTo < math.MaxInt64 {
				hs.update(id, upTo+1+int64(seed%1000), seq)
			} else {
				hs.delete(j)
				hs.h.Pop()
			}
		case 3:
			hs.pop()
			hs.push(when, seq^seed)
		}
	}
}

// check compares everything observable with the model.
func (hs *harness) check() {
	hs.t.Helper()
	checkHeap(hs.t, hs.h)
	if hs.h.Len() != len(hs.model) {
		hs.t.Fatalf("Len() = %d, model has %d", hs.h.Len(), len(hs.model))
	}
	want := make(map[ID]modelEntry, len(hs.model))
	for _, e := range hs.model {
		want[e.id] = e
	}
	hs.h.Each(func(id ID, when int64, seq uint64, v *item) bool {
		e, ok := want[id]
		if !ok || e.when != when || e.seq != seq || e.v != v {
			hs.t.Fatalf("Each gave #%d %d/%d, not in the model or visited twice", id, when, seq)
		}
		delete(want, id)
		return true
	})
	if len(want) != 0 {
		hs.t.Fatalf("Each missed %d queued entries", len(want))
	}
	// Get of every queued entry, checked against the entry itself: a
	// lookup by ID per entry would make each step quadratic, and the
	// fuzzer finds inputs with tens of thousands of entries.
	for _, e := range hs.model {
		when, seq, v, ok := hs.h.Get(e.id)
		if !ok || when != e.when || seq != e.seq || v != e.v {
			hs.t.Fatalf("Get(#%d) = %d/%d %v, want %d/%d %v", e.id, when, seq, ok, e.when, e.seq, true)
		}
	}
}

// checkHeap verifies the heap's internals: the heap order over h.s; that
// pos records every slot, the hot entry and every run entry; that the run
// is sorted, its dead slots are zeroed and an empty run holds no memory;
// that the free chain holds exactly the IDs not queued; that no slot past
// the end, nor an empty hot entry, references a value; and that an empty
// heap has no ID table.
func checkHeap[V comparable](t tb, h *Heap[V]) {
	t.Helper()
	n := len(h.s) + h.run.live + h.farN
	if h.hasHot {
		n++
	}
	if h.Len() != n {
		t.Fatalf("Len() = %d, heap %d + run %d + far %d + hot %v", h.Len(), len(h.s), h.run.live, h.farN, h.hasHot)
	}
	seen := make([]bool, len(h.pos))
	// mark runs for every entry at every step: it formats where, and walks
	// the stack for t.Helper, only on failure.
	mark := func(id ID, where string, i int) {
		if id >= 0 && int(id) < len(h.pos) && !seen[id] {
			seen[id] = true
			return
		}
		t.Helper()
		if i >= 0 {
			where = fmt.Sprint(where, " ", i)
		}
		if id < 0 || int(id) >= len(h.pos) {
			t.Fatalf("%s holds #%d, outside the ID table of %d", where, id, len(h.pos))
		}
		t.Fatalf("%s holds #%d, which is queued twice", where, id)
	}
	s := h.s
	for i, e := range s {
		mark(e.id, "slot", i)
		if p := h.pos[e.id]; p != heapLoc(i) {
			t.Fatalf("slot %d holds #%d, whose pos is %d", i, e.id, p)
		}
		if p := (i - 1) / 4; i > 0 && before(e.when, e.seq, s[p].when, s[p].seq) {
			t.Fatalf("slot %d (%d/%d) sorts before its parent %d (%d/%d)", i, e.when, e.seq, p, s[p].when, s[p].seq)
		}
	}
	for i, e := range s[len(s):cap(s)] {
		if e != (slot[V]{}) {
			t.Fatalf("vacated slot %d still holds #%d %d/%d %v", len(s)+i, e.id, e.when, e.seq, e.v)
		}
	}

	if h.hasHot {
		mark(h.hot.id, "the hot entry", -1)
		if p := h.pos[h.hot.id]; p != hotLoc {
			t.Fatalf("the hot entry is #%d, whose pos is %d", h.hot.id, p)
		}
	} else if h.hot != (slot[V]{}) {
		t.Fatalf("empty hot entry still holds #%d %d/%d %v", h.hot.id, h.hot.when, h.hot.seq, h.hot.v)
	}

	r := &h.run
	if r.live == 0 && (r.s != nil || r.head != 0) {
		t.Fatalf("empty run keeps %d slots, head %d", cap(r.s), r.head)
	}
	if r.live > 0 && (r.head >= len(r.s) || r.s[r.head].id < 0) {
		t.Fatalf("run head %d of %d is not a live entry", r.head, len(r.s))
	}
	live := 0
	var prev *slot[V]
	for i := range r.s {
		e := &r.s[i]
		if e.id < 0 {
			if *e != (slot[V]{id: -1}) {
				t.Fatalf("dead run slot %d still holds %d/%d %v", i, e.when, e.seq, e.v)
			}
			continue
		}
		if i < r.head {
			t.Fatalf("run slot %d, before head %d, holds #%d", i, r.head, e.id)
		}
		live++
		mark(e.id, "run slot", i)
		if p := h.pos[e.id]; p != runLoc(i) {
			t.Fatalf("run slot %d holds #%d, whose pos is %d", i, e.id, p)
		}
		if prev != nil && before(e.when, e.seq, prev.when, prev.seq) {
			t.Fatalf("run slot %d (%d/%d) sorts before the live one ahead of it (%d/%d)", i, e.when, e.seq, prev.when, prev.seq)
		}
		prev = e
	}
	if live != r.live {
		t.Fatalf("run counts %d live entries, holds %d", r.live, live)
	}

	checkFar(t, h, mark)

	if n == 0 && len(h.pos) != 0 {
		t.Fatalf("empty heap kept an ID table of %d", len(h.pos))
	}
	if len(h.pos) == 0 {
		if h.free != 0 {
			t.Fatalf("no ID table, free list starts at #%d", h.free-1)
		}
		return
	}
	free := 0
	for f := h.free; f != 0; f = h.pos[f-1].nextFree() {
		id := ID(f - 1)
		if id < 0 || int(id) >= len(h.pos) {
			t.Fatalf("free list reaches #%d, outside the ID table of %d", id, len(h.pos))
		}
		if seen[id] {
			t.Fatalf("#%d is on the free list but queued, or on it twice", id)
		}
		if !h.pos[id].isFree() {
			t.Fatalf("free #%d has pos %d", id, h.pos[id])
		}
		seen[id] = true
		free++
	}
	if n+free != len(h.pos) {
		t.Fatalf("%d queued + %d free IDs, table of %d", n, free, len(h.pos))
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
		capacity := rapid.SampledFrom([]int{-1, 0, 1, 100}).Draw(rt, "capacity")
		hs := newHarness(rt, capacity).withFarMin(rapid.SampledFrom([]int{2, 16, 4096}).Draw(rt, "farMin"))
		when := rapid.OneOf(rapid.SampledFrom(whens), rapid.Int64())
		seq := rapid.OneOf(rapid.SampledFrom(seqs), rapid.Uint64())
		// pickID draws a queued ID, or any: stale, never handed out,
		// negative or far out of range.
		pickID := func(rt *rapid.T) ID {
			if len(hs.model) > 0 && rapid.Bool().Draw(rt, "queued") {
				return hs.model[rapid.IntRange(0, len(hs.model)-1).Draw(rt, "i")].id
			}
			return ID(rapid.OneOf(
				rapid.Int32Range(-2, int32(hs.maxID)+2),
				rapid.SampledFrom([]int32{math.MinInt32, maxLen, maxLen + 1, math.MaxInt32}),
			).Draw(rt, "id"))
		}
		rt.Repeat(map[string]func(*rapid.T){
			"push": func(rt *rapid.T) { hs.push(when.Draw(rt, "when"), seq.Draw(rt, "seq")) },
			"pushMany": func(rt *rapid.T) {
				hs.pushMany(rapid.IntRange(1, 600).Draw(rt, "n"), rapid.Bool().Draw(rt, "wide"), rapid.Uint64().Draw(rt, "seed"))
			},
			"get":    func(rt *rapid.T) { hs.get(pickID(rt)) },
			"remove": func(rt *rapid.T) { hs.remove(pickID(rt)) },
			"removeSeq": func(rt *rapid.T) {
				id, s := pickID(rt), seq.Draw(rt, "seq")
				if rapid.Bool().Draw(rt, "itsSeq") {
					s = hs.seqOf(id, s)
				}
				hs.removeSeq(id, s)
			},
			"update": func(rt *rapid.T) {
				hs.update(pickID(rt), when.Draw(rt, "when"), seq.Draw(rt, "seq"))
			},
			"rekeyTop": func(rt *rapid.T) {
				for range rapid.IntRange(1, 300).Draw(rt, "n") {
					hs.rekeyTop(rapid.OneOf(rapid.Int64Range(0, 600), rapid.Int64Range(0, math.MaxInt64)).Draw(rt, "delta"))
				}
			},
			"pop": func(rt *rapid.T) { hs.pop() },
			"popMany": func(rt *rapid.T) {
				for range rapid.IntRange(1, 600).Draw(rt, "n") {
					hs.pop()
				}
			},
			"peek":  func(rt *rapid.T) { hs.peek() },
			"clear": func(rt *rapid.T) { hs.clear() },
			"sortDue": func(rt *rapid.T) {
				upTo := when.Draw(rt, "upTo")
				if len(hs.model) > 0 && rapid.Bool().Draw(rt, "split") {
					upTo = hs.model[rapid.IntRange(0, len(hs.model)-1).Draw(rt, "at")].when
				}
				hs.sortDue(upTo)
			},
			"drain": func(rt *rapid.T) {
				upTo := when.Draw(rt, "upTo")
				if len(hs.model) > 0 && rapid.Bool().Draw(rt, "split") {
					upTo = hs.model[rapid.IntRange(0, len(hs.model)-1).Draw(rt, "at")].when
				}
				minLen := rapid.SampledFrom([]int{0, 1, 64, sortMin}).Draw(rt, "minLen")
				hs.drain(upTo, minLen, rapid.IntRange(0, 4).Draw(rt, "shift"), rapid.Uint64().Draw(rt, "seed"))
			},
			"": func(rt *rapid.T) { hs.check() },
		})
	})
}

// FuzzHeap runs the same harness on an op sequence read from the input,
// three bytes per op: op and ID, then when and seq (or a count).
func FuzzHeap(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 3, 1, 0, 4, 2, 0, 5, 0, 5, 0, 0, 5, 0, 0, 5, 0, 0})
	f.Add([]byte{0, 1, 1, 0x13, 2, 1, 0x24, 0, 0, 0x35, 5, 1, 6, 0, 0, 5, 0, 0})
	f.Add([]byte{9, 100, 0, 8, 130, 0, 0x13, 0, 0, 0x24, 140, 1, 10, 50, 0, 9, 30, 1, 8, 7, 0, 10, 200, 0})
	f.Add([]byte{9, 120, 1, 8, 7, 0, 0, 200, 3, 10, 20, 0, 7, 0, 0, 0, 150, 2, 0x23, 0, 0, 2, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		hs := newHarness(t, int(len(data)%3)-1).withFarMin(2 + len(data)%64)
		for ; len(data) >= 3; data = data[3:] {
			id := ID(data[0]>>4) - 1
			if id == 14 {
				id = hs.maxID + 1 // never handed out yet
			}
			when := whens[int(data[1])%len(whens)]
			if data[1] >= 128 {
				when = int64(data[1]) - 192 // dense keys, fewer ties
			}
			seq := seqs[int(data[2])%len(seqs)]
			switch (data[0] & 15) % 12 {
			case 0, 1:
				hs.push(when, seq)
			case 2:
				hs.get(id)
			case 3:
				hs.remove(id)
			case 4:
				hs.update(id, when, seq)
			case 5:
				hs.pop()
			case 6:
				hs.peek()
			case 7:
				switch {
				case data[1] == 0:
					hs.clear()
				case data[1]&1 != 0:
					hs.removeSeq(id, hs.seqOf(id, seq))
				default:
					hs.removeSeq(id, seq)
				}
			case 8:
				if data[2]&4 == 0 {
					hs.sortDue(when)
				} else {
					// A drain: the seq byte's upper bits pick the policy.
					hs.drain(when, int(data[2]>>5), int(data[2]>>3&3), uint64(data[0]))
				}
			case 9:
				// At most fuzzMaxQueued entries: each step checks the whole
				// model, and a fuzzed input of many bulk pushes would
				// otherwise run for minutes.
				if n := min(3*int(data[1]), fuzzMaxQueued-len(hs.model)); n > 0 {
					hs.pushMany(n, data[2]&1 != 0, uint64(data[2]))
				}
			case 10:
				for range int(data[1]) {
					hs.pop()
				}
			case 11:
				// A few re-keys per op: each one's model update is O(n).
				for i := range int(data[2])%16 + 1 {
					hs.rekeyTop(int64(data[1]) * int64(i%7+1))
				}
			}
			hs.check()
		}
	})
}

// checkFar verifies the far ring: every entry sits in the bucket of its
// deadline, within the ring's window, with its position recorded; chunks
// are full except each bucket's newest, and unused slots hold nothing; the
// free chunks and the buckets' chunks are the whole arena; an unstarted or
// empty heap has no ring.
func checkFar[V comparable](t tb, h *Heap[V], mark func(ID, string, int)) {
	t.Helper()
	if !h.farOn {
		if h.farN != 0 || h.far != nil && len(h.pos) == 0 {
			t.Fatalf("ring not started holds %d entries (arena %v)", h.farN, h.far != nil)
		}
		return
	}
	r := h.far
	w := uint64(1) << h.farShift
	if h.farShift > farShiftMax || h.farBase&int64(w-1) != 0 {
		t.Fatalf("ring base %d, shift %d", h.farBase, h.farShift)
	}
	used := make([]bool, len(r.chunks))
	count := 0
	for b, tl := range r.tail {
		newest := true
		for c := tl; c >= 0; c = r.chunks[c].prev {
			if used[c] {
				t.Fatalf("chunk %d is in two buckets, or twice in bucket %d", c, b)
			}
			used[c] = true
			ch := &r.chunks[c]
			if ch.n <= 0 || ch.n > farChunk || !newest && ch.n != farChunk {
				t.Fatalf("bucket %d: chunk %d holds %d (newest %v)", b, c, ch.n, newest)
			}
			newest = false
			for i, e := range ch.s {
				if int32(i) >= ch.n {
					if e != (slot[V]{}) {
						t.Fatalf("bucket %d: unused slot %d of chunk %d holds #%d", b, i, c, e.id)
					}
					continue
				}
				count++
				mark(e.id, "far bucket", b)
				if p := h.pos[e.id]; p != farLoc(c, int32(i)) {
					t.Fatalf("far #%d in chunk %d slot %d has pos %d", e.id, c, i, p)
				}
				if e.when < h.farBase || uint64(e.when)-uint64(h.farBase) >= farBuckets*w || e.when > h.farMax {
					t.Fatalf("far #%d at %d is outside the ring [%d, +%d)", e.id, e.when, h.farBase, farBuckets*w)
				}
				if int((e.when>>h.farShift)&(farBuckets-1)) != b {
					t.Fatalf("far #%d at %d is in bucket %d", e.id, e.when, b)
				}
			}
		}
	}
	if count != h.farN {
		t.Fatalf("ring counts %d entries, holds %d", h.farN, count)
	}
	for c := r.free; c >= 0; c = r.chunks[c].prev {
		if used[c] {
			t.Fatalf("chunk %d is free and in use", c)
		}
		used[c] = true
		if r.chunks[c].n != 0 || r.chunks[c].s != ([farChunk]slot[V]{}) {
			t.Fatalf("free chunk %d holds entries", c)
		}
	}
	for c, u := range used {
		if !u {
			t.Fatalf("chunk %d is neither free nor in a bucket", c)
		}
	}
}

// TestFarRingModel drives the far ring through the harness the way a
// scheduler's drain of intervals does, and then through every operation on
// the entries it holds: re-keys of the top into the ring, removes, updates
// into, within and out of the ring, sortDue beside it, and pops to empty.
func TestFarRingModel(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			hs := newHarness(t, -1).withFarMin(64)
			for i := range 400 {
				hs.push(r.Int64N(60_000), uint64(i))
			}
			// A drain: the top is re-keyed by its period, 1 to 60 "s".
			for range 3000 {
				hs.rekeyTop(1000 + r.Int64N(59_000))
			}
			hs.check()
			if hs.h.farN == 0 {
				t.Fatal("the drain put nothing in the far ring")
			}
			for step := range 3000 {
				id := hs.model[r.IntN(len(hs.model))].id
				switch step % 6 {
				case 0:
					hs.remove(id)
					hs.push(hs.model[0].when+r.Int64N(90_000), uint64(10_000+step))
				case 1:
					hs.removeSeq(id, hs.seqOf(id, 0))
					hs.push(hs.model[0].when+r.Int64N(90_000), uint64(10_000+step))
				case 2:
					hs.update(id, hs.model[0].when+r.Int64N(90_000), uint64(20_000+step))
				case 3:
					hs.update(id, hs.model[0].when-r.Int64N(10), uint64(20_000+step))
				case 4:
					hs.rekeyTop(r.Int64N(60_000))
				case 5:
					if step%60 == 5 {
						hs.sortDue(hs.model[len(hs.model)/8].when)
					}
					hs.pop()
					hs.push(hs.model[0].when+r.Int64N(60_000), uint64(30_000+step))
				}
				if step%97 == 0 {
					hs.check()
				}
			}
			hs.check()
			for len(hs.model) > 0 {
				hs.pop()
			}
			hs.check()
			if hs.h.far != nil || hs.h.farOn {
				t.Fatal("an emptied heap kept its far ring")
			}
		})
	}
}

// The far ring's parameters follow the deadlines: a ring started on keys a
// few ns apart misses re-keys a second ahead, and once the heap's worth of
// them have missed it while it is empty, it starts again with buckets wide
// enough to take them.
func TestFarRingRetunes(t *testing.T) {
	hs := newHarness(t, -1).withFarMin(64)
	for i := range 500 {
		hs.push(int64(i), uint64(i))
	}
	hs.rekeyTop(400) // starts the ring: the heap spans 500 ns
	hs.check()
	if !hs.h.farOn || hs.h.farShift > 3 {
		t.Fatalf("ring on %v with buckets of 2^%d ns, want a few ns", hs.h.farOn, hs.h.farShift)
	}
	narrow := hs.h.farShift
	for range 2000 {
		hs.rekeyTop(1e9 + int64(len(hs.model)))
	}
	hs.check()
	if hs.h.farShift <= narrow || hs.h.farN == 0 {
		t.Fatalf("after 2000 re-keys a second ahead: buckets of 2^%d ns, %d entries in the ring", hs.h.farShift, hs.h.farN)
	}
	for len(hs.model) > 0 {
		hs.pop()
	}
	hs.check()
}

// Timers started at one instant and re-keyed by one period, as keyed
// timers registered together are: the heap's keys share one deadline, so
// the ring is sized by the re-keyed one; each wave fills one bucket in key
// order, which comes out as the run without a sort; and re-keying an entry
// to the key it has, wherever it is, leaves it there.
func TestFarRingTimersStartedTogether(t *testing.T) {
	const n, period = 300, 1000
	hs := newHarness(t, -1).withFarMin(64)
	for i := range n {
		hs.push(period, uint64(i))
	}
	for wave := range 5 {
		for range n {
			hs.rekeyTop(period)
			if wave == 0 && !hs.h.farOn {
				t.Fatal("re-keys past a heap of one deadline did not start the ring")
			}
		}
		hs.check()
		hs.peek() // spills the next bucket
		if wave > 0 && hs.h.run.live != n {
			t.Fatalf("wave %d: run holds %d, want the whole bucket of %d", wave, hs.h.run.live, n)
		}
		// Same-key re-keys of the run's and the ring's entries move nothing.
		id, when, seq, _, _ := hs.h.Peek()
		p := hs.h.pos[id]
		hs.update(id, when, seq)
		if hs.h.pos[id] != p {
			t.Fatalf("wave %d: a same-key Update moved #%d from %d to %d", wave, id, p, hs.h.pos[id])
		}
		hs.check()
	}
	for len(hs.model) > 0 {
		hs.pop()
	}
	hs.check()
}

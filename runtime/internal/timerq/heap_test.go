package timerq

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
	"weak"
)

// item is the queued value of the tests.
type item struct {
	name string
}

// world is what the steps of one test share: the heap, and the ID each
// name was given by its latest Push (it may have gone stale since).
type world struct {
	h   Heap[*item]
	ids map[string]ID
}

func (w *world) id(name string) ID {
	id, ok := w.ids[name]
	if !ok {
		panic(fmt.Sprintf("step names %q, which was never pushed", name))
	}
	return id
}

// op is one call on the heap; it returns what the call observed, written
// the way step.want spells it.
type op func(w *world) string

// step is one op, what it must return, and optionally the queued names in
// key order afterwards (nil: not checked; empty: nothing queued).
type step struct {
	do      op
	want    string
	pending []string
}

// push returns the ID given, as "#3".
func push(name string, when int64, seq uint64) op {
	return func(w *world) string {
		id := w.h.Push(when, seq, &item{name: name})
		w.ids[name] = id
		return fmt.Sprintf("#%d", id)
	}
}

func get(name string) op {
	return func(w *world) string { return getID(w.id(name))(w) }
}

// getID returns "name when/seq", or "not queued".
func getID(id ID) op {
	return func(w *world) string {
		when, seq, v, ok := w.h.Get(id)
		if !ok {
			if when != 0 || seq != 0 || v != nil {
				return fmt.Sprintf("not queued with non-zero results %d/%d %v", when, seq, v)
			}
			return "not queued"
		}
		return fmt.Sprintf("%s %d/%d", v.name, when, seq)
	}
}

func remove(name string) op {
	return func(w *world) string { return removeID(w.id(name))(w) }
}

// removeID returns the removed value's name, or "not queued".
func removeID(id ID) op {
	return func(w *world) string {
		v, ok := w.h.Remove(id)
		if !ok {
			if v != nil {
				return fmt.Sprintf("not queued with non-nil %v", v)
			}
			return "not queued"
		}
		return v.name
	}
}

func removeSeq(name string, seq uint64) op {
	return func(w *world) string {
		v, ok := w.h.RemoveSeq(w.id(name), seq)
		if !ok {
			if v != nil {
				return fmt.Sprintf("not queued with non-nil %v", v)
			}
			return "not queued"
		}
		return v.name
	}
}

func update(name string, when int64, seq uint64) op {
	return func(w *world) string { return updateID(w.id(name), when, seq)(w) }
}

func updateID(id ID, when int64, seq uint64) op {
	return func(w *world) string { return fmt.Sprint(w.h.Update(id, when, seq)) }
}

// describe spells a Peek or Pop result as "#id name when/seq", or "empty".
func describe(id ID, when int64, seq uint64, v *item, ok bool) string {
	if !ok {
		if id != 0 || when != 0 || seq != 0 || v != nil {
			return fmt.Sprintf("empty with non-zero results #%d %d/%d %v", id, when, seq, v)
		}
		return "empty"
	}
	return fmt.Sprintf("#%d %s %d/%d", id, v.name, when, seq)
}

func pop() op {
	return func(w *world) string { return describe(w.h.Pop()) }
}

func peek() op {
	return func(w *world) string { return describe(w.h.Peek()) }
}

func clearAll() op {
	return func(w *world) string {
		w.h.Clear()
		return fmt.Sprint(w.h.Len())
	}
}

// sortDue calls Heap.sortDue, then reports split.
func sortDue(upTo int64) op {
	return func(w *world) string {
		w.h.sortDue(upTo)
		return split()(w)
	}
}

// split reports how many entries are in the sorted run and how many
// outside it: in the heap's slots or the hot entry.
func split() op {
	return func(w *world) string {
		return fmt.Sprintf("run %d, heap %d", w.h.run.len(), w.h.Len()-w.h.run.len())
	}
}

// pendingNames lists the queued names in key order, read through Each.
func pendingNames(h *Heap[*item]) []string {
	var es []slot[string]
	h.Each(func(id ID, when int64, seq uint64, v *item) bool {
		es = append(es, slot[string]{when, seq, v.name, id})
		return true
	})
	slices.SortFunc(es, func(a, b slot[string]) int {
		return cmp.Or(compareSlots(a, b), strings.Compare(a.v, b.v))
	})
	names := []string{}
	for _, e := range es {
		names = append(names, e.v)
	}
	return names
}

func runSteps(t *testing.T, steps []step) {
	t.Helper()
	w := &world{ids: map[string]ID{}}
	for i, s := range steps {
		if got := s.do(w); got != s.want {
			t.Fatalf("step %d: got %q, want %q", i, got, s.want)
		}
		checkHeap(t, &w.h)
		if s.pending != nil {
			if got := pendingNames(&w.h); !slices.Equal(got, s.pending) {
				t.Fatalf("step %d: pending %q, want %q", i, got, s.pending)
			}
		}
	}
}

const maxI64 = math.MaxInt64

func TestHeapSteps(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"empty zero value", []step{
			{do: peek(), want: "empty"},
			{do: pop(), want: "empty"},
			{do: getID(0), want: "not queued"},
			{do: removeID(0), want: "not queued"},
			{do: updateID(0, 1, 0), want: "false"},
			{do: sortDue(maxI64), want: "run 0, heap 0"},
			{do: clearAll(), want: "0", pending: []string{}},
		}},
		{"earlier deadline first, whatever the seq", []step{
			{do: push("late", 11, 0), want: "#0"},
			{do: push("early", 10, 9), want: "#1", pending: []string{"early", "late"}},
			{do: pop(), want: "#1 early 10/9"},
			{do: pop(), want: "#0 late 11/0"},
			{do: pop(), want: "empty"},
		}},
		{"same deadline: lower seq first", []step{
			{do: push("c", 10, 3), want: "#0"},
			{do: push("a", 10, 1), want: "#1"},
			{do: push("b", 10, 2), want: "#2"},
			{do: pop(), want: "#1 a 10/1"},
			{do: pop(), want: "#2 b 10/2"},
			{do: pop(), want: "#0 c 10/3"},
		}},
		{"one nanosecond apart", []step{
			{do: push("b", 1, 0), want: "#0"},
			{do: push("a", 0, math.MaxUint64), want: "#1"},
			{do: push("c", 2, 0), want: "#2"},
			{do: pop(), want: "#1 a 0/18446744073709551615"},
			{do: pop(), want: "#0 b 1/0"},
		}},
		{"int64 and uint64 edges order as integers", []step{
			{do: push("max", maxI64, math.MaxUint64), want: "#0"},
			{do: push("zero", 0, 0), want: "#1"},
			{do: push("min", math.MinInt64, 0), want: "#2"},
			{do: push("neg", -1, 0), want: "#3"},
			{do: push("max0", maxI64, 0), want: "#4"},
			{do: peek(), want: "#2 min -9223372036854775808/0", pending: []string{"min", "neg", "zero", "max0", "max"}},
			{do: pop(), want: "#2 min -9223372036854775808/0"},
			{do: pop(), want: "#3 neg -1/0"},
			{do: pop(), want: "#1 zero 0/0"},
			{do: pop(), want: "#4 max0 9223372036854775807/0"},
			{do: pop(), want: "#0 max 9223372036854775807/18446744073709551615"},
		}},
		{"peek leaves the entry queued", []step{
			{do: push("a", 5, 0), want: "#0"},
			{do: peek(), want: "#0 a 5/0"},
			{do: get("a"), want: "a 5/0"},
			{do: pop(), want: "#0 a 5/0"},
			{do: get("a"), want: "not queued"},
			{do: peek(), want: "empty"},
		}},
		{"remove root, middle and last", []step{
			{do: push("a", 1, 0), want: "#0"},
			{do: push("b", 2, 0), want: "#1"},
			{do: push("c", 3, 0), want: "#2"},
			{do: push("d", 4, 0), want: "#3"},
			{do: push("e", 5, 0), want: "#4"},
			{do: push("f", 6, 0), want: "#5"},
			{do: remove("a"), want: "a", pending: []string{"b", "c", "d", "e", "f"}},
			{do: get("a"), want: "not queued"},
			{do: remove("d"), want: "d", pending: []string{"b", "c", "e", "f"}},
			{do: remove("f"), want: "f", pending: []string{"b", "c", "e"}},
			{do: pop(), want: "#1 b 2/0"},
		}},
		{"remove of an ID not queued reports false", []step{
			{do: removeID(0), want: "not queued"},
			{do: push("a", 1, 0), want: "#0"},
			{do: removeID(-1), want: "not queued"},
			{do: removeID(1), want: "not queued"},
			{do: removeID(math.MaxInt32), want: "not queued"},
			{do: remove("a"), want: "a"},
			{do: remove("a"), want: "not queued", pending: []string{}},
			{do: push("b", 1, 0), want: "#0"},
			{do: pop(), want: "#0 b 1/0"},
			{do: remove("b"), want: "not queued"},
		}},
		{"IDs are dense from zero and reused last released first", []step{
			{do: push("a", 1, 0), want: "#0"},
			{do: push("b", 2, 0), want: "#1"},
			{do: push("c", 3, 0), want: "#2"},
			{do: push("d", 4, 0), want: "#3"},
			{do: remove("b"), want: "b"},
			{do: remove("d"), want: "d"},
			{do: push("e", 5, 0), want: "#3"},
			{do: push("f", 6, 0), want: "#1"},
			{do: push("g", 7, 0), want: "#4", pending: []string{"a", "c", "e", "f", "g"}},
			{do: pop(), want: "#0 a 1/0"},
			{do: push("h", 0, 0), want: "#0"},
		}},
		{"a stale ID may name a later entry", []step{
			{do: push("a", 1, 0), want: "#0"},
			{do: push("b", 2, 0), want: "#1"},
			{do: pop(), want: "#0 a 1/0"},
			{do: get("a"), want: "not queued"},
			{do: update("a", 9, 0), want: "false"},
			{do: push("c", 3, 7), want: "#0"},
			{do: get("a"), want: "c 3/7"}, // the caller tells them apart by seq
		}},
		{"the ID table starts again once the heap is empty", []step{
			{do: push("a", 1, 0), want: "#0"},
			{do: push("b", 2, 0), want: "#1"},
			{do: push("c", 3, 0), want: "#2"},
			{do: remove("b"), want: "b"},
			{do: pop(), want: "#0 a 1/0"},
			{do: pop(), want: "#2 c 3/0", pending: []string{}},
			{do: push("d", 4, 0), want: "#0"},
			{do: push("e", 5, 0), want: "#1"},
		}},
		{"remove by ID and seq leaves a later entry with a reused ID", []step{
			{do: push("a", 1, 5), want: "#0"},
			{do: push("b", 2, 6), want: "#1"},
			{do: pop(), want: "#0 a 1/5"},
			{do: push("c", 3, 7), want: "#0"},
			{do: removeSeq("a", 5), want: "not queued", pending: []string{"b", "c"}},
			{do: removeSeq("c", 5), want: "not queued"},
			{do: removeSeq("c", 7), want: "c", pending: []string{"b"}},
			{do: removeSeq("c", 7), want: "not queued"},
			{do: push("d", 4, 8), want: "#0"},
			{do: push("e", 5, 9), want: "#2"},
			{do: sortDue(4), want: "run 2, heap 1"},
			{do: removeSeq("d", 9), want: "not queued"},
			{do: removeSeq("d", 8), want: "d", pending: []string{"b", "e"}},
			{do: removeSeq("e", 9), want: "e", pending: []string{"b"}},
		}},
		{"update re-keys earlier, later and to the same key", []step{
			{do: push("a", 10, 0), want: "#0"},
			{do: push("b", 20, 0), want: "#1"},
			{do: push("c", 30, 0), want: "#2"},
			{do: update("c", 5, 0), want: "true", pending: []string{"c", "a", "b"}},
			{do: update("c", 25, 0), want: "true", pending: []string{"a", "b", "c"}},
			{do: update("a", 20, 1), want: "true", pending: []string{"b", "a", "c"}},
			{do: update("a", 20, 1), want: "true", pending: []string{"b", "a", "c"}},
			{do: get("a"), want: "a 20/1"},
			{do: pop(), want: "#1 b 20/0"},
			{do: pop(), want: "#0 a 20/1"},
			{do: pop(), want: "#2 c 25/0"},
		}},
		{"update of an ID not queued reports false", []step{
			{do: updateID(0, 4, 0), want: "false", pending: []string{}},
			{do: push("a", 1, 0), want: "#0"},
			{do: updateID(1, 4, 0), want: "false"},
			{do: updateID(-1, 4, 0), want: "false"},
			{do: pop(), want: "#0 a 1/0"},
			{do: update("a", 6, 0), want: "false", pending: []string{}},
			{do: pop(), want: "empty"},
		}},
		{"clear releases every entry and ID", []step{
			{do: push("a", 1, 0), want: "#0"},
			{do: push("b", 2, 0), want: "#1"},
			{do: clearAll(), want: "0", pending: []string{}},
			{do: get("a"), want: "not queued"},
			{do: remove("b"), want: "not queued"},
			{do: pop(), want: "empty"},
			{do: push("c", 3, 0), want: "#0"},
			{do: pop(), want: "#0 c 3/0"},
		}},

		// sortDue moves entries into the sorted run; nothing observable
		// changes.
		{"sort due moves the entries due by upTo, inclusive", []step{
			{do: push("c", 30, 0), want: "#0"},
			{do: push("a", 10, 0), want: "#1"},
			{do: push("d", 40, 0), want: "#2"},
			{do: push("b", 20, 0), want: "#3"},
			{do: sortDue(20), want: "run 2, heap 2", pending: []string{"a", "b", "c", "d"}},
			{do: get("b"), want: "b 20/0"},
			{do: peek(), want: "#1 a 10/0"},
			{do: pop(), want: "#1 a 10/0"},
			{do: pop(), want: "#3 b 20/0"},
			{do: split(), want: "run 0, heap 2"},
			{do: pop(), want: "#0 c 30/0"},
			{do: pop(), want: "#2 d 40/0"},
			{do: pop(), want: "empty"},
		}},
		{"sort due of nothing or of everything", []step{
			{do: push("a", math.MinInt64, 0), want: "#0"},
			{do: push("b", 20, 0), want: "#1"},
			{do: push("c", maxI64, 0), want: "#2"},
			{do: sortDue(math.MinInt64), want: "run 1, heap 2"},
			{do: sortDue(19), want: "run 1, heap 2"},
			{do: sortDue(maxI64), want: "run 3, heap 0", pending: []string{"a", "b", "c"}},
			{do: pop(), want: "#0 a -9223372036854775808/0"},
			{do: pop(), want: "#1 b 20/0"},
			{do: pop(), want: "#2 c 9223372036854775807/0"},
			{do: pop(), want: "empty"},
			{do: push("d", 1, 0), want: "#0"},
		}},
		{"equal whens in a run pop by seq", []step{
			{do: push("c", 10, 3), want: "#0"},
			{do: push("a", 10, 1), want: "#1"},
			{do: push("z", 5, 9), want: "#2"},
			{do: push("b", 10, 2), want: "#3"},
			{do: sortDue(10), want: "run 4, heap 0"},
			{do: pop(), want: "#2 z 5/9"},
			{do: pop(), want: "#1 a 10/1"},
			{do: pop(), want: "#3 b 10/2"},
			{do: pop(), want: "#0 c 10/3"},
		}},
		{"remove and update entries of the run", []step{
			{do: push("a", 1, 0), want: "#0"},
			{do: push("b", 2, 0), want: "#1"},
			{do: push("c", 3, 0), want: "#2"},
			{do: push("d", 4, 0), want: "#3"},
			{do: push("e", 50, 0), want: "#4"},
			{do: sortDue(10), want: "run 4, heap 1"},
			{do: remove("b"), want: "b", pending: []string{"a", "c", "d", "e"}},
			{do: remove("a"), want: "a", pending: []string{"c", "d", "e"}},
			{do: peek(), want: "#2 c 3/0"},
			{do: remove("b"), want: "not queued"},
			{do: update("c", 60, 0), want: "true", pending: []string{"d", "e", "c"}},
			{do: split(), want: "run 1, heap 2"},
			{do: update("d", 4, 0), want: "true"},
			{do: split(), want: "run 1, heap 2"}, // the same key: it stays
			{do: update("d", 5, 0), want: "true"},
			{do: split(), want: "run 0, heap 3"},
			{do: push("f", 0, 0), want: "#0"},
			{do: pop(), want: "#0 f 0/0"},
			{do: pop(), want: "#3 d 5/0"},
			{do: pop(), want: "#4 e 50/0"},
			{do: pop(), want: "#2 c 60/0"},
		}},
		{"push while a run exists interleaves", []step{
			{do: push("a", 10, 0), want: "#0"},
			{do: push("b", 20, 0), want: "#1"},
			{do: push("c", 30, 0), want: "#2"},
			{do: sortDue(30), want: "run 3, heap 0"},
			{do: push("x", 15, 0), want: "#3"},
			{do: push("y", 5, 0), want: "#4"},
			{do: push("z", 30, 1), want: "#5", pending: []string{"y", "a", "x", "b", "c", "z"}},
			{do: peek(), want: "#4 y 5/0"},
			{do: pop(), want: "#4 y 5/0"},
			{do: peek(), want: "#0 a 10/0"},
			{do: pop(), want: "#0 a 10/0"},
			{do: pop(), want: "#3 x 15/0"},
			{do: pop(), want: "#1 b 20/0"},
			{do: pop(), want: "#2 c 30/0"},
			{do: pop(), want: "#5 z 30/1"},
			{do: pop(), want: "empty"},
		}},
		{"sort due twice merges the runs", []step{
			{do: push("a", 10, 0), want: "#0"},
			{do: push("b", 20, 0), want: "#1"},
			{do: push("c", 30, 0), want: "#2"},
			{do: push("d", 40, 0), want: "#3"},
			{do: sortDue(20), want: "run 2, heap 2"},
			{do: push("e", 15, 0), want: "#4"},
			{do: remove("a"), want: "a"},
			{do: sortDue(35), want: "run 3, heap 1"},
			{do: sortDue(35), want: "run 3, heap 1"},
			{do: pop(), want: "#4 e 15/0"},
			{do: pop(), want: "#1 b 20/0"},
			{do: pop(), want: "#2 c 30/0"},
			{do: pop(), want: "#3 d 40/0"},
		}},
		{"clear drops the run", []step{
			{do: push("a", 1, 0), want: "#0"},
			{do: push("b", 2, 0), want: "#1"},
			{do: sortDue(maxI64), want: "run 2, heap 0"},
			{do: clearAll(), want: "0", pending: []string{}},
			{do: split(), want: "run 0, heap 0"},
			{do: get("a"), want: "not queued"},
			{do: push("c", 3, 0), want: "#0"},
			{do: pop(), want: "#0 c 3/0"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runSteps(t, tt.steps) })
	}
}

// TestBefore compares the branch-free key order with the obvious one on
// the integer edges.
func TestBefore(t *testing.T) {
	ws := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, maxI64 - 1, maxI64}
	ss := []uint64{0, 1, 1 << 63, math.MaxUint64 - 1, math.MaxUint64}
	for _, w1 := range ws {
		for _, s1 := range ss {
			for _, w2 := range ws {
				for _, s2 := range ss {
					want := w1 < w2 || w1 == w2 && s1 < s2
					if got := before(w1, s1, w2, s2); got != want {
						t.Fatalf("before(%d/%d, %d/%d) = %v", w1, s1, w2, s2, got)
					}
				}
			}
		}
	}
}

// sortCase is a key distribution for TestSortDue.
type sortCase struct {
	name string
	when func(r *rand.Rand, i int) int64
}

var sortCases = []sortCase{
	{"few whens", func(r *rand.Rand, _ int) int64 { return r.Int64N(8) }},
	{"one when", func(*rand.Rand, int) int64 { return -5 }},
	{"negative and positive", func(r *rand.Rand, _ int) int64 { return r.Int64N(2_000_000) - 1_000_000 }},
	{"all of int64", func(r *rand.Rand, i int) int64 {
		switch i % 100 {
		case 0:
			return math.MinInt64
		case 1:
			return maxI64
		}
		return int64(r.Uint64())
	}},
	{"high bytes only", func(r *rand.Rand, _ int) int64 { return (r.Int64N(1<<16) - 1<<15) << 40 }},
	{"near the top", func(r *rand.Rand, _ int) int64 { return maxI64 - r.Int64N(100_000) }},
	{"near the bottom", func(r *rand.Rand, _ int) int64 { return math.MinInt64 + r.Int64N(100_000) }},
	// Skewed keys: most of a split's parts are empty and a few are large,
	// so the radix sort splits again and again.
	{"powers of two", func(r *rand.Rand, _ int) int64 { return int64(1)<<r.IntN(62) + r.Int64N(1000) }},
	{"tight clusters", func(r *rand.Rand, _ int) int64 { return r.Int64N(4)<<40 + r.Int64N(64) }},
}

// TestSortDue: after sortDue, Pop returns every entry in key order, with
// equal whens ordered by seq, whether the run was sorted by comparison
// (16 entries or fewer: an insertion sort) or by radix, and however it
// splits the queue.
func TestSortDue(t *testing.T) {
	type entry struct {
		id   ID
		when int64
		seq  uint64
		v    *item
	}
	for _, sc := range sortCases {
		for _, n := range []int{10, 255, 256, 5000} {
			for _, at := range []string{"all", "half", "none"} {
				t.Run(fmt.Sprintf("%s/%d/%s", sc.name, n, at), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(n), 7))
					var h Heap[*item]
					want := make([]entry, n)
					for i, seq := range r.Perm(n) { // distinct seqs: one order
						e := entry{when: sc.when(r, i), seq: uint64(seq), v: &item{name: fmt.Sprint(i)}}
						e.id = h.Push(e.when, e.seq, e.v)
						want[i] = e
					}
					slices.SortFunc(want, func(a, b entry) int {
						return compareSlots(slot[int]{when: a.when, seq: a.seq}, slot[int]{when: b.when, seq: b.seq})
					})
					upTo, due := int64(maxI64), n
					switch at {
					case "half":
						upTo = want[n/2].when
						due = 0
						for _, e := range want {
							if e.when <= upTo {
								due++
							}
						}
					case "none":
						upTo, due = want[0].when-1, 0
						if want[0].when == math.MinInt64 { // nothing is due before it
							upTo = math.MinInt64
							for due < n && want[due].when == math.MinInt64 {
								due++
							}
						}
					}
					h.sortDue(upTo)
					checkHeap(t, &h)
					if h.run.len() != due || h.Len() != n {
						t.Fatalf("sortDue(%d): run %d, len %d; want %d, %d", upTo, h.run.len(), h.Len(), due, n)
					}
					for i, e := range want {
						id, when, seq, v, ok := h.Pop()
						if !ok || id != e.id || when != e.when || seq != e.seq || v != e.v {
							t.Fatalf("pop %d: #%d %d/%d ok %v; want #%d %d/%d", i, id, when, seq, ok, e.id, e.when, e.seq)
						}
					}
					if _, _, _, _, ok := h.Pop(); ok || h.run.s != nil || len(h.pos) != 0 {
						t.Fatalf("drained heap: ok %v, run %d slots, %d IDs", ok, cap(h.run.s), len(h.pos))
					}
				})
			}
		}
	}
}

// TestSortSlotsTies: entries with equal keys survive the radix sort: none
// is lost or duplicated, and the keys come out in order.
func TestSortSlotsTies(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := make([]slot[int], 3000)
	for i := range s {
		s[i] = slot[int]{when: r.Int64N(5) << 50, seq: uint64(r.IntN(3)), v: i, id: ID(i)}
	}
	out := make([]slot[int], len(s))
	sortSlots(s, out)
	s = out
	seen := make([]bool, len(s))
	for i, e := range s {
		if i > 0 && before(e.when, e.seq, s[i-1].when, s[i-1].seq) {
			t.Fatalf("slot %d (%d/%d) sorts before slot %d (%d/%d)", i, e.when, e.seq, i-1, s[i-1].when, s[i-1].seq)
		}
		if seen[e.v] || int(e.id) != e.v {
			t.Fatalf("slot %d: entry %d (#%d) lost its ID or appears twice", i, e.v, e.id)
		}
		seen[e.v] = true
	}
}

func TestNewHeap(t *testing.T) {
	for _, c := range []int{-1, math.MinInt, maxLen + 1, math.MaxInt} {
		if !panics(func() { NewHeap[*item](c) }) {
			t.Fatalf("NewHeap(%d) did not panic", c)
		}
	}
	h := NewHeap[*item](1000)
	if h.Len() != 0 || cap(h.s) != 1000 {
		t.Fatalf("NewHeap(1000): len %d cap %d", h.Len(), cap(h.s))
	}
	// The second Push moves the first entry into the slot array.
	if a, b := h.Push(1, 0, &item{}), h.Push(2, 0, &item{}); a != 0 || b != 1 || cap(h.s) != 1000 {
		t.Fatalf("first Pushes: #%d, #%d, slot array %d", a, b, cap(h.s))
	}
	h = NewHeap[*item](0)
	if a, b := h.Push(1, 0, &item{}), h.Push(2, 0, &item{}); a != 0 || b != 1 || cap(h.s) != shrinkFloor {
		t.Fatalf("NewHeap(0), first Pushes: #%d, #%d, slot array %d, want %d", a, b, cap(h.s), shrinkFloor)
	}
}

// panics reports whether f panics.
func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}

// TestSlotSize pins the slot layout the package doc promises.
func TestSlotSize(t *testing.T) {
	if n := unsafe.Sizeof(slot[unsafe.Pointer]{}); n != 32 {
		t.Fatalf("a slot with a pointer value is %d bytes, want 32", n)
	}
	if n := unsafe.Sizeof(int32(0)); n != unsafe.Sizeof(ID(0)) || n != 4 {
		t.Fatalf("an ID table entry is %d bytes, want 4", n)
	}
}

// TestIDs: IDs are dense from zero, released IDs are reused last released
// first, and a stale ID is not queued until it is handed out again.
func TestIDs(t *testing.T) {
	var h Heap[*item]
	const n = 100
	vs := make([]*item, n)
	for i := range n {
		vs[i] = &item{name: fmt.Sprint(i)}
		if id := h.Push(int64(i), 0, vs[i]); id != ID(i) {
			t.Fatalf("push %d: #%d", i, id)
		}
	}
	released := []ID{7, 93, 0, 50}
	for _, id := range released {
		if v, ok := h.Remove(id); !ok || v != vs[id] {
			t.Fatalf("Remove(#%d) = %v, %v", id, v, ok)
		}
	}
	for _, id := range []ID{7, 93, 0, 50, -1, n, maxLen, math.MaxInt32, math.MinInt32} {
		if _, _, _, ok := h.Get(id); ok {
			t.Fatalf("Get(#%d) reports a stale or unknown ID queued", id)
		}
		if h.Update(id, 1, 1) {
			t.Fatalf("Update(#%d) reports a stale or unknown ID queued", id)
		}
	}
	for i := len(released) - 1; i >= 0; i-- {
		v := &item{name: "again"}
		id := h.Push(-1, uint64(i), v)
		if id != released[i] {
			t.Fatalf("push after releases: #%d, want #%d", id, released[i])
		}
		if when, seq, got, ok := h.Get(id); !ok || got != v || when != -1 || seq != uint64(i) {
			t.Fatalf("Get(#%d) of a reused ID = %v %d/%d %v", id, got, when, seq, ok)
		}
	}
	if id := h.Push(0, 0, &item{}); id != n {
		t.Fatalf("push with no ID free: #%d, want #%d", id, n)
	}
	id, _, _, _, _ := h.Pop()
	if again := h.Push(0, 0, &item{}); again != id {
		t.Fatalf("push after Pop of #%d: #%d", id, again)
	}
	checkHeap(t, &h)
}

func TestEach(t *testing.T) {
	var h Heap[*item]
	ids := make([]ID, 10)
	for i := range ids {
		ids[i] = h.Push(int64(9-i), uint64(i), &item{name: fmt.Sprint(i)})
	}
	h.sortDue(4) // half in the run, half in the heap
	if h.run.len() != 5 {
		t.Fatalf("sortDue(4) moved %d entries, want 5", h.run.len())
	}
	ids = append(ids, h.Push(-1, 10, &item{name: "10"})) // the hot entry
	seen := map[string]string{}
	h.Each(func(id ID, when int64, seq uint64, v *item) bool {
		seen[v.name] = fmt.Sprintf("#%d %d/%d", id, when, seq)
		return true
	})
	if len(seen) != len(ids) {
		t.Fatalf("Each visited %d of %d", len(seen), len(ids))
	}
	for i, id := range ids {
		when := int64(9 - i)
		if i == 10 {
			when = -1
		}
		if got, want := seen[fmt.Sprint(i)], fmt.Sprintf("#%d %d/%d", id, when, i); got != want {
			t.Fatalf("Each gave %d %q, want %q", i, got, want)
		}
	}
	for _, stop := range []int{1, 3, 7, 10, 11} { // in the heap, the run, the hot entry
		calls := 0
		h.Each(func(ID, int64, uint64, *item) bool {
			calls++
			return calls < stop
		})
		if calls != stop {
			t.Fatalf("Each went on for %d calls after fn returned false at call %d", calls, stop)
		}
	}
}

// TestEachMutating pins the documented limit: entries handed to fn are
// queued when handed, even if fn pops.
func TestEachMutating(t *testing.T) {
	var h Heap[*item]
	for i := range 100 {
		h.Push(int64(i), 0, &item{name: fmt.Sprint(i)})
	}
	h.sortDue(24) // fn pops the run's 25 entries, then the heap's under Each
	calls := 0
	h.Each(func(id ID, when int64, seq uint64, v *item) bool {
		calls++
		if w, s, got, ok := h.Get(id); !ok || w != when || s != seq || got != v {
			t.Fatalf("Each passed #%d %s, which is not queued as passed", id, v.name)
		}
		h.Pop()
		return true
	})
	if calls == 0 {
		t.Fatal("Each made no call")
	}
	checkHeap(t, &h)
}

// TestMemoryFollowsPendingWork: the slot array halves as the heap drains,
// never drops below the NewHeap capacity, and the ID table and the run are
// released once the heap is empty.
func TestMemoryFollowsPendingWork(t *testing.T) {
	for _, tt := range []struct {
		capacity, floor int
	}{
		{0, shrinkFloor},
		{1000, 1000},
	} {
		h := NewHeap[*item](tt.capacity)
		const n = 100_000
		for i := range n {
			h.Push(int64(i), 0, &item{})
		}
		peak := cap(h.s)
		for h.Len() > 10 {
			h.Pop()
			if c := cap(h.s); c > tt.floor && h.Len() < c/4 {
				t.Fatalf("capacity %d: len %d, slot array %d is more than 4 times larger", tt.capacity, h.Len(), c)
			}
		}
		if c := cap(h.s); c != tt.floor {
			t.Fatalf("capacity %d: slot array %d with 10 pending (peak %d), want %d", tt.capacity, c, peak, tt.floor)
		}
		checkHeap(t, h)
		for h.Len() > 0 {
			h.Pop()
		}
		if h.pos != nil {
			t.Fatalf("capacity %d: drained heap keeps an ID table of %d", tt.capacity, cap(h.pos))
		}
		if id := h.Push(0, 0, &item{}); id != 0 {
			t.Fatalf("capacity %d: first Push after draining: #%d", tt.capacity, id)
		}

		for i := range n {
			h.Push(int64(i), 0, &item{})
		}
		h.sortDue(maxI64)
		for h.Len() > 0 {
			h.Pop()
		}
		if h.run.s != nil || h.pos != nil || cap(h.s) != tt.floor {
			t.Fatalf("capacity %d: heap drained from a run keeps %d run slots, %d IDs, %d slots", tt.capacity, cap(h.run.s), cap(h.pos), cap(h.s))
		}

		for i := range n {
			h.Push(int64(i), 0, &item{})
		}
		h.Clear()
		if c := cap(h.s); c > tt.floor || h.pos != nil {
			t.Fatalf("capacity %d: Clear kept %d slots, %d IDs", tt.capacity, c, cap(h.pos))
		}
	}
	var h Heap[*item]
	for i := range 10_000 {
		h.Push(int64(i), 0, &item{})
	}
	h.Clear()
	if h.s != nil || h.pos != nil || h.Len() != 0 {
		t.Fatalf("Clear of 10000 entries kept %d slots, %d IDs", cap(h.s), cap(h.pos))
	}
	if a, b := h.Push(1, 0, &item{}), h.Push(2, 0, &item{}); a != 0 || b != 1 || cap(h.s) != shrinkFloor {
		t.Fatalf("Pushes after Clear: #%d, #%d, %d slots, want #0, #1, %d", a, b, cap(h.s), shrinkFloor)
	}
}

// TestReleasesValues: once removed, popped or cleared, a value is
// unreachable from the heap and the GC frees it, whether it was in the
// heap or in a sorted run.
func TestReleasesValues(t *testing.T) {
	for _, tt := range []struct {
		name  string
		extra int // entries due before x, so a run of more than 16 is radix sorted
		drop  func(h *Heap[*item], x ID)
	}{
		{"remove", 0, func(h *Heap[*item], x ID) { h.Remove(x) }},
		{"pop", 0, func(h *Heap[*item], _ ID) { h.Pop() }},
		{"clear", 0, func(h *Heap[*item], _ ID) { h.Clear() }},
		{"pop from a run", 0, func(h *Heap[*item], _ ID) {
			h.sortDue(maxI64)
			h.Pop()
		}},
		{"pop from a run, rest in the heap", 0, func(h *Heap[*item], _ ID) {
			h.sortDue(50)
			h.Pop()
		}},
		{"pop from a radix-sorted run", 300, func(h *Heap[*item], _ ID) {
			h.sortDue(maxI64)
			for range 301 {
				h.Pop()
			}
		}},
		{"remove from a run", 0, func(h *Heap[*item], x ID) {
			h.sortDue(maxI64)
			h.Remove(x)
		}},
		{"update out of a run, then remove", 0, func(h *Heap[*item], x ID) {
			h.sortDue(maxI64)
			h.Update(x, 200, 0)
			h.Remove(x)
		}},
		{"clear a run", 0, func(h *Heap[*item], _ ID) {
			h.sortDue(maxI64)
			h.Clear()
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var h Heap[*item]
			h.Push(100, 0, &item{name: "keep"})
			for i := range tt.extra {
				h.Push(0, uint64(i), &item{})
			}
			x := &item{name: "x"}
			w := weak.Make(x)
			id := h.Push(1, 0, x)
			x = nil
			tt.drop(&h, id)
			runtime.GC()
			if w.Value() != nil {
				t.Fatal("the heap still references a dropped value")
			}
			checkHeap(t, &h)
			runtime.KeepAlive(&h)
		})
	}
}

// TestZeroAllocs: once the slot array and the ID table have grown, Push,
// Pop, Remove, Update and Get allocate nothing, nor does popping a run.
func TestZeroAllocs(t *testing.T) {
	const n = 1000
	var h Heap[*item]
	items := make([]item, n)
	ids := make([]ID, n)
	for i := range items {
		ids[i] = h.Push(int64(i*7919%n), uint64(i), &items[i])
	}
	x := &item{}
	i := 0
	for _, tt := range []struct {
		name string
		f    func()
	}{
		{"push+remove", func() {
			h.Remove(h.Push(int64(i%n), uint64(i), x))
		}},
		{"push+pop", func() {
			h.Push(int64(i%n), uint64(i), x)
			_, _, _, x, _ = h.Pop()
		}},
		{"remove+push", func() {
			j := (i * 31) % n
			v, _ := h.Remove(ids[j])
			ids[j] = h.Push(int64((i*17)%n), uint64(i), v)
		}},
		{"update", func() {
			h.Update(ids[(i*31)%n], int64((i*13)%n), uint64(i))
		}},
		{"get+peek", func() {
			h.Get(ids[(i*7)%n])
			h.Peek()
		}},
	} {
		if allocs := testing.AllocsPerRun(1000, func() { tt.f(); i++ }); allocs != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tt.name, allocs)
		}
	}
	checkHeap(t, &h)

	var r Heap[*item]
	for i := range 4 * n {
		r.Push(int64(i*7919%n), uint64(i), &items[i%n])
	}
	r.sortDue(maxI64)
	for range 10 { // the emptied slot array shrinks to its floor first
		r.Pop()
	}
	if allocs := testing.AllocsPerRun(1000, func() { r.Pop() }); allocs != 0 {
		t.Errorf("pop from a run: %v allocs per run, want 0", allocs)
	}
	checkHeap(t, &r)
}

// A drain that sorts midway still pops the entry its Peek returned when
// entries share keys (100 per key here): the sort may order them differently than
// the heap did.
func TestDrainSortKeepsPeekAndPopTogether(t *testing.T) {
	h := NewHeap[int](0)
	h.SetSortPolicy(0, 3)
	for i := range 600 {
		h.Push(int64(i%3), uint64(i%2), i) // 100 entries per key
	}
	d := h.Drain(10)
	for n := 0; ; n++ {
		id, _, _, v, ok := d.Peek()
		if !ok {
			if n != 600 {
				t.Fatalf("the drain ended after %d of 600", n)
			}
			return
		}
		pid, _, _, pv, _ := h.Pop()
		if pid != id || pv != v {
			t.Fatalf("step %d: Peek gave #%d (%d), Pop took #%d (%d)", n, id, v, pid, pv)
		}
	}
}

package timerq

import (
	"fmt"
	"math"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"weak"
)

// item is the queued value of the tests: a named struct embedding Node.
type item struct {
	Node
	name string
}

var _ Queue[*item] = (*Heap[*item])(nil)

// op is one call on the heap; it returns what the call observed, written
// the way step.want spells it.
type op func(h *Heap[*item], items map[string]*item) string

// step is one op, what it must return, and optionally the pending values
// in key order afterwards (nil: not checked; empty: nothing pending).
type step struct {
	do      op
	want    string
	pending []string
}

func named(items map[string]*item, name string) *item {
	x, ok := items[name]
	if !ok {
		x = &item{name: name}
		items[name] = x
	}
	return x
}

func push(name string, when int64, seq uint64) op {
	return func(h *Heap[*item], items map[string]*item) string {
		h.Push(named(items, name), when, seq)
		return ""
	}
}

func update(name string, when int64, seq uint64) op {
	return func(h *Heap[*item], items map[string]*item) string {
		h.Update(named(items, name), when, seq)
		return ""
	}
}

func remove(name string) op {
	return func(h *Heap[*item], items map[string]*item) string {
		return fmt.Sprint(h.Remove(named(items, name)))
	}
}

func queued(name string) op {
	return func(h *Heap[*item], items map[string]*item) string {
		return fmt.Sprint(named(items, name).Queued())
	}
}

func describe(x *item, when int64, seq uint64, ok bool) string {
	if !ok {
		if x != nil || when != 0 || seq != 0 {
			return fmt.Sprintf("empty with non-zero results %v %d/%d", x, when, seq)
		}
		return "empty"
	}
	return fmt.Sprintf("%s %d/%d", x.name, when, seq)
}

func pop() op {
	return func(h *Heap[*item], _ map[string]*item) string { return describe(h.Pop()) }
}

func peek() op {
	return func(h *Heap[*item], _ map[string]*item) string { return describe(h.Peek()) }
}

func clearAll() op {
	return func(h *Heap[*item], _ map[string]*item) string {
		h.Clear()
		return fmt.Sprint(h.Len())
	}
}

// pendingNames lists the queued values in key order, read through Each.
func pendingNames(h *Heap[*item]) []string {
	type entry struct {
		name string
		when int64
		seq  uint64
	}
	var es []entry
	h.Each(func(x *item, when int64, seq uint64) bool {
		es = append(es, entry{x.name, when, seq})
		return true
	})
	slices.SortFunc(es, func(a, b entry) int {
		if before(a.when, a.seq, b.when, b.seq) {
			return -1
		}
		if before(b.when, b.seq, a.when, a.seq) {
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	names := []string{}
	for _, e := range es {
		names = append(names, e.name)
	}
	return names
}

func run(t *testing.T, steps []step) {
	t.Helper()
	var h Heap[*item]
	items := map[string]*item{}
	for i, s := range steps {
		if got := s.do(&h, items); got != s.want {
			t.Fatalf("step %d: got %q, want %q", i, got, s.want)
		}
		checkHeap(t, &h)
		if s.pending != nil {
			if got := pendingNames(&h); !slices.Equal(got, s.pending) {
				t.Fatalf("step %d: pending %q, want %q", i, got, s.pending)
			}
		}
	}
}

// checkHeap verifies the heap order, every position and key recorded in a
// Node, and that no slot past the end still references a value.
func checkHeap(tb interface {
	Helper()
	Fatalf(string, ...any)
}, h *Heap[*item]) {
	tb.Helper()
	s := h.s
	for i, e := range s {
		if e.x == nil {
			tb.Fatalf("slot %d of %d is empty", i, len(s))
		}
		if n := e.x.QueueNode(); int(n.pos) != i+1 {
			tb.Fatalf("slot %d: %s records position %d", i, e.x.name, n.pos-1)
		}
		if p := (i - 1) / 4; i > 0 && before(e.when, e.seq, s[p].when, s[p].seq) {
			tb.Fatalf("slot %d (%d/%d) sorts before its parent %d (%d/%d)", i, e.when, e.seq, p, s[p].when, s[p].seq)
		}
	}
	for i, e := range s[len(s):cap(s)] {
		if e.x != nil || e.when != 0 || e.seq != 0 {
			tb.Fatalf("vacated slot %d still holds %v %d/%d", len(s)+i, e.x, e.when, e.seq)
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
			{do: remove("a"), want: "false"},
			{do: clearAll(), want: "0", pending: []string{}},
		}},
		{"earlier deadline first, whatever the seq", []step{
			{do: push("late", 11, 0)},
			{do: push("early", 10, 9), pending: []string{"early", "late"}},
			{do: pop(), want: "early 10/9"},
			{do: pop(), want: "late 11/0"},
			{do: pop(), want: "empty"},
		}},
		{"same deadline: lower seq first", []step{
			{do: push("c", 10, 3)},
			{do: push("a", 10, 1)},
			{do: push("b", 10, 2)},
			{do: pop(), want: "a 10/1"},
			{do: pop(), want: "b 10/2"},
			{do: pop(), want: "c 10/3"},
		}},
		{"one nanosecond apart", []step{
			{do: push("b", 1, 0)},
			{do: push("a", 0, math.MaxUint64)},
			{do: push("c", 2, 0)},
			{do: pop(), want: "a 0/18446744073709551615"},
			{do: pop(), want: "b 1/0"},
		}},
		{"int64 and uint64 edges order as integers", []step{
			{do: push("max", maxI64, math.MaxUint64)},
			{do: push("zero", 0, 0)},
			{do: push("min", math.MinInt64, 0)},
			{do: push("neg", -1, 0)},
			{do: push("max0", maxI64, 0)},
			{do: peek(), want: "min -9223372036854775808/0", pending: []string{"min", "neg", "zero", "max0", "max"}},
			{do: pop(), want: "min -9223372036854775808/0"},
			{do: pop(), want: "neg -1/0"},
			{do: pop(), want: "zero 0/0"},
			{do: pop(), want: "max0 9223372036854775807/0"},
			{do: pop(), want: "max 9223372036854775807/18446744073709551615"},
		}},
		{"peek leaves the value queued", []step{
			{do: push("a", 5, 0)},
			{do: peek(), want: "a 5/0"},
			{do: queued("a"), want: "true"},
			{do: pop(), want: "a 5/0"},
			{do: queued("a"), want: "false"},
			{do: peek(), want: "empty"},
		}},
		{"remove root, middle and last", []step{
			{do: push("a", 1, 0)},
			{do: push("b", 2, 0)},
			{do: push("c", 3, 0)},
			{do: push("d", 4, 0)},
			{do: push("e", 5, 0)},
			{do: push("f", 6, 0)},
			{do: remove("a"), want: "true", pending: []string{"b", "c", "d", "e", "f"}},
			{do: queued("a"), want: "false"},
			{do: remove("d"), want: "true", pending: []string{"b", "c", "e", "f"}},
			{do: remove("f"), want: "true", pending: []string{"b", "c", "e"}},
			{do: pop(), want: "b 2/0"},
		}},
		{"remove of a value not queued reports false", []step{
			{do: remove("never"), want: "false"},
			{do: push("a", 1, 0)},
			{do: remove("a"), want: "true"},
			{do: remove("a"), want: "false", pending: []string{}},
			{do: push("b", 1, 0)},
			{do: pop(), want: "b 1/0"},
			{do: remove("b"), want: "false"},
		}},
		{"removed and popped values can be pushed again", []step{
			{do: push("a", 1, 0)},
			{do: remove("a"), want: "true"},
			{do: push("a", 7, 1)},
			{do: pop(), want: "a 7/1"},
			{do: push("a", 3, 2)},
			{do: pop(), want: "a 3/2"},
		}},
		{"update re-keys earlier, later and to the same key", []step{
			{do: push("a", 10, 0)},
			{do: push("b", 20, 0)},
			{do: push("c", 30, 0)},
			{do: update("c", 5, 0), pending: []string{"c", "a", "b"}},
			{do: update("c", 25, 0), pending: []string{"a", "b", "c"}},
			{do: update("a", 20, 1), pending: []string{"b", "a", "c"}},
			{do: update("a", 20, 1), pending: []string{"b", "a", "c"}},
			{do: pop(), want: "b 20/0"},
			{do: pop(), want: "a 20/1"},
			{do: pop(), want: "c 25/0"},
		}},
		{"update of a value not queued pushes it", []step{
			{do: update("a", 4, 0)},
			{do: queued("a"), want: "true"},
			{do: pop(), want: "a 4/0"},
			{do: update("a", 6, 0)},
			{do: pop(), want: "a 6/0"},
		}},
		{"clear unqueues everything", []step{
			{do: push("a", 1, 0)},
			{do: push("b", 2, 0)},
			{do: clearAll(), want: "0", pending: []string{}},
			{do: queued("a"), want: "false"},
			{do: queued("b"), want: "false"},
			{do: remove("a"), want: "false"},
			{do: pop(), want: "empty"},
			{do: push("b", 3, 0)},
			{do: pop(), want: "b 3/0"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.steps) })
	}
}

// panics reports whether f panics.
func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}

func TestPushQueuedPanics(t *testing.T) {
	var h, other Heap[*item]
	a, b := &item{name: "a"}, &item{name: "b"}
	h.Push(a, 1, 0)
	other.Push(b, 2, 0)
	if !panics(func() { h.Push(a, 5, 0) }) {
		t.Fatal("Push of a value queued in the same heap did not panic")
	}
	if !panics(func() { h.Push(b, 5, 0) }) {
		t.Fatal("Push of a value queued in another heap did not panic")
	}
	for name, f := range map[string]func(){
		"Push":   func() { h.Push(nil, 5, 0) },
		"Update": func() { h.Update(nil, 5, 0) },
		"Remove": func() { h.Remove(nil) },
	} {
		if !panics(f) {
			t.Fatalf("%s of nil did not panic", name)
		}
	}
	checkHeap(t, &h)
	checkHeap(t, &other)
	if got := describe(h.Peek()); got != "a 1/0" || h.Len() != 1 {
		t.Fatalf("after the panics h holds %d, top %q; want 1, \"a 1/0\"", h.Len(), got)
	}
}

func TestOtherHeapsValues(t *testing.T) {
	var h, other Heap[*item]
	mine := &item{name: "mine"}
	theirs := &item{name: "theirs"}
	h.Push(mine, 1, 0)
	other.Push(theirs, 2, 0)
	if h.Remove(theirs) {
		t.Fatal("Remove of another heap's value reported true")
	}
	if !panics(func() { h.Update(theirs, 0, 0) }) {
		t.Fatal("Update of another heap's value did not panic")
	}
	checkHeap(t, &h)
	checkHeap(t, &other)
	if h.Len() != 1 || other.Len() != 1 || !theirs.Queued() {
		t.Fatalf("heaps changed: len %d and %d, theirs queued %v", h.Len(), other.Len(), theirs.Queued())
	}
	if got := describe(other.Pop()); got != "theirs 2/0" {
		t.Fatalf("other.Pop() = %q", got)
	}
}

func TestNewHeap(t *testing.T) {
	if !panics(func() { NewHeap[*item](-1) }) {
		t.Fatal("NewHeap(-1) did not panic")
	}
	h := NewHeap[*item](1000)
	if h.Len() != 0 || cap(h.s) != 1000 {
		t.Fatalf("NewHeap(1000): len %d cap %d", h.Len(), cap(h.s))
	}
}

func TestEach(t *testing.T) {
	var h Heap[*item]
	for i := range 10 {
		h.Push(&item{name: fmt.Sprint(i)}, int64(9-i), uint64(i))
	}
	seen := map[string]string{}
	h.Each(func(x *item, when int64, seq uint64) bool {
		seen[x.name] = fmt.Sprintf("%d/%d", when, seq)
		return true
	})
	for i := range 10 {
		if got, want := seen[fmt.Sprint(i)], fmt.Sprintf("%d/%d", 9-i, i); got != want {
			t.Fatalf("Each gave %s key %q, want %q", fmt.Sprint(i), got, want)
		}
	}
	calls := 0
	h.Each(func(*item, int64, uint64) bool {
		calls++
		return calls < 3
	})
	if calls != 3 {
		t.Fatalf("Each went on for %d calls after fn returned false at the 3rd", calls)
	}
}

// TestEachMutating pins the documented limit: values handed to fn are
// queued when handed, even if fn pops.
func TestEachMutating(t *testing.T) {
	var h Heap[*item]
	for i := range 100 {
		h.Push(&item{name: fmt.Sprint(i)}, int64(i), 0)
	}
	h.Each(func(x *item, _ int64, _ uint64) bool {
		if !x.Queued() {
			t.Fatalf("Each passed %s, which is not queued", x.name)
		}
		h.Pop()
		return true
	})
	checkHeap(t, &h)
}

// TestMemoryFollowsPendingWork: the slot array halves as the heap drains
// and never drops below the NewHeap capacity.
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
			h.Push(&item{}, int64(i), 0)
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
		h.Clear()
		if c := cap(h.s); c > tt.floor {
			t.Fatalf("capacity %d: Clear kept %d slots", tt.capacity, c)
		}
	}
	var h Heap[*item]
	for i := range 10_000 {
		h.Push(&item{}, int64(i), 0)
	}
	h.Clear()
	if h.s != nil || h.Len() != 0 {
		t.Fatalf("Clear of 10000 values kept %d slots", cap(h.s))
	}
	h.Push(&item{name: "a"}, 1, 0)
	if cap(h.s) != shrinkFloor {
		t.Fatalf("Push after Clear allocated %d slots, want %d", cap(h.s), shrinkFloor)
	}
}

// TestReleasesValues: once removed, popped or cleared, a value is
// unreachable from the heap and the GC frees it.
func TestReleasesValues(t *testing.T) {
	for _, tt := range []struct {
		name string
		drop func(h *Heap[*item], x *item)
	}{
		{"remove", func(h *Heap[*item], x *item) { h.Remove(x) }},
		{"pop", func(h *Heap[*item], _ *item) { h.Pop() }},
		{"clear", func(h *Heap[*item], _ *item) { h.Clear() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var h Heap[*item]
			keep := &item{name: "keep"}
			h.Push(keep, 100, 0)
			x := &item{name: "x"}
			w := weak.Make(x)
			h.Push(x, 1, 0)
			tt.drop(&h, x)
			x = nil
			goruntime.GC()
			if w.Value() != nil {
				t.Fatal("the heap still references a dropped value")
			}
			goruntime.KeepAlive(&h)
		})
	}
}

// TestZeroAllocs: once the slot array has grown, Push, Pop, Remove and
// Update allocate nothing.
func TestZeroAllocs(t *testing.T) {
	const n = 1000
	var h Heap[*item]
	items := make([]item, n)
	for i := range items {
		h.Push(&items[i], int64(i*7919%n), uint64(i))
	}
	x := &item{}
	i := 0
	for _, tt := range []struct {
		name string
		f    func()
	}{
		{"push+remove", func() {
			h.Push(x, int64(i%n), uint64(i))
			h.Remove(x)
		}},
		{"push+pop", func() {
			h.Push(x, int64(i%n), uint64(i))
			x, _, _, _ = h.Pop()
		}},
		{"remove+push", func() {
			y := &items[(i*31)%n]
			h.Remove(y)
			h.Push(y, int64((i*17)%n), uint64(i))
		}},
		{"update", func() {
			h.Update(&items[(i*31)%n], int64((i*13)%n), uint64(i))
		}},
	} {
		if allocs := testing.AllocsPerRun(1000, func() { tt.f(); i++ }); allocs != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tt.name, allocs)
		}
	}
	checkHeap(t, &h)
}

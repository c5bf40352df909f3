package timerq

import (
	"math"
	"slices"
	"testing"
)

// The entry pushed last waits off the lists (hot) until a call reads them
// or moves time. Nothing of that shows: every call sees it as pending, and
// each settles it where Push would have put it, on every level, in the
// ready run and beyond the horizon.

// hotWheel returns a wheel of the small geometry moved to 5 (so that a
// deadline at or before 5 is due at once) holding entries at 30 and 300,
// settled, and then a hot entry at when, value 7, seq 9.
func hotWheel(t *testing.T, when int64) (*Wheel[int], ID) {
	t.Helper()
	w := newWheel(t, small, 0)
	drainTo(w, 5)
	w.Push(30, 1, 1)
	w.Push(300, 2, 2)
	id := w.Push(when, 9, 7)
	if w.hot != int32(id) {
		t.Fatalf("the last push is not hot")
	}
	return w, id
}

// hotDeadlines are a hot entry's deadlines: due at once (before and at the
// wheel's time), on each level, at the horizon and beyond it.
func hotDeadlines() []int64 {
	h := small.Horizon()
	return []int64{-50, 3, 5, 6, 25, 30, 70, 300, 599, h, h + 50, 5 * h, math.MaxInt64}
}

func TestWheelHotPopDue(t *testing.T) {
	for _, when := range hotDeadlines() {
		w, _ := hotWheel(t, when)
		want := []popped{{30, 1, 1}, {300, 2, 2}, {when, 9, 7}}
		slices.SortFunc(want, cmpPopped)
		var got []popped
		for _, upTo := range []int64{5, 29, 30, 599, math.MaxInt64} {
			got = append(got, drainTo(w, upTo)...)
		}
		if !slices.Equal(got, want) {
			t.Errorf("when %d: popped %v, want %v", when, got, want)
		}
	}
}

// A hot entry due at once pops in the drain that pushed it, by key.
func TestWheelHotDueAtOnce(t *testing.T) {
	w := newWheel(t, small, 0)
	w.Push(4, 2, 2)
	w.Push(5, 3, 3)
	if _, when, _, _, ok := w.PopDue(5); !ok || when != 4 {
		t.Fatalf("PopDue(5) = %d %v, want 4", when, ok)
	}
	w.Push(4, 1, 1) // before the ready run's head, then after it
	w.Push(5, 4, 4)
	got := drainTo(w, 5)
	want := []popped{{4, 1, 1}, {5, 3, 3}, {5, 4, 4}}
	if !slices.Equal(got, want) {
		t.Fatalf("popped %v, want %v", got, want)
	}
}

func TestWheelHotNext(t *testing.T) {
	for _, when := range hotDeadlines() {
		w, _ := hotWheel(t, when)
		if got, ok := w.Next(); !ok || got != min(when, 30) {
			t.Errorf("Next = %d %v, want %d", got, ok, min(when, 30))
		}
	}
	w := newWheel(t, small, 0)
	w.Push(5*small.Horizon(), 0, 0) // alone, beyond the horizon
	if got, ok := w.Next(); !ok || got != 5*small.Horizon() {
		t.Fatalf("Next = %d %v, want the overflow entry", got, ok)
	}
}

func TestWheelHotGetEachLen(t *testing.T) {
	for _, when := range hotDeadlines() {
		w, id := hotWheel(t, when)
		if gw, gs, gv, ok := w.Get(id); !ok || gw != when || gs != 9 || gv != 7 {
			t.Fatalf("Get(hot) = %d %d %d %v", gw, gs, gv, ok)
		}
		if w.Len() != 3 {
			t.Fatalf("Len = %d, want 3", w.Len())
		}
		var seen []int
		w.Each(func(_ ID, _ int64, _ uint64, v int) bool {
			seen = append(seen, v)
			return true
		})
		slices.Sort(seen)
		if !slices.Equal(seen, []int{1, 2, 7}) {
			t.Fatalf("Each saw %v, want 1 2 7", seen)
		}
		if w.hot != int32(id) {
			t.Fatalf("Get, Len or Each settled the hot entry")
		}
	}
}

// Removing the hot entry frees it without touching a list: nothing of it
// pops, its ID is the next handed out, and a stale ID or seq removes
// nothing.
func TestWheelHotRemove(t *testing.T) {
	for _, when := range hotDeadlines() {
		w, id := hotWheel(t, when)
		if _, ok := w.RemoveSeq(id, 8); ok {
			t.Fatalf("RemoveSeq with another seq removed the hot entry")
		}
		if v, ok := w.Remove(id); !ok || v != 7 {
			t.Fatalf("Remove(hot) = %d %v", v, ok)
		}
		if _, _, _, ok := w.Get(id); ok || w.Len() != 2 || w.hot != noEntry {
			t.Fatalf("after Remove: Get ok %v, Len %d, hot %d", ok, w.Len(), w.hot)
		}
		if _, ok := w.Remove(id); ok {
			t.Fatal("a second Remove(hot) = true")
		}
		// The freed ID comes back hot under a new seq; the old seq is stale.
		if id2 := w.Push(when, 10, 8); id2 != id {
			t.Fatalf("Push after Remove got ID %d, want %d", id2, id)
		}
		if _, ok := w.RemoveSeq(id, 9); ok {
			t.Fatal("RemoveSeq of the stale seq removed the new hot entry")
		}
		if v, ok := w.RemoveSeq(id, 10); !ok || v != 8 {
			t.Fatalf("RemoveSeq(hot, its seq) = %d %v", v, ok)
		}
		got := drainTo(w, math.MaxInt64)
		if want := []popped{{30, 1, 1}, {300, 2, 2}}; !slices.Equal(got, want) {
			t.Fatalf("when %d: popped %v, want %v", when, got, want)
		}
	}
}

// Removing another entry leaves the hot one hot, and it still pops in its
// place.
func TestWheelHotRemoveOther(t *testing.T) {
	w := newWheel(t, small, 0)
	drainTo(w, 5)
	a := w.Push(5, 1, 1) // ready
	b := w.Push(5, 2, 2) // hot, after a in the ready run
	w.Remove(a)
	c := w.Push(5, 3, 3) // settles b
	if w.hot != int32(c) {
		t.Fatal("the last push is not hot")
	}
	w.Remove(b)
	got := drainTo(w, 5)
	if want := []popped{{5, 3, 3}}; !slices.Equal(got, want) {
		t.Fatalf("popped %v, want %v", got, want)
	}
}

// Update of the hot entry re-keys it where it waits; Update of another
// settles the hot one first, so among equal keys it stays first.
func TestWheelHotUpdate(t *testing.T) {
	for _, when := range hotDeadlines() {
		for _, to := range []int64{2, 5, 60, 5 * small.Horizon()} {
			w, id := hotWheel(t, when)
			if !w.Update(id, to, 11) {
				t.Fatal("Update(hot) = false")
			}
			want := []popped{{30, 1, 1}, {300, 2, 2}, {to, 11, 7}}
			slices.SortFunc(want, cmpPopped)
			if got := drainTo(w, math.MaxInt64); !slices.Equal(got, want) {
				t.Fatalf("%d -> %d: popped %v, want %v", when, to, got, want)
			}
		}
	}
	w := newWheel(t, small, 0)
	drainTo(w, 5)
	a := w.Push(40, 1, 1)
	w.Push(5, 1, 2) // hot, due at once
	w.Update(a, 5, 1)
	got := drainTo(w, 5)
	if want := []popped{{5, 1, 2}, {5, 1, 1}}; !slices.Equal(got, want) {
		t.Fatalf("popped %v, want the hot entry first among equal keys: %v", got, want)
	}
}

func TestWheelHotClear(t *testing.T) {
	for _, when := range hotDeadlines() {
		w, id := hotWheel(t, when)
		w.Clear()
		if _, _, _, ok := w.Get(id); ok || w.Len() != 0 || w.hot != noEntry {
			t.Fatalf("after Clear: Get ok %v, Len %d, hot %d", ok, w.Len(), w.hot)
		}
		if _, ok := w.Next(); ok {
			t.Fatal("Next after Clear: ok")
		}
		w.Push(40, 1, 1)
		if got := drainTo(w, math.MaxInt64); !slices.Equal(got, []popped{{40, 1, 1}}) {
			t.Fatalf("popped %v after Clear and a push", got)
		}
	}
}

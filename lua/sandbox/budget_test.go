package sandbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	"github.com/metronome-rt/metronome/temporal"
	lua "github.com/yuin/gopher-lua"
)

const testBudget = 50 * temporal.Millisecond

// budgetState is a sandboxed state with opts' budgets, closed with the test.
func budgetState(t *testing.T, opts Options) *lua.LState {
	t.Helper()
	L := NewState(opts)
	t.Cleanup(L.Close)
	return L
}

// chunk runs src as the main chunk "f.lua" under the budget.
func chunk(t *testing.T, L *lua.LState, src string) error {
	t.Helper()
	fn, err := Compile(L, src, "f.lua")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	return PCall(L, 0, 0, nil)
}

// The state's context keeps context.Context's rules: Err is nil until Done
// is closed and the same error after; contexts derived from it and
// context.AfterFunc see a budget run out; the next call runs under a new,
// live context.
func TestBudgetContextKeepsTheContextRules(t *testing.T) {
	L := budgetState(t, Options{Budget: testBudget})
	ctx := L.Context()
	if done := ctx.Done(); done != L.Context().Done() {
		t.Fatal("Done returned two channels")
	}
	if err := ctx.Err(); err != nil {
		t.Fatalf("Err before Done is closed: %v", err)
	}
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	ran := make(chan struct{})
	context.AfterFunc(ctx, func() { close(ran) })

	luaeval.WantErr(t, chunk(t, L, `while true do end`), "ran past its 50ms budget")
	for name, ch := range map[string]<-chan struct{}{"Done": ctx.Done(), "a derived context": child.Done(), "AfterFunc": ran} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: not done 10s after the budget ran out", name)
		}
	}
	err := ctx.Err()
	if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != err {
		t.Fatalf("Err = %v, then %v; want one error that is context.DeadlineExceeded", err, ctx.Err())
	}
	if !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Fatalf("derived context's Err = %v", child.Err())
	}
	if next := L.Context(); next == ctx || next.Err() != nil {
		t.Fatalf("after the trip: context %p (was %p), Err %v; want a new, live one", next, ctx, next.Err())
	}
	if err := chunk(t, L, `x = 1`); err != nil {
		t.Fatalf("next chunk: %v", err)
	}
}

// A callback's deadline stands after it returns while its drain's Go code
// runs on; should it pass there, the trip has no owner: the next callback
// and the rest of the drain run as if it had not.
func TestBudgetPassedBetweenCallbacksBlamesNoOne(t *testing.T) {
	L := budgetState(t, Options{Budget: testBudget, DrainBudget: temporal.Hour})
	if err := chunk(t, L, `n = 0 function cb() n = n + 1 end`); err != nil {
		t.Fatal(err)
	}
	cb := L.GetGlobal("cb").(*lua.LFunction)
	g, cbs := governorOf(L), CallbacksOf(L)
	err := Drain(L, "advance", func() error {
		L.Push(cb)
		if err := cbs.Call(L, cb, 0); err != nil {
			return err
		}
		// The Go code after the callback outlives its budget: the timer
		// ticks past the callback's deadline.
		for range g.budgetTicks + 2 {
			g.tick()
		}
		if !g.tripped() {
			t.Error("the timer did not trip past the stale deadline")
		}
		L.Push(cb)
		return cbs.Call(L, cb, 0)
	})
	if err != nil {
		t.Fatalf("a trip with no owner surfaced: %v", err)
	}
	if err := chunk(t, L, `for i = 1, 1000 do n = n + 1 end`); err != nil {
		t.Fatalf("next chunk: %v", err)
	}
	if n := L.GetGlobal("n"); n != lua.LNumber(1002) {
		t.Fatalf("n = %v, want 1002", n)
	}
}

// stopCtx on its own: Err is nil until Done is closed and one error after;
// AfterFunc runs f once when cancelled, or at once when already done, and
// its stop keeps f from running only before that.
func TestStopCtxAfterFunc(t *testing.T) {
	c := newStopCtx(&governor{})
	if c.Err() != nil {
		t.Fatal("Err before cancel")
	}
	ran := make(chan string, 3)
	c.AfterFunc(func() { ran <- "registered" })
	stop := c.AfterFunc(func() { ran <- "stopped" })
	if !stop() || stop() {
		t.Fatal("stop before cancel: want true, then false")
	}
	cause := errors.New("trip")
	if !c.cancel(cause) || c.cancel(errors.New("again")) {
		t.Fatal("cancel: want true once")
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed after cancel")
	}
	if c.Err() != cause || c.Err() != c.Err() {
		t.Fatalf("Err = %v, want the first cancel's error every time", c.Err())
	}
	late := c.AfterFunc(func() { ran <- "late" })
	got := map[string]bool{<-ran: true, <-ran: true}
	if !got["registered"] || !got["late"] || got["stopped"] {
		t.Fatalf("ran %v, want registered and late", got)
	}
	if late() {
		t.Fatal("stop after the function ran reported true")
	}
}

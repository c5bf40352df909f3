package sandbox

import (
	"strings"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	lua "github.com/yuin/gopher-lua"
)

// An error object's __tostring runs with a budget of its own: one that
// never returns gives the object's type and the budget error.
func TestErrorTextOfAToStringThatLoops(t *testing.T) {
	obj := "return setmetatable({}, { __tostring = function() while true do end end })"
	for name, opts := range map[string]Options{
		"budget":    {Budget: testBudget},
		"no budget": {},
	} {
		t.Run(name, func(t *testing.T) {
			L := budgetState(t, opts)
			fn, err := Compile(L, obj, "f.lua")
			if err != nil {
				t.Fatal(err)
			}
			L.Push(fn)
			if err := PCall(L, 0, 1, nil); err != nil {
				t.Fatal(err)
			}
			v := L.Get(-1)
			L.Pop(1)
			got := ErrorText(L, v)
			want := "(error object is a table value whose __tostring failed: f.lua:1: budget: function <f.lua:1> ran past its 50ms budget)"
			if opts.Budget == 0 {
				want = "(error object is a table value whose __tostring failed: f.lua:1: context deadline exceeded)"
			}
			if got != want {
				t.Errorf("ErrorText = %q, want %q", got, want)
			}
			// The state goes on.
			if err := chunk(t, L, `x = 1`); err != nil {
				t.Fatalf("next chunk: %v", err)
			}
		})
	}
}

// ErrorText cuts a long text and copies what it keeps.
func TestErrorTextIsCut(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	big := strings.Repeat("é", MaxErrorText)
	got := ErrorText(L, lua.LString(big))
	if want := strings.Repeat("é", MaxErrorText/2) + "…(32768 bytes)"; got != want {
		t.Errorf("ErrorText of %d bytes = %d bytes %q...; want %d", len(big), len(got), got[len(got)-30:], len(want))
	}
	if got := ErrorText(L, lua.LString("short")); got != "short" {
		t.Errorf("ErrorText(short) = %q", got)
	}
	doString(t, L, `obj = setmetatable({}, { __tostring = function() return ("y"):rep(1e6) end })
bad = setmetatable({}, { __tostring = function() return {} end })`)
	if got := ErrorText(L, L.GetGlobal("obj")); len(got) > MaxErrorText+20 || !strings.HasSuffix(got, "…(1000000 bytes)") {
		t.Errorf("ErrorText of a 1e6-byte __tostring: %d bytes ending %q", len(got), got[len(got)-20:])
	}
	if got, want := ErrorText(L, L.GetGlobal("bad")), "(error object is a table value whose __tostring failed: '__tostring' must return a string, got a table value)"; got != want {
		t.Errorf("ErrorText = %q, want %q", got, want)
	}
}

// CheckBudget raises the budget error once a budget has run out, and
// does nothing before.
func TestCheckBudget(t *testing.T) {
	L := budgetState(t, Options{Budget: testBudget})
	L.SetGlobal("work", L.NewFunction(func(L *lua.LState) int {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			CheckBudget(L)
		}
		return 0
	}))
	luaeval.WantErr(t, chunk(t, L, `work()`), "budget: main chunk f.lua ran past its 50ms budget")
	CheckBudget(L) // no call open: nothing to raise
}

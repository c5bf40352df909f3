package scripting

import (
	"strings"
	"testing"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// twoFunctions returns a bare state (closed with the test) and its global
// functions f and g.
func twoFunctions(t *testing.T) (L *lua.LState, f, g *lua.LFunction) {
	L = lua.NewState()
	t.Cleanup(L.Close)
	if err := L.DoString(`function f() end function g() end`); err != nil {
		t.Fatal(err)
	}
	return L, L.GetGlobal("f").(*lua.LFunction), L.GetGlobal("g").(*lua.LFunction)
}

// closureAddr is the address of fn's closure: reflect's Pointer gives its
// code's, which every closure made by one function literal shares.
func closureAddr[F any](fn F) uintptr { return *(*uintptr)(unsafe.Pointer(&fn)) }

// A function scheduled again reuses the Func made for it last time; another
// function, or the same one for another state, gets a Func of its own.
func TestJobCacheReusesTheLastFunc(t *testing.T) {
	L, f, g := twoFunctions(t)
	ptr := closureAddr[func() error]
	var c jobCache
	f1, f2 := c.get(L, f), c.get(L, f)
	if ptr(f1) != ptr(f2) {
		t.Fatal("the same function twice in a row made two Funcs")
	}
	if g1 := c.get(L, g); ptr(g1) == ptr(f1) {
		t.Fatal("another function got the cached Func")
	}
	if f3 := c.get(L, f); ptr(f3) == ptr(f1) {
		t.Fatal("f after g reused the Func made for f before g: the cache should hold only the last function")
	}
	L2 := lua.NewState()
	defer L2.Close()
	if f4 := c.get(L2, f); ptr(f4) == ptr(c.get(L, f)) {
		t.Fatal("a Func made for one state was reused for another")
	}
}

// Jobs sharing one callback stay separate jobs: each fires, and a failing
// one is named by its own creation number and label.
func TestJobsSharingACallbackAreNamedApart(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	err := L.DoString(`
local Temporal = require "temporal"
local RS = require "runtime-scheduler"
local s = RS.create{ clock = Temporal.clock.fixed(Temporal.instant["from-epoch-ms"](0)) }
local n = 0
local function cb() n = n + 1; if n == 3 then error("third") end end
for i = 1, 3 do
  s:schedule_once{ delay = Temporal.duration{ milliseconds = i }, callback = cb }
end
s:advance(Temporal.duration{ milliseconds = 5 })`)
	if err == nil {
		t.Fatal("advance did not fail")
	}
	for _, want := range []string{"third", "once #3", "<string>:8"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

package sandbox

import (
	"errors"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// fillStack is Lua that overflows the value stack one push at a time, under
// 50 frames of 30 locals: the case gopher-lua's PCall lets escape when it
// has a message handler.
const fillStack = `
	local big = {}
	for i = 1, 4000 do big[i] = i end
	local function deep(n)
		local a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
		local b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15
		if n == 0 then return unpack(big) end
		return (deep(n - 1))
	end
	deep(50)`

func TestPCallCatchesRegistryOverflow(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	fn, err := L.LoadString(fillStack)
	if err != nil {
		t.Fatal(err)
	}
	handler := L.NewFunction(func(L *lua.LState) int { L.Push(L.Get(1)); return 1 })
	for _, nret := range []int{0, 2, lua.MultRet} {
		top := L.GetTop()
		L.Push(fn)
		err := PCall(L, 0, nret, handler)
		if err == nil || !strings.Contains(err.Error(), "registry overflow") {
			t.Fatalf("PCall(nret %d) = %v, want a registry overflow", nret, err)
		}
		if L.GetTop() != top {
			t.Fatalf("PCall(nret %d) left %d values on the stack, want %d", nret, L.GetTop(), top)
		}
	}
	// The state still works, and results come back.
	L.Push(L.NewFunction(func(L *lua.LState) int { L.Push(lua.LNumber(1)); L.Push(lua.LNumber(2)); return 2 }))
	if err := PCall(L, 0, 1, handler); err != nil || L.GetTop() != 1 || L.Get(1) != lua.LNumber(1) {
		t.Fatalf("PCall after the overflow: %v, stack %d %v", err, L.GetTop(), L.Get(1))
	}
}

// A Go panic in a Go function a script calls is a Lua error with the
// position of the Lua code that called it.
func TestPCallGivesGoPanicsAPosition(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	L.SetGlobal("broken", L.NewFunction(func(L *lua.LState) int {
		var none []int
		return none[L.GetTop()+3]
	}))
	fn, err := L.LoadString("local x = 1\nbroken()")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	err = PCall(L, 0, 0, nil)
	var api *lua.ApiError
	if !errors.As(err, &api) || api.Object.String() != "<string>:2: runtime error: index out of range [3] with length 0" {
		t.Fatalf("PCall = %v", err)
	}
}

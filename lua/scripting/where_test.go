package scripting

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// where names the Lua line that called the Go function, as L.Where(1) does
// without its trailing colon, from every kind of caller: the main chunk, a
// nested function, a coroutine, a pcall'd function, and a Go function (the
// callback of pcall itself).
func TestWhereMatchesLuaWhere(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	var got, want []string
	L.SetGlobal("here", L.NewFunction(func(L *lua.LState) int {
		got = append(got, where(L))
		want = append(want, strings.TrimSuffix(L.Where(1), ":"))
		return 0
	}))
	err := L.DoString(`here()
local function f()
  here()
end
f()
coroutine.wrap(function() here() end)()
pcall(function()
  here()
end)
pcall(here)
`)
	if err != nil {
		t.Fatal(err)
	}
	wantLines := []string{`<string>:1`, `<string>:3`, `<string>:6`, `<string>:8`, `[G]`}
	if len(got) != len(wantLines) {
		t.Fatalf("where ran %d times, want %d", len(got), len(wantLines))
	}
	for i := range got {
		if got[i] != want[i] || got[i] != wantLines[i] {
			t.Errorf("call %d: where = %q, L.Where(1) = %q, want %q", i, got[i], want[i], wantLines[i])
		}
	}
}

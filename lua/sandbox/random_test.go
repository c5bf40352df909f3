package sandbox

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func doString(t *testing.T, L *lua.LState, src string) {
	t.Helper()
	if err := L.DoString(src); err != nil {
		t.Fatal(err)
	}
}

func TestSeedRandom(t *testing.T) {
	draw := func(L *lua.LState) string {
		t.Helper()
		doString(t, L, `local s = {} for i = 1, 5 do s[i] = math.random(1000000) end s[6] = math.random() seq = table.concat(s, ",")`)
		return L.GetGlobal("seq").String()
	}
	a, b, c := NewState(Options{Seed: 7}), NewState(Options{Seed: 7}), NewState(Options{Seed: 8})
	defer a.Close()
	defer b.Close()
	defer c.Close()
	first := draw(a)
	if draw(b) != first || draw(c) == first {
		t.Fatalf("seed 7 twice and seed 8 gave %s, %s, %s", first, draw(b), draw(c))
	}
	if !SeedRandom(c, 7) || draw(c) != first {
		t.Fatal("SeedRandom(7) did not repeat seed 7's sequence")
	}
	doString(t, c, `math.randomseed(7)`)
	if draw(c) != first {
		t.Fatal("math.randomseed(7) did not repeat seed 7's sequence")
	}
	plain := lua.NewState()
	defer plain.Close()
	if SeedRandom(plain, 1) {
		t.Fatal("SeedRandom on a state NewState did not make reported true")
	}
}

package sandbox

import (
	"fmt"
	"math"
	"math/rand/v2"

	lua "github.com/yuin/gopher-lua"
)

// Each state has its own generator behind math.random, a PCG seeded from
// Options.Seed, so a run repeats; math.randomseed(x) reseeds it (gopher-lua's
// calls rand.Seed, which does nothing since Go 1.24).

// pcgStream is the PCG's second seed word, fixed: the seed picks the
// sequence.
const pcgStream = 0x6d65_7472_6f6e_6f6d // "metronom"

// maxRandomInt bounds math.random's arguments: every integer up to 2^53 is
// a Lua number, and so is every result.
const maxRandomInt = 1 << 53

// random is a state's generator.
type random struct {
	pcg *rand.PCG
	r   *rand.Rand
}

const randomKey = "metronome.random"

// installRandom replaces math.random and math.randomseed with a generator
// seeded from seed.
func installRandom(L *lua.LState, seed int64) {
	g := &random{pcg: rand.NewPCG(uint64(seed), pcgStream)}
	g.r = rand.New(g.pcg)
	ud := L.NewUserData()
	ud.Value = g
	L.G.Registry.RawSetString(randomKey, ud)
	mathmod, ok := L.GetGlobal("math").(*lua.LTable)
	if !ok {
		return
	}
	mathmod.RawSetString("random", L.NewFunction(g.random))
	mathmod.RawSetString("randomseed", L.NewFunction(g.randomseed))
}

// SeedRandom reseeds the math.random of L's state, a state NewState made,
// as Options.Seed seeds it: afterwards math.random gives the sequence a new
// state with Options.Seed = seed gives. It reports false, and does nothing,
// for a state NewState did not make.
func SeedRandom(L *lua.LState, seed int64) bool {
	ud, ok := L.G.Registry.RawGetString(randomKey).(*lua.LUserData)
	if !ok {
		return false
	}
	g, ok := ud.Value.(*random)
	if ok {
		g.pcg.Seed(uint64(seed), pcgStream)
	}
	return ok
}

// random is math.random([m [, n]]) as in Lua 5.1: a number in [0, 1), an
// integer in [1, m] or in [m, n]. Arguments are truncated to integers as
// Lua 5.1 does, and must lie within ±2^53.
func (g *random) random(L *lua.LState) int {
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(g.r.Float64()))
		return 1
	case 1:
		m := randomArg(L, 1)
		if m < 1 {
			argError(L, 1, "random", "interval is empty")
		}
		L.Push(lua.LNumber(1 + int64(g.r.Uint64N(uint64(m)))))
		return 1
	case 2:
		m, n := randomArg(L, 1), randomArg(L, 2)
		if m > n {
			argError(L, 2, "random", "interval is empty")
		}
		L.Push(lua.LNumber(m + int64(g.r.Uint64N(uint64(n-m)+1))))
		return 1
	}
	raise(L, "wrong number of arguments to 'random': %d (want 0, 1 or 2)", L.GetTop())
	return 0
}

// randomArg reads argument n of math.random: a number (or a numeric
// string, as in Lua 5.1), truncated toward zero, within ±2^53.
func randomArg(L *lua.LState, n int) int64 {
	x := math.Trunc(float64(L.CheckNumber(n)))
	if !(x >= -maxRandomInt && x <= maxRandomInt) {
		argError(L, n, "random", fmt.Sprintf("%s is out of range: want an integer within ±2^53", Describe(L.Get(n))))
	}
	return int64(x)
}

// randomseed is math.randomseed(x): afterwards math.random gives the
// sequence of a state made with Options.Seed = x (x truncated toward zero;
// a value beyond int64 seeds with its bits).
func (g *random) randomseed(L *lua.LState) int {
	x := float64(L.CheckNumber(1))
	var seed uint64
	if t := math.Trunc(x); t >= math.MinInt64 && t < math.MaxInt64 {
		seed = uint64(int64(t))
	} else {
		seed = math.Float64bits(x)
	}
	g.pcg.Seed(seed, pcgStream)
	return 0
}

// NextRandom is the next draw of the state's generator (math.random's, so
// Options.Seed decides it), or 0 for a state NewState did not make.
func NextRandom(L *lua.LState) uint64 {
	if ud, ok := L.G.Registry.RawGetString(randomKey).(*lua.LUserData); ok {
		if g, ok := ud.Value.(*random); ok {
			return g.r.Uint64()
		}
	}
	return 0
}

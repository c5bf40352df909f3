package scripting

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// gameState is an embedding host's own value.
type gameState struct {
	Score  int
	Name   string
	Level  *level
	Hidden string `luar:"-"`
	secret string
}

type level struct{ Number int }

func (g *gameState) AddScore(n int) int { g.Score += n; return g.Score }

func (g *gameState) Title() string { return g.Name + " on level " + strconv.Itoa(g.Level.Number) }

// reset must stay unreachable from scripts.
//
//lint:ignore U1000 it exists to be unreachable
func (g *gameState) reset() { g.Score = 0 }

func TestExposeReadsFieldsAndCallsMethods(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	g := &gameState{Score: 10, Name: "ada", Level: &level{Number: 3}, Hidden: "h", secret: "s"}
	Expose(L, "game", g)
	doString(t, L, `
		assert(game == nil, "Expose made a global")
		local game = require "game"
		assert(require "game" == game)
		assert(game.Score == 10 and game.score == 10, "exported field, both spellings")
		assert(game.Name == "ada")
		assert(game.Level.Number == 3)
		assert(game:AddScore(5) == 15)
		assert(game:addScore(1) == 16)
		assert(game:Title() == "ada on level 3")
		game.Score = 100
	`)
	if g.Score != 100 {
		t.Fatalf("Score %d, want 100: scripts set exported fields through a pointer", g.Score)
	}
}

func TestExposeHidesUnexportedFieldsAndMethods(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	g := &gameState{Score: 1, Level: &level{}, Hidden: "h", secret: "s"}
	Expose(L, "game", g)
	doString(t, L, `
		local game = require "game"
		assert(game.secret == nil, "unexported field read")
		assert(game.Hidden == nil and game.hidden == nil, "luar:\"-\" field read")
		assert(game.reset == nil, "unexported method reachable")
	`)
	for src, want := range map[string]string{
		`require("game").secret = "x"`: "unknown field secret",
		`require("game").Hidden = "x"`: "unknown field Hidden",
		`require("game"):reset()`:      "attempt to call a non-function object",
	} {
		err := L.DoString(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", src, err, want)
		}
	}
	if g.secret != "s" || g.Hidden != "h" || g.Score != 1 {
		t.Fatalf("hidden state changed: %+v", g)
	}
}

func TestExposePanicsOnEmptyName(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	Expose(L, "", 1)
}

// Func turns a plain Go function into one a script calls; a final error
// result becomes a Lua error with the script's position.
func TestFuncCallsGo(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	L.SetGlobal("add", Func(L, func(a, b int) int { return a + b }))
	L.SetGlobal("fail", Func(L, func(s string) (string, error) { return "", errors.New("no " + s) }))
	if err := L.DoString(`n = add(2, 3) ok, msg = pcall(fail, "goblins")`); err != nil {
		t.Fatal(err)
	}
	if n := L.GetGlobal("n"); n != lua.LNumber(5) {
		t.Fatalf("add(2, 3) = %v, want 5", n)
	}
	if ok, msg := L.GetGlobal("ok"), L.GetGlobal("msg").String(); ok != lua.LFalse || !strings.Contains(msg, "no goblins") {
		t.Fatalf("pcall(fail) = %v, %q; want false and the Go error", ok, msg)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Func(L, 42) did not panic")
		}
	}()
	Func(L, 42)
}

// Func drops a nil final error from the results.
func TestFuncDropsANilError(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	L.SetGlobal("name", Func(L, func() (string, error) { return "ada", nil }))
	if err := L.DoString(`a, b = name()`); err != nil {
		t.Fatal(err)
	}
	if a, b := L.GetGlobal("a"), L.GetGlobal("b"); a != lua.LString("ada") || b != lua.LNil {
		t.Fatalf("name() = %v, %v; want ada and nothing", a, b)
	}
}

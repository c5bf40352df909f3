package scripting

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	lua "github.com/yuin/gopher-lua"
)

// sandboxNow is a Sunday, day 70 of a leap year, in ISO week 10.
var sandboxNow = time.Date(2024, 3, 10, 6, 59, 5, 0, time.UTC)

func newSandbox(t *testing.T, opts Options) (*lua.LState, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	if opts.Stdout == nil {
		opts.Stdout = &out
	}
	if opts.Now == nil {
		opts.Now = func() time.Time { return sandboxNow }
	}
	L := NewState(opts)
	t.Cleanup(L.Close)
	return L, &out
}

func TestSandboxRefusals(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	for _, expr := range []string{
		"io", "dofile", "loadfile", "_printregs", "debug", "channel",
		"os.execute", "os.exit", "os.remove", "os.rename", "os.getenv", "os.tmpname",
		"package.path", "package.cpath",
	} {
		if got := luaeval.Eval1(t, L, expr); got != "nil" {
			t.Errorf("%s = %s, want nil", expr, got)
		}
	}
	for _, expr := range []string{"os.time", "os.clock", "os.date", "string.format", "table.concat", "math.floor", "coroutine.wrap"} {
		if got := luaeval.Eval1(t, L, "type("+expr+")"); got != "function" {
			t.Errorf("type(%s) = %s, want function", expr, got)
		}
	}
	for src, want := range map[string]string{
		`io.write("x")`:          "attempt to index a non-table object(nil) with key 'write'",
		`os.execute("true")`:     "attempt to call a non-function object",
		`os.exit(3)`:             "attempt to call a non-function object",
		`os.remove("/tmp/none")`: "attempt to call a non-function object",
		`dofile("x.lua")`:        "attempt to call a non-function object",
		`loadfile("x.lua")`:      "attempt to call a non-function object",
	} {
		if msg := luaeval.Err(t, L, src); !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want it to contain %q", src, msg, want)
		}
	}
}

func TestStateRequire(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sibling.lua", `return { name = ..., n = 1 }`)
	write("sub/inner.lua", `return "inner"`)
	write("broken.lua", "return +\n")
	// A file next to the script folder that require must not reach.
	outside := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-secret.lua")
	if err := os.WriteFile(outside, []byte(`return "secret"`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(outside) })

	L, _ := newSandbox(t, Options{ScriptDir: dir})
	if got := luaeval.Eval(t, L, `require("sibling").name, require("sibling").n`); strings.Join(got, " ") != "sibling 1" {
		t.Errorf("require sibling = %q", got)
	}
	if got := luaeval.Eval1(t, L, `require("sibling") == require("sibling")`); got != "true" {
		t.Errorf("require does not cache: %s", got)
	}
	if got := luaeval.Eval1(t, L, `require "sub.inner"`); got != "inner" {
		t.Errorf("require sub.inner = %s", got)
	}
	for src, want := range map[string]string{
		`require("../` + filepath.Base(dir) + `-secret")`: `".." is not allowed`,
		`require("..` + filepath.Base(dir) + `-secret")`:  `".." is not allowed`,
		`require("/etc/passwd")`:                          "empty path segment",
		`require(".hidden")`:                              "empty path segment",
		`require("a\\b")`:                                 "not allowed in module names",
		`require("missing")`:                              "no file '" + filepath.Join(dir, "missing.lua") + "'",
		`require("broken")`:                               filepath.Join(dir, "broken.lua") + ":1: syntax error near '+'",
	} {
		if msg := luaeval.Err(t, L, src); !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want it to contain %q", src, msg, want)
		}
	}

	// package.path is not consulted.
	L2, _ := newSandbox(t, Options{})
	if err := L2.DoString(`package.path = "` + filepath.Dir(dir) + `/?.lua"`); err != nil {
		t.Fatal(err)
	}
	if msg := luaeval.Err(t, L2, `require("`+filepath.Base(dir)+`-secret")`); !strings.Contains(msg, "no script folder") {
		t.Errorf("require through package.path: %q", msg)
	}
}

func TestStateModules(t *testing.T) {
	loader := func(L *lua.LState) int {
		mod := L.NewTable()
		mod.RawSetString("answer", lua.LNumber(42))
		L.Push(mod)
		return 1
	}
	L, _ := newSandbox(t, Options{Modules: map[string]lua.LGFunction{"custom-mod": loader}})
	if got := luaeval.Eval1(t, L, `require("custom-mod").answer`); got != "42" {
		t.Errorf("custom module: %s", got)
	}
	if got := luaeval.Eval1(t, L, `rawget(_G, "custom-mod")`); got != "nil" {
		t.Errorf("module leaked into globals: %s", got)
	}
	for name := range builtinModules {
		if got := luaeval.Eval1(t, L, `type(package.preload["`+name+`"])`); got != "function" {
			t.Errorf("built-in %s not preloaded: %s", name, got)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("nil loader: no panic")
		}
	}()
	NewState(Options{Modules: map[string]lua.LGFunction{"x": nil}})
}

func TestStateAllowIO(t *testing.T) {
	L, _ := newSandbox(t, Options{AllowIO: true})
	for _, expr := range []string{"io.open", "io.write", "os.getenv", "os.remove", "os.execute"} {
		if got := luaeval.Eval1(t, L, "type("+expr+")"); got != "function" {
			t.Errorf("type(%s) = %s, want function", expr, got)
		}
	}
	if got := luaeval.Eval1(t, L, `os.date("%H:%M:%S %Z")`); got != "06:59:05 UTC" {
		t.Errorf("os.date with AllowIO = %s, want the UTC sandbox version", got)
	}
	for _, expr := range []string{"dofile", "loadfile", "package.path"} {
		if got := luaeval.Eval1(t, L, expr); got != "nil" {
			t.Errorf("%s = %s, want nil", expr, got)
		}
	}
	path := filepath.Join(t.TempDir(), "out.txt")
	src := `local f = assert(io.open(..., "w")) f:write("written") f:close()`
	fn, err := L.LoadString(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := L.CallByParam(lua.P{Fn: fn, Protect: true}, lua.LString(path)); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "written" {
		t.Errorf("io.open wrote %q, %v", b, err)
	}
}

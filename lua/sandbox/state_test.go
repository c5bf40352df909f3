package sandbox

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

func TestLoadRefusesBinaryChunks(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	const binary = "binary chunk"
	for _, expr := range []string{
		`load("\27Lua\81\0")`,
		`loadstring("\27Lua\81\0")`,
		`load(coroutine.wrap(function() coroutine.yield("\27Lu") coroutine.yield("a") end))`,
	} {
		got := luaeval.Eval(t, L, expr)
		if len(got) != 2 || got[0] != "nil" || !strings.Contains(got[1], binary) {
			t.Errorf("%s = %q, want nil and a message about a %s", expr, got, binary)
		}
	}
	if got := luaeval.Eval1(t, L, `load("return 1 + 1")()`); got != "2" {
		t.Errorf("load of a string: %s, want 2", got)
	}
	if got := luaeval.Eval1(t, L, `loadstring("return 40 + 2")()`); got != "42" {
		t.Errorf("loadstring: %s, want 42", got)
	}
	if got := luaeval.Eval1(t, L, `load("return x", "chunk", "t", {x = 7})()`); got != "7" {
		t.Errorf("load with env: %s, want 7", got)
	}
	got := luaeval.Eval(t, L, `load("return +", "=snippet")`)
	if len(got) != 2 || got[0] != "nil" || !strings.HasPrefix(got[1], "=snippet:1: ") {
		t.Errorf("syntax error = %q, want nil and \"=snippet:1: ...\"", got)
	}
}

func TestPrintWritesToStdout(t *testing.T) {
	L, out := newSandbox(t, Options{})
	if err := L.DoString(`print("a", 1, nil, setmetatable({}, {__tostring = function() return "T" end}))`); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "a\t1\tnil\tT\n"; got != want {
		t.Errorf("print wrote %q, want %q", got, want)
	}
}

func TestOSDateUTC(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	for expr, want := range map[string]string{
		`os.date("%Y-%m-%d %H:%M:%S")`:    "2024-03-10 06:59:05",
		`os.date("!%Y-%m-%dT%H:%M:%SZ")`:  "2024-03-10T06:59:05Z",
		`os.date()`:                       "Sun Mar 10 06:59:05 2024",
		`os.date("%c", 0)`:                "Thu Jan  1 00:00:00 1970",
		`os.date("%a %A %b %B %h")`:       "Sun Sunday Mar March Mar",
		`os.date("%C %y %D %F %T %R")`:    "20 24 03/10/24 2024-03-10 06:59:05 06:59",
		`os.date("%e|%j|%I %p|%r")`:       "10|070|06 AM|06:59:05 AM",
		`os.date("%u %w %U %W %V %G %g")`: "7 0 10 10 10 2024 24",
		`os.date("%x %X %z %Z %%")`:       "03/10/24 06:59:05 +0000 UTC %",
		`os.date("%Ec|%Oy|%n|%t")`:        "Sun Mar 10 06:59:05 2024|24|\n|\t",
		`os.date("%H:%M", 1710054000)`:    "07:00",
		`os.time()`:                       "1710053945",
		`os.time{year=2024, month=3, day=10, hour=6, min=59, sec=5}`: "1710053945",
		`os.time{year=2024, month=3, day=10}`:                        "1710072000",
		`os.time{year=2024, month=13, day=1, hour=0}`:                "1735689600",
		`os.date("%Y-%m-%d", os.time{year=2023, month=2, day=29})`:   "2023-03-01",
		`os.date("%U %W %V %G", os.time{year=2023, month=1, day=1})`: "01 00 52 2022",
		`os.date("%U %W %V %G", os.time{year=2024, month=1, day=1})`: "00 01 01 2024",
		`os.clock()`: "0",
	} {
		if got := luaeval.Eval1(t, L, expr); got != want {
			t.Errorf("%s = %q, want %q", expr, got, want)
		}
	}
	date := `local d = os.date("*t") return d.year, d.month, d.day, d.hour, d.min, d.sec, d.wday, d.yday, d.isdst`
	if err := L.DoString("f = function() " + date + " end"); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(luaeval.Eval(t, L, "f()"), " "), "2024 3 10 6 59 5 1 70 false"; got != want {
		t.Errorf(`os.date("*t") = %s, want %s`, got, want)
	}
	if got := luaeval.Eval1(t, L, `os.date("!*t", 0).year`); got != "1970" {
		t.Errorf(`os.date("!*t", 0).year = %s`, got)
	}
	for src, want := range map[string]string{
		`os.date("%Q")`:                        "invalid conversion specifier '%Q'",
		`os.date("%")`:                         "invalid conversion specifier '%'",
		`os.date("%c", 1.5)`:                   "no integer representation",
		`os.time{year=2024, month=3}`:          "field 'day' missing in date table",
		`os.time{year=2024, month=3, day="1"}`: "field 'day' is not an integer",
		`os.time{year=2024, month=3, day=1.5}`: "field 'day' is not an integer",
	} {
		if msg := luaeval.Err(t, L, src); !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want it to contain %q", src, msg, want)
		}
	}
}

func TestClocksFollowNow(t *testing.T) {
	now := sandboxNow
	L, _ := newSandbox(t, Options{Now: func() time.Time { return now }})
	now = now.Add(1500 * time.Millisecond)
	if got := luaeval.Eval(t, L, "os.clock(), os.time()"); strings.Join(got, " ") != "1.5 1710053946" {
		t.Errorf("after 1.5 s: os.clock(), os.time() = %q", got)
	}
	L2, _ := newSandbox(t, Options{CPUClock: func() float64 { return 0.25 }})
	if got := luaeval.Eval1(t, L2, "os.clock()"); got != "0.25" {
		t.Errorf("CPUClock: os.clock() = %s", got)
	}
}

func TestStateLoadFile(t *testing.T) {
	dir := t.TempDir()
	L, _ := newSandbox(t, Options{})
	for name, tc := range map[string]struct{ src, want string }{
		"syntax.lua":  {"local x = 1\nlocal = 2\n", ":2: "},
		"eof.lua":     {"if true then\n", "at end of file"},
		"binary.lua":  {"\x1bLuaQ", "binary chunks are not supported"},
		"shebang.lua": {"#!/usr/bin/env metronome\nerror('line two')\n", ""},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		fn, err := LoadFile(L, path)
		if tc.want == "" {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			L.Push(fn)
			perr := PCall(L, 0, 0, nil)
			if perr == nil || !strings.Contains(perr.Error(), path+":2: line two") {
				t.Errorf("%s: %v, want an error at line 2", name, perr)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path) {
			t.Errorf("%s: error %v, want %q after the path", name, err, tc.want)
		}
	}
}

// A state made here reads no file through require: gopher-lua's file
// loader and package.path are gone, package.preload stays.
func TestRequireFindsPreloadOnly(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mod.lua"), []byte("return 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	L, _ := newSandbox(t, Options{})
	if got := luaeval.Eval(t, L, "package.path, package.cpath"); strings.Join(got, " ") != "nil nil" {
		t.Errorf("package.path, package.cpath = %q, want nil nil", got)
	}
	if msg := luaeval.Err(t, L, `require "mod"`); !strings.Contains(msg, "module mod not found") {
		t.Errorf("require of a file in the working folder: %q, want not found", msg)
	}
	L.PreloadModule("pre", func(L *lua.LState) int { L.Push(lua.LString("pre")); return 1 })
	if got := luaeval.Eval1(t, L, `require "pre"`); got != "pre" {
		t.Errorf("require of a preloaded module = %s", got)
	}
}

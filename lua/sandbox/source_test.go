package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	lua "github.com/yuin/gopher-lua"
)

// loadResult runs load(src) in L (src built by the Lua expression expr) and
// returns load's message, or "" when it compiled.
func loadResult(t *testing.T, L *lua.LState, expr string) string {
	t.Helper()
	msg := luaeval.Eval1(t, L, "(function(_, msg) return tostring(msg) end)(load("+expr+"))")
	if msg == "nil" {
		return ""
	}
	return msg
}

// Each of these compiled without a bound: the braces overflowed the Go
// stack (a fatal error at 800,000), the functions and the operators ran the
// process out of memory, the nested blocks took a minute. Scaled down here,
// each compiled before it was checked; now each is refused before the
// compiler starts, with the chunk, the line and the limit.
func TestSourceDepthLimitRefusesNesting(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	for _, c := range []struct{ name, expr string }{
		{"braces", `"return " .. ("{"):rep(1000) .. ("}"):rep(1000)`},
		{"parens", `"return " .. ("("):rep(1000) .. "1" .. (")"):rep(1000)`},
		{"functions", `"return " .. ("function() return "):rep(1000) .. "1" .. (" end"):rep(1000)`},
		{"operators", `"return " .. ("1+"):rep(1000) .. "1"`},
		{"concat", `"return " .. ("'a'.."):rep(1000) .. "'a'"`},
		{"unary", `"return " .. ("not "):rep(1000) .. "1"`},
		{"fields", `"return a" .. (".b"):rep(1000)`},
		{"calls", `"return f" .. ("()"):rep(1000)`},
		{"do blocks", `("do "):rep(1000) .. ("end "):rep(1000)`},
		{"while", `("while x do "):rep(1000) .. ("end "):rep(1000)`},
		{"repeat", `("repeat "):rep(1000) .. ("until x "):rep(1000)`},
		{"elseif", `"if x then " .. ("elseif x then "):rep(1000) .. "end"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := loadResult(t, L, c.expr)
			if !strings.HasPrefix(msg, "<string>:1: source nested deeper than 200 levels (the source depth limit)") {
				t.Fatalf("load: %q, want the depth limit at <string>:1", msg)
			}
		})
	}
}

// Unchecked, a chain of 100,000 fields (a.b.b...) ended the process with a
// fatal stack overflow under a 16 MB stack maximum, as 800,000 braces did
// under the default 1 GB. The scan refuses it without recursing.
func TestSourceDepthLimitKeepsTheStackSmall(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	L, _ := newSandbox(t, Options{})
	msg := loadResult(t, L, `"return a" .. (".b"):rep(1e5)`)
	if !strings.HasPrefix(msg, "<string>:1: source nested deeper than 200 levels") {
		t.Fatalf("load: %q, want the depth limit", msg)
	}
}

// The scan counts what gopher-lua's compiler recurses on, not lines: code
// as deep as the limit allows still compiles, and the error names the line
// where the limit was passed.
func TestSourceDepthLimitBoundary(t *testing.T) {
	L, _ := newSandbox(t, Options{Source: SourceLimits{Depth: 10}})
	if msg := loadResult(t, L, `"return " .. ("{"):rep(10) .. ("}"):rep(10)`); msg != "" {
		t.Fatalf("10 braces under a depth of 10: %q, want it compiled", msg)
	}
	msg := loadResult(t, L, `"local x = 1\nreturn " .. ("{\n"):rep(11) .. ("}"):rep(11)`)
	if want := "<string>:12: source nested deeper than 10 levels (the source depth limit)"; msg != want {
		t.Fatalf("11 braces: %q, want %q", msg, want)
	}
	// Statements one after another do not nest.
	if msg := loadResult(t, L, `("f() x = a.b.c + 1 "):rep(1000)`); msg != "" {
		t.Fatalf("a long flat chunk: %q, want it compiled", msg)
	}
}

// A source over the size limit is refused before it is scanned; so is one
// that a reader function hands over piece by piece.
func TestSourceBytesLimit(t *testing.T) {
	L, _ := newSandbox(t, Options{Source: SourceLimits{Bytes: 1024}})
	want := "source longer than 1 KiB (the source size limit)"
	if msg := loadResult(t, L, `"x = 1\n" .. ("x = 1 "):rep(200)`); msg != "<string>:2: "+want {
		t.Fatalf("load: %q, want <string>:2: %s", msg, want)
	}
	msg := loadResult(t, L, `function() return ("x = 1 "):rep(100) end`)
	if msg != "<load>:1: "+want {
		t.Fatalf("load(reader): %q, want <load>:1: %s", msg, want)
	}
	if msg := loadResult(t, L, `("x = 1 "):rep(100)`); msg != "" {
		t.Fatalf("600 bytes: %q, want it compiled", msg)
	}

	// The default refuses a long sum of ones before it is scanned.
	L, _ = newSandbox(t, Options{})
	if msg := loadResult(t, L, `("1+"):rep(1e6) .. "1"`); !strings.HasPrefix(msg, "<string>:1: source longer than 1 MiB") {
		t.Fatalf("load: %q, want the 1 MiB source size limit", msg)
	}
}

// gopher-lua's compiler finds a constant by comparing it with each one
// before it in its function: a million distinct ones took minutes. The
// scan counts those comparisons.
func TestSourceWorkLimitConstants(t *testing.T) {
	L, _ := newSandbox(t, Options{Source: SourceLimits{Work: 1_000_000}})
	msg := loadResult(t, L, `(function() local t = {} for i = 1, 3000 do t[i] = "x=" .. i end return table.concat(t, " ") end)()`)
	if !strings.HasPrefix(msg, "<string>:1: source would take more than 1000000 steps to compile (the compile work limit)") {
		t.Fatalf("3000 distinct constants: %q, want the compile work limit", msg)
	}
	// The same count of one repeated constant is cheap.
	if msg := loadResult(t, L, `("x=1 "):rep(3000)`); msg != "" {
		t.Fatalf("3000 repeated constants: %q, want it compiled", msg)
	}

	// The default refuses 20,000 distinct constants at once (compiling
	// them takes seconds, a million of them hours).
	L, _ = newSandbox(t, Options{})
	msg = loadResult(t, L, `(function() local t = {} for i = 1, 2e4 do t[i] = i end return "return {" .. table.concat(t, ",") .. "}" end)()`)
	if !strings.Contains(msg, "the compile work limit") {
		t.Fatalf("2e4 distinct constants: %q, want the compile work limit", msg)
	}
}

// Each function costs its code buffers; each name a lookup through the
// locals in scope.
func TestSourceWorkLimitFunctionsAndNames(t *testing.T) {
	L, _ := newSandbox(t, Options{Source: SourceLimits{Work: 1_000_000}})
	if msg := loadResult(t, L, `"return {" .. ("function() end,"):rep(300) .. "}"`); !strings.Contains(msg, "the compile work limit") {
		t.Fatalf("300 functions: %q, want the compile work limit", msg)
	}
	locals := `"local " .. (function() local t = {} for i = 1, 150 do t[i] = "a" .. i end return table.concat(t, ",") end)() .. "\n"`
	if msg := loadResult(t, L, locals+` .. ("x=y "):rep(3000)`); !strings.Contains(msg, "the compile work limit") {
		t.Fatalf("6000 names under 150 locals: %q, want the compile work limit", msg)
	}
	if msg := loadResult(t, L, `("x=y "):rep(3000)`); msg != "" {
		t.Fatalf("6000 names without locals: %q, want it compiled", msg)
	}
}

// The error reaches a script as load's message, like a syntax error, so
// assert(load(...)) raises it where pcall catches it.
func TestSourceLimitErrorIsCatchable(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	got := luaeval.Eval(t, L, `pcall(function() return assert(load(("do "):rep(1000) .. ("end "):rep(1000), "deep")) end)`)
	if len(got) != 2 || got[0] != "false" || !strings.Contains(got[1], "deep:1: source nested deeper than 200 levels") {
		t.Fatalf("pcall(assert(load(...))): %q", got)
	}
	got = luaeval.Eval(t, L, `pcall(loadstring, "return " .. ("("):rep(1000) .. "1" .. (")"):rep(1000))`)
	if len(got) != 3 || got[0] != "true" || got[1] != "nil" || !strings.Contains(got[2], "the source depth limit") {
		t.Fatalf("pcall(loadstring, ...): %q", got)
	}
}

// A state's source limits can be raised.
func TestSourceLimitsCanBeRaised(t *testing.T) {
	L, _ := newSandbox(t, Options{Source: SourceLimits{Depth: 3000}})
	if msg := loadResult(t, L, `("do "):rep(1000) .. ("end "):rep(1000)`); msg != "" {
		t.Fatalf("1000 blocks under a depth of 3000: %q", msg)
	}
}

func TestNewStateRefusesNegativeSourceLimits(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "Options.Source: want fields >= 0") {
			t.Fatalf("recovered %v, want the Options.Source panic", r)
		}
	}()
	NewState(Options{Source: SourceLimits{Depth: -1}})
}

// The defaults refuse none of the project's own Lua files.
func TestSourceLimitsPassProjectScripts(t *testing.T) {
	lim := SourceLimits{}.withDefaults()
	n := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lua") || strings.Contains(path, "testdata/load/") || strings.Contains(path, "testdata/source/") {
			return err // files that fail to load on purpose
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if err := checkSource(string(src), path, lim); err != nil {
			t.Errorf("%v", err)
		}
		return nil
	})
	if err != nil || n < 20 {
		t.Fatalf("walked %d Lua files: %v", n, err)
	}
}

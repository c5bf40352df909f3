package scripting

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	"github.com/metronome-rt/metronome/temporal"
)

// fennelDir holds Fennel scripts and fennel.lua, a stand-in compiler for a
// subset of Fennel whose Lua lines differ from the source lines.
const fennelDir = "testdata/fennel"

// runFennel loads file from dir in a state made with opts and runs it; it
// returns what it printed and the error of loading or running it.
func runFennel(t *testing.T, opts Options, dir, file string) (string, error) {
	t.Helper()
	opts.ScriptDir = dir
	L, out := newSandbox(t, opts)
	fn, err := LoadFile(L, filepath.Join(dir, file))
	if err != nil {
		return out.String(), err
	}
	L.Push(fn)
	err = PCall(L, 0, 0, nil)
	return out.String(), err
}

func TestFennelScriptRequiresModulesAndExpandsMacros(t *testing.T) {
	out, err := runFennel(t, Options{}, fennelDir, "main.fnl")
	if err != nil {
		t.Fatal(err)
	}
	want := "active\ttrue\nfired\t3\t7\t42\nactive\tfalse\n"
	if out != want {
		t.Errorf("printed:\n%s\nwant:\n%s", out, want)
	}
}

// The stand-in puts each statement on its own Lua line and adds a header
// line, so a position is right only through the source map.
func TestFennelPositionsAreFennelLines(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"callback_error.fnl", []string{
			"callback_error.fnl:8: boom",
			"callback_error.fnl:8: in function <" + fennelDir + "/callback_error.fnl:5>",
			"scheduled at " + fennelDir + "/callback_error.fnl:5",
		}},
		{"bad_argument.fnl", []string{
			"bad_argument.fnl:5: bad argument #2 to 'schedule-once'",
			"bad_argument.fnl:5: in main chunk",
		}},
		{"syntax_error.fnl", []string{fennelDir + "/syntax_error.fnl:4: Parse error: expected closing delimiter )"}},
		{"compile_error.fnl", []string{fennelDir + "/compile_error.fnl:3: Compile error: expected name and value"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			_, err := runFennel(t, Options{}, fennelDir, tc.file)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

func TestFennelCompileErrorIsOneLine(t *testing.T) {
	_, err := runFennel(t, Options{}, fennelDir, "syntax_error.fnl")
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q: want one line", err)
	}
}

func TestFennelWithoutCompiler(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "game.fnl"), []byte("(print 1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runFennel(t, Options{}, dir, "game.fnl")
	var nf *NoFennelError
	if !errors.As(err, &nf) {
		t.Fatalf("error %v: want a *NoFennelError", err)
	}
	want := filepath.Join(dir, "game.fnl") + " is Fennel source: put fennel.lua (the Fennel compiler) beside it, set METRONOME_FENNEL, or pass --fennel FILE"
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
}

// Options.Fennel names a compiler outside the script folder.
func TestFennelCompilerOption(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "game.fnl"), []byte("(print \"from\" (+ 1 2))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runFennel(t, Options{Fennel: filepath.Join(fennelDir, "fennel.lua")}, dir, "game.fnl")
	if err != nil || out != "from\t3\n" {
		t.Errorf("got %q, %v; want \"from\\t3\\n\"", out, err)
	}
}

// require from Lua finds NAME.fnl and NAME/init.fnl after NAME.lua.
func TestRequireFindsFennelModules(t *testing.T) {
	L, _ := newSandbox(t, Options{ScriptDir: fennelDir})
	got := luaeval.Eval(t, L, `require("lib.util").add(40, 2), require("inventory").count()`)
	if strings.Join(got, " ") != "42 7" {
		t.Errorf("got %v, want [42 7]", got)
	}
	err := L.DoString(`require "absent"`)
	if err == nil || !strings.Contains(err.Error(), "absent.fnl") || !strings.Contains(err.Error(), filepath.Join("absent", "init.fnl")) {
		t.Errorf("error %v: want the .fnl files it looked for", err)
	}
}

// Macros run while a file compiles, in the sandbox: no io, and under the
// state's budget.
func TestFennelMacrosAreSandboxed(t *testing.T) {
	_, err := runFennel(t, Options{}, fennelDir, "io_macro.fnl")
	if err == nil || !strings.Contains(err.Error(), "'open'") {
		t.Errorf("error %v: want io to be missing", err)
	}
	_, err = runFennel(t, Options{Budget: 100 * temporal.Millisecond}, fennelDir, "spin_macro.fnl")
	if err == nil || !strings.Contains(err.Error(), "budget") {
		t.Errorf("error %v: want the budget to stop the macro", err)
	}
}

// The compiler is loaded once per state and shared by every file it
// compiles; require "fennel" gives it to scripts.
func TestFennelCompilerLoadsOnce(t *testing.T) {
	L, _ := newSandbox(t, Options{ScriptDir: fennelDir})
	if _, err := LoadFile(L, filepath.Join(fennelDir, "main.fnl")); err != nil {
		t.Fatal(err)
	}
	first := fennelSlotOf(L).compile
	if _, err := LoadFile(L, filepath.Join(fennelDir, "bad_argument.fnl")); err != nil {
		t.Fatal(err)
	}
	if fennelSlotOf(L).compile != first {
		t.Error("the compiler was loaded twice")
	}
	if got := luaeval.Eval(t, L, `require("fennel").version`); got[0] != "0.0-stand-in" {
		t.Errorf("require \"fennel\" gave version %v", got)
	}
}

// With METRONOME_FENNEL naming a real Fennel compiler, the same surface
// works with it: quasiquoted macros, method calls, positions.
func TestFennelRealCompiler(t *testing.T) {
	compiler := os.Getenv(FennelEnv)
	if compiler == "" {
		t.Skip(FennelEnv + " names no Fennel compiler")
	}
	dir := t.TempDir()
	files := map[string]string{
		"macros.fnl": "(fn twice! [x] `(* 2 ,x))\n{: twice!}\n",
		"util.fnl":   "(fn add [a b] (+ a b))\n{: add}\n",
		"main.fnl": `(import-macros {: twice!} :macros)
(local util (require :util))
(local RuntimeScheduler (require :runtime-scheduler))
(local Temporal (require :temporal))
(local s (RuntimeScheduler.create {}))
(local h (s:schedule-once {:delay (Temporal.duration {:milliseconds 10})
                           :callback (fn [] (print :fired (twice! (util.add 1 2))))}))
(print (h:active?))
(s:advance (Temporal.duration {:milliseconds 12}))


(s:schedule-once {:delay 10 :callback print})
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := runFennel(t, Options{Fennel: compiler}, dir, "main.fnl")
	if out != "true\nfired\t6\n" {
		t.Errorf("printed %q, want \"true\\nfired\\t6\\n\"", out)
	}
	if err == nil || !strings.Contains(err.Error(), "main.fnl:12: bad argument #2 to 'schedule-once'") {
		t.Errorf("error %v: want main.fnl:12: bad argument", err)
	}
}

// tonumber reads a decimal exponent as Lua 5.1 does; the Fennel compiler
// reads its number literals with it.
func TestTonumberReadsExponents(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	got := luaeval.Eval(t, L, `tonumber("1e9"), tonumber(" 2.5E-3 "), tonumber(".5e1"), tonumber("1e"), tonumber("0x10"), tonumber("1e9", 16), tonumber("12")`)
	want := "1000000000 0.0025 5 nil 16 489 12"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// A chunk named "@file" is the file's, as in Lua: its positions read
// "file:line" (the Fennel compiler names the chunks it loads so).
func TestLoadAtChunkNameIsAFile(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	got := luaeval.Eval(t, L, `pcall(load("\nerror('x')", "@macros.fnl"))`)
	if len(got) != 2 || got[1] != "macros.fnl:2: x" {
		t.Errorf("got %q, want false and \"macros.fnl:2: x\"", got)
	}
}

// %q quotes as Lua 5.1 does, so that what it writes reads back as the same
// string: the Fennel compiler writes string literals with it.
func TestFormatQuotesAsLua(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	got := luaeval.Eval1(t, L, `string.format("%q|%5d|%q", "a\nb\0c\r\"\\\233", 7, 12)`)
	want := "\"a\\\nb\\000c\\r\\\"\\\\\xe9\"|    7|\"12\""
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if back := luaeval.Eval1(t, L, `loadstring("return " .. string.format("%q", "x\0y\n\r\"\\\233\1"))() == "x\0y\n\r\"\\\233\1"`); back != "true" {
		t.Errorf("a string written with string.format(%q) does not read back as itself", "%q")
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/lua/scripting"
)

// standIn is a stand-in Fennel compiler for a subset of Fennel, kept with
// the scripting package's tests.
var standIn = filepath.Join("..", "..", "lua", "scripting", "testdata", "fennel", "fennel.lua")

func TestRunFennelWithoutCompiler(t *testing.T) {
	t.Setenv(scripting.FennelEnv, "")
	exact(t, []string{"run", "testdata/fennel/clean/game.fnl"}, 2, "",
		"testdata/fennel/clean/game.fnl is Fennel source: put fennel.lua (the Fennel compiler) beside it, set METRONOME_FENNEL, or pass --fennel FILE\n")
}

func TestRunFennelCompilerFlagAndVariable(t *testing.T) {
	t.Setenv(scripting.FennelEnv, "")
	exact(t, []string{"run", "--fennel", standIn, "testdata/fennel/clean/game.fnl"}, 0, "sum\t3\n", "")
	t.Setenv(scripting.FennelEnv, standIn)
	exact(t, []string{"run", "testdata/fennel/clean/game.fnl"}, 0, "sum\t3\n", "")
	// The flag comes first.
	exact(t, []string{"run", "--fennel", "testdata/fennel/absent.lua", "testdata/fennel/clean/game.fnl"}, 1, "",
		"metronome run: the Fennel compiler: open testdata/fennel/absent.lua: no such file or directory\n")
}

func TestTestCollectsFennelTests(t *testing.T) {
	t.Setenv(scripting.FennelEnv, "")
	code, out, _ := cli(t, t.Context(), "test", "--fennel", standIn, "testdata/fennel/clean")
	if code != 1 || !strings.Contains(out, "testdata/fennel/clean/sum_test.fnl:4: fails: values differ") ||
		!strings.HasSuffix(out, "1 passed, 1 failed\n") {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
}

func TestCheck(t *testing.T) {
	t.Setenv(scripting.FennelEnv, standIn)
	exact(t, []string{"check", "testdata/fennel/clean"}, 0, "", "")
	exact(t, []string{"check", "testdata/fennel/broken"}, 1,
		"testdata/fennel/broken/a.fnl:4: Parse error: expected closing delimiter )\n"+
			"testdata/fennel/broken/b.lua:2: syntax error near '='\n", "")
	t.Setenv(scripting.FennelEnv, "")
	code, _, errOut := cli(t, t.Context(), "check", "testdata/fennel/broken")
	if code != 2 || !strings.Contains(errOut, "a.fnl is Fennel source") {
		t.Errorf("no compiler: exit %d, stderr %q", code, errOut)
	}
}

// The Fennel examples print what their Lua twins print, and their test
// file passes. CI has no Fennel compiler: this runs when METRONOME_FENNEL
// names one.
func TestFennelExamples(t *testing.T) {
	compiler := os.Getenv(scripting.FennelEnv)
	if compiler == "" {
		t.Skip(scripting.FennelEnv + " names no Fennel compiler")
	}
	compiler, err := filepath.Abs(compiler)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("..", ".."))
	for _, tc := range []struct{ fnl, golden, fix, fixed string }{
		{"examples/fennel/scheduler.fnl", "examples/testdata/scheduler.golden",
			"examples/fennel/scheduler.fnl:54: boom", "examples/scheduler.lua:51: boom"},
		{"examples/fennel/keyed_timers.fnl", "examples/testdata/keyed_timers.golden", "", ""},
	} {
		code, out, errOut := cli(t, t.Context(), "run", "--fennel", compiler, tc.fnl)
		want, err := os.ReadFile(tc.golden)
		if err != nil {
			t.Fatal(err)
		}
		if tc.fix != "" {
			out = strings.Replace(out, tc.fix, tc.fixed, 1)
		}
		if code != 0 || out != string(want) {
			t.Errorf("%s: exit %d, stderr %s\nstdout:\n%s\nwant:\n%s", tc.fnl, code, errOut, out, want)
		}
	}
	code, out, _ := cli(t, t.Context(), "test", "--fennel", compiler, "examples/fennel")
	if code != 0 || !strings.HasSuffix(out, "3 passed, 0 failed\n") {
		t.Errorf("examples/fennel tests: exit %d\n%s", code, out)
	}
	if code, out, _ := cli(t, t.Context(), "check", "--fennel", compiler, "examples/fennel"); code != 0 {
		t.Errorf("check examples/fennel: exit %d\n%s", code, out)
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// asCLI, set to 1 in its environment, makes the test binary the metronome
// command: a test that needs a process of its own (to signal it) starts
// this binary again, with no build step and no toolchain.
const asCLI = "METRONOME_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		main()
	}
	goleak.VerifyTestMain(m)
}

// cli runs the CLI with args and returns its exit status, stdout and stderr.
func cli(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRunPassesArgs(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "run", "testdata/args.lua", "a", "b c", "--not-a-flag")
	want := "3\ta\tb c\t--not-a-flag\ntestdata/args.lua\t3\ta\tb c\t--not-a-flag\n"
	if code != 0 || out != want || errOut != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q, nothing", code, out, errOut, want)
	}
}

func TestRunRequiresFromTheScriptFolder(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "run", "testdata/requires.lua", "metronome")
	if code != 0 || out != "hello, metronome\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestRunError(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "run", "testdata/error.lua")
	if code != 1 || out != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing", code, out)
	}
	for _, want := range []string{
		"testdata/error.lua:2: boom: deliberate\nstack traceback:\n",
		"testdata/error.lua:5: in main chunk",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	if !strings.HasPrefix(errOut, "testdata/error.lua:2: ") {
		t.Errorf("stderr %q does not start with file:line:", errOut)
	}
	// No callback ran it: no line naming one (it once ended "[callback]").
	if strings.Contains(errOut, "\t[") && !strings.Contains(errOut, "\t[G]") || strings.Contains(errOut, "[callback]") {
		t.Errorf("stderr %q names a callback", errOut)
	}
}

func TestRunLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		script, want string
	}{
		{"testdata/syntax.lua", "testdata/syntax.lua: syntax error at end of file\n"},
		{"testdata/missing.lua", "metronome run: open testdata/missing.lua: no such file or directory\n"},
	} {
		code, _, errOut := cli(t, t.Context(), "run", tc.script)
		if code != 1 || errOut != tc.want {
			t.Errorf("%s: exit %d, stderr %q; want 1, %q", tc.script, code, errOut, tc.want)
		}
	}
}

func TestRunIsSandboxed(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "run", "testdata/sandbox.lua")
	if code != 1 || out != "true\ttrue\ttrue\n" {
		t.Errorf("exit %d, stdout %q; want 1 after the first line", code, out)
	}
	if want := "testdata/sandbox.lua:2: attempt to index a non-table object(nil) with key 'open'"; !strings.HasPrefix(errOut, want) {
		t.Errorf("stderr %q, want it to start with %q", errOut, want)
	}
}

func TestRunAllowIO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	code, out, errOut := cli(t, t.Context(), "run", "--allow-io", "testdata/allowio.lua", path)
	if code != 0 || out != "function\tUTC\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "written by allowio.lua" {
		t.Errorf("file: %q, %v", b, err)
	}
	// Without the flag the same script cannot open files.
	if code, _, _ := cli(t, t.Context(), "run", "testdata/allowio.lua", path); code != 1 {
		t.Errorf("without --allow-io: exit %d, want 1", code)
	}
}

// A signal before the script starts stops it; one that arrives while Lua
// runs is for main to handle (the next signal ends the process), since
// polling a context on every Lua instruction would slow every callback.
func TestRunStopsWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	code, _, errOut := cli(t, ctx, "run", "testdata/loop.lua")
	if code != 130 || errOut != "metronome run: interrupted\n" {
		t.Errorf("exit %d, stderr %q; want 130 and interrupted", code, errOut)
	}
}

func TestTestCommand(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "test", "testdata/suite")
	want := `printed by a test
testdata/suite/fail_test.lua:2: fails: values differ
    got: {1, 2}
    want: {1, 3}
    first difference at [2]: got 2, want 3
2 passed, 1 failed, 1 skipped
`
	if code != 1 || out != want || errOut != "" {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant exit 1 and:\n%s", code, errOut, out, want)
	}

	code, out, _ = cli(t, t.Context(), "test", "testdata/suite/pass_test.lua")
	if code != 0 || !strings.HasSuffix(out, "\n2 passed, 0 failed, 1 skipped\n") {
		t.Errorf("passing file: exit %d, stdout %q", code, out)
	}

	code, _, errOut = cli(t, t.Context(), "test", "testdata/lib")
	if code != 1 || errOut != "metronome test: no *_test.lua files in testdata/lib\n" {
		t.Errorf("no tests: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = cli(t, t.Context(), "test", "testdata/none")
	if code != 1 || !strings.Contains(errOut, "no such file or directory") {
		t.Errorf("missing path: exit %d, stderr %q", code, errOut)
	}
}

func TestTestCommandDefaultsToTests(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "tests"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := `test("one", function(t) t:ok(require("helper") == 7) end)`
	for name, body := range map[string]string{"tests/one_test.lua": src, "tests/helper.lua": "return 7"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	code, out, errOut := cli(t, t.Context(), "test")
	if code != 0 || out != "1 passed, 0 failed\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// `metronome test` and `go test ./tests` give a file the same state
// (luatest.HostState): tests/test_state_test.lua passes under both.
func TestTestCommandStateIsGoTests(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "test", "../../tests/test_state_test.lua")
	if code != 0 || out != "3 passed, 0 failed\n" || errOut != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and 3 passed", code, out, errOut)
	}
}

// A file that cannot count as tested fails, with a message naming it.
func TestTestCommandRefusesFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src, want string
	}{
		{"none_test.lua", "local x = 1\n", "none_test.lua: registers no test: call test(name, fn) at its top level\n"},
		{"dup_test.lua", "test('adds', function(t) end)\n\ntest('adds', function(t) end)\n",
			`dup_test.lua:3: duplicate test name "adds": first registered at line 1` + "\n"},
		{"binary_test.lua", "\x1bLuaQ\x00\x01\x04\x08", "binary_test.lua: binary chunks are not supported: load Lua source\n"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := cli(t, t.Context(), "test", path)
		if code != 1 || !strings.HasPrefix(out, filepath.Join(dir, tc.want)) || !strings.HasSuffix(out, "\n0 passed, 1 failed\n") || errOut != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout:\n%s\nwant exit 1 and %q", tc.name, code, errOut, out, tc.want)
		}
	}
}

// Without PATH outside a project, the message says where it looked.
func TestTestCommandWithoutTestsFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errOut := cli(t, t.Context(), "test")
	want := "metronome test: no tests/ folder here (looked for " + filepath.Join(dir, "tests") +
		"): run it from a project's root, or give PATH..., the *_test.lua files or folders to run\nusage: metronome test [flags] [PATH...]; see metronome test -h\n"
	if code != 2 || out != "" || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and:\n%s", code, out, errOut, want)
	}
	if err := os.Mkdir("tests", 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = cli(t, t.Context(), "test")
	want = "metronome test: no *_test.lua files in " + filepath.Join(dir, "tests") +
		": test files are named NAME_test.lua; or give PATH..., the files or folders to run\n"
	if code != 1 || errOut != want {
		t.Errorf("empty tests/: exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}
}

func TestVersion(t *testing.T) {
	suffix := " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	code, out, _ := cli(t, t.Context(), "version")
	if code != 0 || out != "metronome devel"+suffix {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	old := version
	version = "v1.2.3"
	defer func() { version = old }()
	if _, out, _ := cli(t, t.Context(), "version"); out != "metronome v1.2.3"+suffix {
		t.Errorf("with -X main.version: %q", out)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		code, out, errOut := cli(t, t.Context(), args...)
		if code != 0 || errOut != "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
		for _, want := range []string{"Usage:", "run [flags] FILE.lua [args...]", "--allow-io", "test [flags] [PATH...]", "version", "help [COMMAND]"} {
			if !strings.Contains(out, want) {
				t.Errorf("%q: usage lacks %q:\n%s", args, want, out)
			}
		}
	}
	for _, args := range [][]string{{"run", "-h"}, {"run", "--help"}, {"help", "run"}} {
		code, out, errOut := cli(t, t.Context(), args...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage:\n  metronome run [flags] FILE.lua [args...]\n") ||
			!strings.Contains(out, "--allow-io           open io and the full os library") ||
			!strings.Contains(out, "--until DURATION     stop after DURATION of time: PT1H30M, 90s, 5m, 2h, 1h30m (default 24h)") ||
			!strings.Contains(out, "--start INSTANT      virtual time starts at INSTANT (RFC 3339, with Z or an offset) (default 2000-01-01T00:00:00Z)") ||
			!strings.Contains(out, "--frame-ms MS        a frame's length in MS while facets are registered (default 16.667)") ||
			!strings.Contains(out, "-h, --help           show this help") {
			t.Errorf("%q: exit %d, stderr %q, stdout:\n%s", args, code, errOut, out)
		}
	}
	for _, name := range []string{"test", "version", "help"} {
		code, out, _ := cli(t, t.Context(), name, "--help")
		if code != 0 || !strings.HasPrefix(out, "Usage:\n  metronome "+name) || !strings.Contains(out, "-h, --help") {
			t.Errorf("%s --help: exit %d, stdout:\n%s", name, code, out)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, "metronome: unknown command \"frobnicate\"\nsee metronome -h for the commands\n"},
		{[]string{"tset"}, "metronome: unknown command \"tset\"; did you mean 'test'?\nsee metronome -h for the commands\n"},
		{[]string{"run", "--nope", "x.lua"}, "metronome run: flag provided but not defined: -nope\nusage: metronome run [flags] FILE.lua [args...]; see metronome run -h\n"},
		{[]string{"run"}, "metronome run: no script given\nusage: metronome run [flags] FILE.lua [args...]; see metronome run -h\n"},
		{[]string{"version", "extra"}, "metronome version: version takes no arguments\nusage: metronome version; see metronome version -h\n"},
		{[]string{"help", "frobnicate"}, "metronome help: unknown command \"frobnicate\"\nusage: metronome help [COMMAND]; see metronome help -h\n"},
		{[]string{"test", "--format", "xml"}, "metronome test: invalid value \"xml\" for flag -format: want tap or junit, got \"xml\"\nusage: metronome test [flags] [PATH...]; see metronome test -h\n"},
	} {
		// A usage error is the message and a pointer to the help, not the help.
		code, out, errOut := cli(t, t.Context(), tc.args...)
		if code != 2 || out != "" || errOut != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant 2 and:\n%s", tc.args, code, out, errOut, tc.want)
		}
	}
	// Without a command the list of commands is the help wanted.
	if code, _, errOut := cli(t, t.Context()); code != 2 || !strings.HasPrefix(errOut, "metronome: no command given\n\n") || !strings.Contains(errOut, "Usage:") {
		t.Errorf("no command: exit %d, stderr %q", code, errOut)
	}
}

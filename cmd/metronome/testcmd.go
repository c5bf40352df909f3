package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/metronome-rt/metronome/lua/luatest"
	"github.com/metronome-rt/metronome/lua/scripting"
)

const testAbout = `Test runs Lua test files, each in its own sandboxed state, and prints one
block per failing test and a summary line. A PATH is a file, or a directory
searched recursively for *_test.lua and *_test.fnl (skipping testdata and folders starting
with "." or "_"). The default PATH is tests/. A file that registers no
test, or two tests of one name, fails. It exits 1 when a test fails.
Fennel test files are compiled with --fennel FILE, $METRONOME_FENNEL or
fennel.lua beside each file, as run finds it.

Each test gets a fresh host (require "app-host"): unpaused, empty, on a
virtual clock at 2000-01-01T00:00:00Z, which os.time, os.date and os.clock
read, as under go test ./tests. The app-host scheduler and runtime-timers
act on the running test's host, and nothing one test leaves there reaches
the next; a main chunk that leaves jobs or facets on the host fails its
file: set them up in before_each. A runtime-scheduler create{} or
make-scheduler{} without a clock starts at the host's instant, and
Temporal.clock.system() raises unless --allow-wallclock (the wall clock
would make results differ run to run). math.random is seeded before each test from --seed (default 0), the file's
name and the test's full name, so a run repeats and --filter or the order
changes no result.

-v prints each test's status, name and wall time as it finishes, and the
t:log lines of a test that did not fail. --filter runs only the tests whose
full name (describe names and the test's name joined by spaces) matches a
Lua pattern (as string.find: ^ anchors, % escapes; no alternation, so a '|'
is refused); one that matches no test is a failure. --format tap writes TAP version 14 and --format junit JUnit XML
(for CI) instead of the default report; under either, print writes to
stderr so that stdout is the report alone.

Each file's main chunk, each test body and each hook may run for --budget
of wall time (default 5s), one advance, update or step for --drain-budget
(default 10s), and the heap may grow by --memory-limit while a file runs
(default 1GiB); a test past one fails with an error naming it.`

func testCommand() *command {
	return &command{
		name:     "test",
		synopsis: "[flags] [PATH...]",
		summary:  "Run *_test.lua and *_test.fnl files (default tests/).",
		about:    testAbout,
		bind: func(fs *flag.FlagSet, out streams) func(context.Context, []string) error {
			state := scripting.Options{Stdout: out.stdout}
			var f testFlags
			fs.BoolVar(&state.AllowWallClock, "allow-wallclock", false, "let tests read the wall clock (Temporal.clock.system())")
			fs.Int64Var(&state.Seed, "seed", 0, "seed math.random from `N`, the file's name and each test's full name")
			fs.StringVar(&state.Fennel, "fennel", "", "compile .fnl files with the Fennel compiler `FILE` (fennel.lua)")
			f.bind(fs)
			b := testBudgets
			b.bind(fs)
			return func(ctx context.Context, paths []string) error {
				if err := f.check(); err != nil {
					return err
				}
				files, err := testFiles(paths)
				if err != nil {
					return err
				}
				if state.Fennel == "" {
					state.Fennel = os.Getenv(scripting.FennelEnv) // else fennel.lua beside each file
				}
				if f.format != "" {
					state.Stdout = out.stderr // stdout carries the report alone
				}
				b.options(ctx, &state)
				results, runErr := luatest.Run(ctx, files, luatest.HostStateWith(state), f.options(out))
				if err := f.report(out.stdout, results); err != nil {
					return err
				}
				if runErr != nil {
					return runErr
				}
				if luatest.Summarize(results).Failed > 0 {
					return exitError(1)
				}
				return nil
			}
		},
	}
}

// testFiles finds the test files under paths, or under tests/ without any.
func testFiles(paths []string) ([]string, error) {
	if len(paths) > 0 {
		files, err := luatest.Find(paths...)
		if err == nil && len(files) == 0 {
			err = fmt.Errorf("no *_test.lua files in %s", strings.Join(paths, ", "))
		}
		return files, err
	}
	// No PATH: say where the default pointed, since the folder the command
	// ran in is not in the message otherwise.
	abs, err := filepath.Abs("tests")
	if err != nil {
		return nil, err
	}
	if info, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) || (err == nil && !info.IsDir()) {
		return nil, usageError(fmt.Sprintf("no tests/ folder here (looked for %s): run it from a project's root, or give PATH..., the *_test.lua files or folders to run", abs))
	}
	files, err := luatest.Find("tests")
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no *_test.lua files in %s: test files are named NAME_test.lua; or give PATH..., the files or folders to run", abs)
	}
	return files, err
}

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
searched recursively for *_test.lua (skipping testdata and folders starting
with "." or "_"). The default PATH is tests/. Each file gets its own host
(require "app-host") on a virtual clock starting at 2000-01-01T00:00:00Z,
which os.time, os.date and os.clock read, as under go test ./tests; a
runtime-scheduler create{} or make-scheduler{} without a clock starts at the
host's instant, and Temporal.clock.system() raises unless --allow-wallclock
(the wall clock would make results differ run to run). A file
that registers no test, or two tests of one name, fails. It exits 1 when a
test fails. math.random in each file is seeded from --seed (default 0) and
the file's name, so a run repeats.

Each file's main chunk and each test body may run for --budget of wall time
(default 5s), one advance, update or step for --drain-budget (default 10s),
and the heap may grow by --memory-limit while a file runs (default 1GiB); a
test past one fails with an error naming it.`

func testCommand() *command {
	return &command{
		name:     "test",
		synopsis: "[flags] [PATH...]",
		summary:  "Run *_test.lua files (default tests/).",
		about:    testAbout,
		bind: func(fs *flag.FlagSet, out streams) func(context.Context, []string) error {
			state := scripting.Options{Stdout: out.stdout}
			fs.BoolVar(&state.AllowWallClock, "allow-wallclock", false, "let tests read the wall clock (Temporal.clock.system())")
			fs.Int64Var(&state.Seed, "seed", 0, "seed each file's math.random from `N` and the file's name")
			b := testBudgets
			b.bind(fs)
			return func(ctx context.Context, paths []string) error {
				files, err := testFiles(paths)
				if err != nil {
					return err
				}
				b.options(ctx, &state)
				results, runErr := luatest.Run(ctx, files, luatest.HostStateWith(state))
				if err := luatest.Report(out.stdout, results); err != nil {
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

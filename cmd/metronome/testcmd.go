package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/luatest"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

func testCommand() *command {
	return &command{
		name:     "test",
		synopsis: "[PATH...]",
		summary:  "Run *_test.lua files (default tests/).",
		about: `Test runs Lua test files, each in its own sandboxed state, and prints one
block per failing test and a summary line. A PATH is a file, or a directory
searched recursively for *_test.lua (skipping testdata and folders starting
with "." or "_"). The default PATH is tests/. Each file gets its own host
(require "app-host") on a virtual clock starting at 2000-01-01T00:00:00Z,
which os.time and os.date read. It exits 1 when a test fails.`,
		bind: func(_ *flag.FlagSet, out streams) func(context.Context, []string) error {
			return func(ctx context.Context, paths []string) error {
				if len(paths) == 0 {
					paths = []string{"tests"}
				}
				files, err := luatest.Find(paths...)
				if err != nil {
					return err
				}
				if len(files) == 0 {
					return fmt.Errorf("no *_test.lua files in %s", strings.Join(paths, ", "))
				}
				results, runErr := luatest.Run(ctx, files, func(file string) (*lua.LState, func(), error) {
					// Each file gets its own host on a fixed virtual clock
					// (require "app-host"), as run gives a script.
					h := hostservices.New(temporal.Fixed(defaultStart))
					L := newState(stateOptions{
						dir: filepath.Dir(file), stdout: out.stdout, modules: scripting.HostModules(h, nil),
						now: func() time.Time { return h.Now().Time() },
						cpu: func() float64 { return h.Scheduler().Elapsed().Std().Seconds() },
					})
					return L, L.Close, nil
				})
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

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/luatest"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

const checkAbout = `Check compiles every .fnl file and parses every .lua file under each PATH
(default .) without running any of them, and prints file:line: message for
each error. A directory is searched recursively, skipping testdata and
folders starting with "." or "_"; modules and macro modules are found from
it, as from a script in it. It exits 1 when a file has an error, 0 when
none has.

Fennel files are compiled with --fennel FILE, $METRONOME_FENNEL, fennel.lua
beside them or fennel.lua in the directory PATH; the compiler file itself
is not checked. Macros run while a file compiles, sandboxed, with --budget of wall
time per file (default 10s).`

func checkCommand() *command {
	return &command{
		name:     "check",
		synopsis: "[flags] [PATH...]",
		summary:  "Compile .fnl and parse .lua files without running them.",
		about:    checkAbout,
		bind: func(fs *flag.FlagSet, out streams) func(context.Context, []string) error {
			var fennel string
			budget := 10 * time.Second
			fs.StringVar(&fennel, "fennel", "", "compile .fnl files with the Fennel compiler `FILE` (fennel.lua)")
			fs.DurationVar(&budget, "budget", budget, "wall time compiling one file may take (macros included)")
			return func(ctx context.Context, paths []string) error {
				if len(paths) == 0 {
					paths = []string{"."}
				}
				files, err := checkFiles(paths)
				if err != nil {
					return err
				}
				failed := 0
				states := map[string]*lua.LState{} // one per folder: macros resolve there
				defer func() {
					for _, L := range states {
						L.Close()
					}
				}()
				for _, cf := range files {
					file, dir := cf.path, cf.root
					if ctx.Err() != nil {
						return ctx.Err()
					}
					compiler := scripting.FennelCompiler(fennel, file)
					if compiler == "" {
						compiler = scripting.FennelCompiler("", filepath.Join(dir, "x"))
					}
					if compiler != "" && sameFile(compiler, file) {
						continue
					}
					L := states[dir]
					if L == nil {
						L = scripting.NewState(scripting.Options{ScriptDir: dir, Fennel: compiler, Stdout: out.stderr,
							Budget: temporal.Duration(budget), Context: ctx})
						states[dir] = L
					}
					_, err := scripting.LoadFile(L, file)
					if nf := (*scripting.NoFennelError)(nil); errors.As(err, &nf) {
						fmt.Fprintln(out.stderr, nf.Error())
						return exitError(2)
					}
					if err != nil {
						failed++
						msg := err.Error()
						if !strings.HasPrefix(msg, file) {
							msg = file + ": " + msg
						}
						fmt.Fprintln(out.stdout, msg)
					}
				}
				if failed > 0 {
					return exitError(1)
				}
				return nil
			}
		},
	}
}

// checkFile is a file to check and the folder require and import-macros
// search from: the directory PATH it was found under, or its own folder.
type checkFile struct{ path, root string }

// checkFiles expands paths into the .fnl and .lua files to check, in
// lexical order within each path.
func checkFiles(paths []string) ([]checkFile, error) {
	var files []checkFile
	seen := map[string]bool{}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			if !seen[root] {
				seen[root] = true
				files = append(files, checkFile{root, filepath.Dir(root)})
			}
			continue
		}
		found, err := luatest.Walk(root, func(name string) bool {
			return strings.HasSuffix(name, ".fnl") || strings.HasSuffix(name, ".lua")
		})
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			if !seen[f] {
				seen[f] = true
				files = append(files, checkFile{f, root})
			}
		}
	}
	return files, nil
}

func sameFile(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

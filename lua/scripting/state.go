package scripting

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/internal/clip"
	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/temporal"
)

// Options configures NewState. The zero value gives a sandboxed state that
// prints to os.Stdout, reads the wall clock and loads no files.
type Options struct {
	// AllowIO opens io and the full os library (os.time, os.clock and
	// os.date still read Now and format in UTC).
	AllowIO bool
	// ScriptDir is where require finds NAME.lua files, and the only place on
	// disk it looks. Empty means require finds preloaded modules only.
	ScriptDir string
	// Stdout receives print. Default os.Stdout. The io library, when
	// allowed, writes to the process's real standard streams.
	Stdout io.Writer
	// Now is what os.time and os.date read. Default time.Now.
	Now func() time.Time
	// CPUClock is what os.clock returns, in seconds. Default: seconds of Now
	// since NewState.
	CPUClock func() float64
	// Clock is the default clock of runtime-scheduler's create{} and
	// app-host.services' make-scheduler{} (a scheduler reads it once, for its
	// epoch) and, when Now is nil, what os.time and os.date read. Nil means
	// temporal.System(), the wall clock.
	Clock temporal.Clock
	// AllowWallClock lets scripts call Temporal.clock.system() in a state
	// whose Clock is set to another clock than temporal.System(); without it
	// that call raises, so nothing reads the wall clock behind a virtual
	// one. With Clock nil or the system clock the wall clock is allowed
	// anyway, as it is with the zero Options.
	AllowWallClock bool
	// Modules are preloaded next to the built-in modules, name -> loader;
	// an entry replaces a built-in module of the same name.
	Modules map[string]lua.LGFunction
	// Seed int64: the seed of math.random; the same seed gives the same
	// sequence. math.randomseed(x) reseeds it, as Seed = x would.
	Seed int64

	// Budget is the wall time each main chunk run with PCall, callback,
	// test body and hook may take; a call inside another gets what is
	// left of the outer one when that is less. 0: no budget.
	Budget temporal.Duration
	// DrainBudget is the wall time one advance, update, step, next,
	// run-all, run-to-last or jump call (or a Go call run with Drain) may
	// take, across all the callbacks it runs. 0: no bound.
	DrainBudget temporal.Duration
	// MemoryLimit is how many bytes the Go heap may grow past its size at
	// NewState while the state's Lua runs under PCall, Drain or a
	// callback. 0: not watched.
	MemoryLimit int64
	// Context, when done, stops the state's Lua at its next instruction
	// with an "interrupted" error, and every later call at once.
	Context context.Context
	// Cluster, when set, claims keyed-timer owners made with an id across
	// processes (see keyed_cluster.go); nil: an id is a label.
	Cluster Cluster
	// Source bounds the size, nesting and compile work of every chunk the
	// state compiles: LoadFile, require, load and loadstring. Zero fields
	// take the defaults.
	Source sandbox.SourceLimits
	// Fennel is the Fennel compiler (fennel.lua) that compiles .fnl
	// scripts and modules, loaded into the state the first time one is
	// needed. Empty: fennel.lua in ScriptDir, when there is one.
	Fennel string
}

// NewState returns a state with the sandboxed standard library and the
// built-in modules preloaded.
//
// The sandbox (see sandbox.NewState) opens the base library without dofile
// and loadfile (load and loadstring take source text only, never binary
// chunks), string, table, math, coroutine, and os with time, clock and date
// only. os.date has no host zone: it formats in UTC, and os.time{...} reads
// its table as UTC. require finds package.preload entries, then NAME.lua,
// NAME.fnl or NAME/init.fnl in ScriptDir (dots in NAME are folders; Fennel
// is compiled, see LoadFile); package.path is ignored, names with ".." are
// refused, and so is a file that a symbolic link leads out of ScriptDir.
// With opts.Clock set to another clock than the system's,
// Temporal.clock.system() raises unless opts.AllowWallClock.
//
// NewState panics if a loader in opts.Modules is nil or a field of
// opts.Source is negative.
func NewState(opts Options) *lua.LState {
	for name, loader := range opts.Modules {
		if loader == nil {
			panic(fmt.Sprintf("scripting.NewState: Options.Modules[%q] is a nil loader", name))
		}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
		if c := opts.Clock; c != nil {
			now = func() time.Time { return c.Now().Time() }
		}
	}
	L := sandbox.NewState(sandbox.Options{
		AllowIO: opts.AllowIO, Stdout: opts.Stdout, Now: now, CPUClock: opts.CPUClock, Seed: opts.Seed,
		Budget: opts.Budget, DrainBudget: opts.DrainBudget, MemoryLimit: opts.MemoryLimit,
		Context: opts.Context, Source: opts.Source,
	})
	dir := opts.ScriptDir
	if dir != "" {
		dir = filepath.Clean(dir)
	}
	setCluster(L, opts.Cluster)
	installRequire(L, opts.Modules, dir)
	installClockPolicy(L, opts)
	installFennel(L, opts.Fennel, dir)
	return L
}

// LoadFile compiles the Lua source file at path into a function, like
// L.LoadFile, but refuses binary chunks and reports a syntax error the way
// runtime errors read: "path:line: message near 'token'".
//
// A .fnl file is Fennel source: it is compiled with the state's Fennel
// compiler (Options.Fennel), and without one the error is a
// *NoFennelError.
func LoadFile(L *lua.LState, path string) (*lua.LFunction, error) {
	if isFennel(path) {
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
		if _, err := fennelCompile(L, path); err != nil {
			return nil, err
		}
		src, err := sandbox.ReadSource(L, path)
		if err != nil {
			return nil, err
		}
		return compileFennel(L, src, path)
	}
	return sandbox.LoadFile(L, path)
}

// installRequire points require at package.preload and ScriptDir only.
func installRequire(L *lua.LState, modules map[string]lua.LGFunction, dir string) {
	pkg := L.GetGlobal("package").(*lua.LTable) // package.path is gone (sandbox.NewState)
	loaders := L.CreateTable(2, 0)
	loaders.Append(L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(1)
		preload, ok := pkg.RawGetString("preload").(*lua.LTable)
		if !ok {
			raise(L, "package.preload must be a table")
		}
		if loader := L.GetField(preload, name); loader != lua.LNil {
			L.Push(loader)
			return 1
		}
		if alias := snakeModule(L, preload, name); alias != nil {
			L.Push(alias)
			return 1
		}
		L.Push(lua.LString(fmt.Sprintf("no field package.preload['%s']", name)))
		return 1
	}))
	loaders.Append(L.NewFunction(scriptDirLoader(dir)))
	pkg.RawSetString("loaders", loaders)
	L.SetGlobal("require", L.NewFunction(requireModule))
	// gopher-lua's require reads the loaders from the registry.
	L.SetField(L.Get(lua.RegistryIndex), "_LOADERS", loaders)

	preload := pkg.RawGetString("preload").(*lua.LTable)
	for name, loader := range builtinModules {
		if _, replaced := modules[name]; !replaced {
			preload.RawSetString(name, L.NewFunction(loader))
		}
	}
	for name, loader := range modules {
		preload.RawSetString(name, L.NewFunction(loader))
	}
}

// scriptDirLoader is the loader that finds a module in dir.
func scriptDirLoader(dir string) lua.LGFunction {
	return func(L *lua.LState) int { return loadFromScriptDir(L, dir) }
}

func loadFromScriptDir(L *lua.LState, dir string) int {
	name := L.CheckString(1)
	base, err := moduleBase(name)
	if err != nil {
		raise(L, "require %s: %v", clip.Quote(name), err)
	}
	if dir == "" {
		L.Push(lua.LString("no script folder to search for " + base + ".lua"))
		return 1
	}
	var path, rel string
	var tried []string
	for _, r := range []string{base + ".lua", base + ".fnl", filepath.Join(base, "init.fnl")} {
		p := filepath.Join(dir, r)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			path, rel = p, r
			break
		}
		tried = append(tried, fmt.Sprintf("no file '%s'", p))
	}
	if path == "" {
		L.Push(lua.LString(strings.Join(tried, "\n\t")))
		return 1
	}
	if err := inScriptDir(dir, path); err != nil {
		raise(L, "require %s: %s: %v", clip.Quote(name), rel, err)
	}
	fn, err := LoadFile(L, path)
	if nf := (*NoFennelError)(nil); errors.As(err, &nf) {
		raise(L, "require %s: %v", clip.Quote(name), err)
	}
	if err != nil {
		raise(L, "error loading module '%s' from file '%s':\n\t%v", name, path, err)
	}
	L.Push(fn)
	return 1
}

// moduleBase maps a module name to a path below the script folder without
// its extension: "a.b" is a/b. Names that could leave the folder are
// refused.
func moduleBase(name string) (string, error) {
	switch {
	case name == "":
		return "", errors.New("empty module name")
	case len(name) > maxModuleName:
		return "", fmt.Errorf("a module name is at most %d bytes", maxModuleName)
	case strings.Contains(name, ".."):
		return "", errors.New(`".." is not allowed: modules load only from the script's folder`)
	case strings.ContainsAny(name, "\\:\x00"):
		return "", errors.New(`"\", ":" and NUL are not allowed in module names; use dots for folders`)
	}
	p := strings.ReplaceAll(name, ".", "/")
	for _, seg := range strings.Split(p, "/") {
		if seg == "" {
			return "", errors.New("empty path segment: modules load only from the script's folder")
		}
	}
	return filepath.FromSlash(p), nil
}

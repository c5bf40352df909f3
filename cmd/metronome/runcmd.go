package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

// runOptions is one `metronome run`: the command's flags fill it in and
// runScript carries it out, so new flags are a field here and a line in
// runCommand.
type runOptions struct {
	Script  string    // the main chunk's path; its folder is where require looks
	Fennel  string    // --fennel: the Fennel compiler; "": $METRONOME_FENNEL, then fennel.lua beside Script
	Args    []string  // the script's arguments: its ... and arg[1..]
	AllowIO bool      // open io and the full os library
	Stdout  io.Writer // where print goes
	Stderr  io.Writer // where the trace and stop messages go

	Start     temporal.Instant  // virtual time's first instant
	Until     temporal.Duration // stop after this much time (virtual or wall)
	UntilText string            // --until as given, for messages
	Frame     temporal.Duration // a frame's length while facets are registered
	Realtime  bool              // the system clock, sleeping between due items
	Trace     traceMode
	TraceFile string // "" : the trace goes to Stderr
	Timeline  string // "" : no SVG
	Seed      int64  // math.random's seed

	AllowWallClock bool // Temporal.clock.system() under virtual time
	Budgets        budgets

	Cluster       []string          // --cluster's etcd endpoints; nil: none
	ClusterTTL    time.Duration     // the etcd lease's TTL; 0: etcdlease.DefaultTTL
	ClusterPrefix string            // where ownership keys go; "": etcdlease.DefaultPrefix
	State         string            // --state: the host's saved state; "": none
	stateText     []byte            // its text, read by runScript; nil: no saved state
	resumedAt     temporal.Duration // where a virtual run's restore moves time, past Start; 0: none

	traceOut io.Writer // resolved by runScript
}

const runAbout = `Run runs FILE.lua in a sandboxed state: no io, os limited to time, clock
and date (UTC), require limited to built-in modules and FILE.lua's folder.
The arguments after FILE.lua reach the script as ... and as arg[1..]
(arg[0] is FILE.lua). Flags go before FILE.lua.

FILE.fnl is Fennel: it is compiled with --fennel FILE, $METRONOME_FENNEL or
fennel.lua beside it (the user's compiler; none ships with metronome), and
require finds NAME.fnl and NAME/init.fnl as well as NAME.lua. Without a
compiler it exits 2 and says how to provide one. See docs/fennel.md.

The script drives one host, require "app-host" (its jobs, facets, pause and
step, and the runtime-timers module's timers). Time is virtual: it starts at
--start and moves only when the host does, so a run and its output repeat;
os.time, os.date and os.clock read it, and math.random is seeded with
--seed (default 0). After the main chunk returns (it may
update, pause and step the host itself), run moves the host from due item to
due item: straight to the next deadline while no facet is registered, frame
by frame of exactly --frame-ms while one is. It stops when nothing is
pending, when the script calls host.quit(), when the host is paused (nothing
could resume it: a message says so), after --until (a message says so), or
with an error when a facet's frame would take virtual time past the last
instant it can hold, 2262-04-11T23:47:16.854775807Z.
With --realtime the same loop runs on the system clock, sleeping until the
next due item or frame; facets get the measured delta.

An uncaught error, in the main chunk or in a job or facet, prints
file:line: message and a stack traceback, and exits 1. A bad flag exits 2.

Budgets: the main chunk and each callback may run for --budget of wall time
(default 1s), one advance, update or step for --drain-budget across its
callbacks (default 10s; the runner's steps within one frame of virtual
time count as one), and the heap may grow by
--memory-limit while scripts run (default 1GiB). A script past one stops
with an error naming it, which pcall cannot catch: exit 1. Ctrl-C or
SIGTERM stops the script at once, even inside a loop: exit 130.

With --state FILE the host's timers are saved in FILE when the run ends
(SIGTERM and host.quit() included; not after a script error) and, when FILE
exists, restored at the script's host.handlers{ label = fn, ... } call,
which then returns true; in virtual time the run then stands at the
state's time, and --until counts from there. See docs/save-restore.md.

With --realtime --cluster etcd://HOST:PORT[,HOST:PORT...], owners made with
an id (s:owner{ id = "spot-42", lease = d }) are claimed in etcd: one
process at a time ticks an owner's timers, the others wait as standbys and
one takes over within about --cluster-ttl after the owner dies or stalls.
A claimed owner keeps the run alive until host.quit(), --until or a signal;
--trace adds a line per ownership change with its fence, a lapse of the
lease included. The run waits for etcd's first answer before the main
chunk (the TTL or 5s, whichever is shorter) and exits 1 without one. See
docs/scale-out.md.`

func runCommand() *command {
	return &command{
		name:     "run",
		synopsis: "[flags] FILE.lua [args...]",
		summary:  "Run a script on a host, in virtual (default) or real time.",
		about:    runAbout,
		bind: func(fs *flag.FlagSet, out streams) func(context.Context, []string) error {
			o := runOptions{Stdout: out.stdout, Stderr: out.stderr, Budgets: runBudgets}
			start := &instantFlag{t: defaultStart}
			until := &spanFlag{d: defaultUntil}
			frame := &frameFlag{}
			if err := frame.Set(defaultFrameMs); err != nil {
				panic(err)
			}
			fs.BoolVar(&o.AllowIO, "allow-io", false, "open io and the full os library")
			fs.StringVar(&o.Fennel, "fennel", "", "compile .fnl files with the Fennel compiler `FILE` (fennel.lua)")
			fs.Var(start, "start", "virtual time starts at `INSTANT` (RFC 3339, with Z or an offset)")
			fs.Var(until, "until", "stop after `DURATION` of time: PT1H30M, 90s, 5m, 2h, 1h30m")
			fs.Var(frame, "frame-ms", "a frame's length in `MS` while facets are registered")
			fs.BoolVar(&o.Realtime, "realtime", false, "run on the system clock, sleeping until the next due item")
			fs.BoolVar(&o.AllowWallClock, "allow-wallclock", false, "let the script read the wall clock (Temporal.clock.system()) under virtual time")
			fs.Var(traceFlag{&o.Trace}, "trace", "a line per fired job on stderr; --trace=all adds frames, steps, pauses, quit")
			fs.StringVar(&o.TraceFile, "trace-file", "", "write the trace to `FILE` instead of stderr (implies --trace)")
			fs.StringVar(&o.Timeline, "timeline", "", "write an SVG timeline of the run to `FILE.svg`")
			fs.Int64Var(&o.Seed, "seed", 0, "seed math.random with `N`: the same seed gives the same sequence")
			fs.StringVar(&o.State, "state", "", "restore the host's timers from `FILE` at host.handlers{...} when it exists; save them there when the run ends")
			cluster, clusterTTL := &clusterFlag{}, &clusterTTLFlag{d: 2 * time.Second}
			fs.Var(cluster, "cluster", "claim owners with an id in the etcd at `URL`: etcd://HOST:PORT[,HOST:PORT...] (needs --realtime)")
			fs.Var(clusterTTL, "cluster-ttl", "the etcd lease's TTL: `N` whole seconds")
			fs.StringVar(&o.ClusterPrefix, "etcd-prefix", "/metronome/owners/", "ownership keys go under `KEY` in etcd (with --cluster)")
			o.Budgets.bind(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) == 0 {
					return usageError("no script given")
				}
				if start.set && o.Realtime {
					return usageError("--start sets where virtual time starts; --realtime runs on the system clock")
				}
				if cluster.eps != nil && !o.Realtime {
					return usageError("--cluster needs --realtime: a lease held in etcd runs on wall time")
				}
				o.Cluster, o.ClusterTTL = cluster.eps, clusterTTL.d
				o.Start, o.Until, o.UntilText, o.Frame = start.t, until.d, until.String(), frame.d
				if o.TraceFile != "" && o.Trace == traceOff {
					o.Trace = traceJobs
				}
				o.Script, o.Args = args[0], args[1:]
				return runScript(ctx, o)
			}
		},
	}
}

// runScript runs the main chunk of o.Script with o.Args, then the host
// until the run is over. A Lua error comes back as a *scriptError; a file
// that cannot be read as a plain error.
func runScript(ctx context.Context, o runOptions) (err error) {
	if err := ctx.Err(); err != nil {
		return err // interrupted before the script started
	}
	if o.Stdout == nil {
		o.Stdout = discard
	}
	if o.Stderr == nil {
		o.Stderr = discard
	}
	if o.Until <= 0 {
		o.Until, o.UntilText = defaultUntil, shortDuration(defaultUntil)
	}
	if o.Frame <= 0 {
		o.Frame = 16_667 * temporal.Microsecond
	}
	flushEach := true
	if o.Trace != traceOff {
		o.traceOut = o.Stderr
		if o.TraceFile != "" {
			f, err := os.Create(o.TraceFile)
			if err != nil {
				return fmt.Errorf("trace: %w", err)
			}
			defer func() {
				if cerr := f.Close(); cerr != nil && err == nil {
					err = fmt.Errorf("trace: %w", cerr)
				}
			}()
			o.traceOut, flushEach = f, false
		}
	}

	if o.Timeline != "" {
		if err := checkWritable(o.Timeline); err != nil {
			return fmt.Errorf("timeline: %w", err)
		}
	}

	if err := readState(&o); err != nil {
		return err
	}
	cl, err := openCluster(ctx, o)
	if err != nil {
		return err
	}
	defer cl.close()
	s := newSession(ctx, o, flushEach, cl)
	defer s.L.Close()
	if o.stateText != nil {
		scripting.SetSavedState(s.L, o.stateText)
	}

	fn, err := scripting.LoadFile(s.L, o.Script)
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			return err
		}
		if nf := (*scripting.NoFennelError)(nil); errors.As(err, &nf) {
			fmt.Fprintln(o.Stderr, nf.Error())
			return exitError(2)
		}
		return &scriptError{msg: err.Error()}
	}
	L := s.L
	argv := L.CreateTable(len(o.Args), 1)
	argv.RawSetInt(0, lua.LString(o.Script))
	for i, a := range o.Args {
		argv.RawSetInt(i+1, lua.LString(a))
	}
	L.SetGlobal("arg", argv)

	L.Push(fn)
	for _, a := range o.Args {
		L.Push(lua.LString(a))
	}
	var runErr error
	if err := scripting.PCall(L, len(o.Args), 0, nil); err != nil {
		runErr = luaError(L, err)
	} else if runErr = s.stateUsed(); runErr == nil {
		runErr = s.drive(ctx)
	}
	if serr := s.saveState(ctx, runErr); serr != nil && runErr == nil {
		runErr = serr
	}
	if ferr := s.finish(runErr); ferr != nil && runErr == nil {
		runErr = ferr
	}
	return runErr
}

// stateOptions is what a script's state is made with.
type stateOptions struct {
	dir     string
	fennel  string // the Fennel compiler; "": fennel.lua in dir
	allowIO bool
	stdout  io.Writer
	modules map[string]lua.LGFunction
	now     func() time.Time // nil: the wall clock
	cpu     func() float64   // nil: seconds of now since the state was made

	clock     temporal.Clock // create{} and make-scheduler{} without :clock; nil: the wall clock
	allowWall bool           // Temporal.clock.system() though clock is set
	seed      int64          // math.random's seed
	budgets   budgets
	ctx       context.Context   // stops the script's Lua when done
	cluster   scripting.Cluster // owners with an id across processes; nil: none
}

// newState is the state run gives a script: sandboxed, requiring from dir,
// printing to stdout. (test's is luatest.HostState.)
func newState(o stateOptions) *lua.LState {
	// ctx and the budgets reach the Lua VM: Ctrl-C and SIGTERM stop a
	// script even inside a loop (see docs/architecture.md for the cost).
	so := scripting.Options{AllowIO: o.allowIO, ScriptDir: o.dir, Stdout: o.stdout, Modules: o.modules, Now: o.now, CPUClock: o.cpu,
		Clock: o.clock, AllowWallClock: o.allowWall, Seed: o.seed, Cluster: o.cluster, Fennel: o.fennel}
	o.budgets.options(o.ctx, &so)
	return scripting.NewState(so)
}

func dirOf(path string) string { return filepath.Dir(path) }

// discard stands in for a stream a caller left nil.
var discard io.Writer = io.Discard

// luaError turns an error from PCall into a *scriptError.
func luaError(L *lua.LState, err error) error {
	var api *lua.ApiError
	if !errors.As(err, &api) {
		return err
	}
	// An error object's __tostring runs with a budget of its own: the call
	// that raised it has returned.
	msg := sandbox.ErrorText(L, api.Object)
	tb := api.StackTrace
	if t, ok := scripting.Traceback(err); ok {
		tb = t // a callback's: its frames and the job or facet that ran it
	}
	if strings.Contains(msg, "\nstack traceback:\n") {
		tb = "" // the message carries a callback's traceback already
	}
	return &scriptError{msg: msg, traceback: tb}
}

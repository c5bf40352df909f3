package luatest

import (
	"io"
	"maps"
	"path/filepath"
	"time"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

// Epoch is where the clock of each file's host starts under HostState:
// 2000-01-01T00:00:00Z.
var Epoch = temporal.FromUnixNano(946684800e9)

// HostState returns the Factory of `metronome test` and of the conformance
// suites in tests/. Each file gets:
//
//   - the sandboxed state of scripting.NewState, printing to stdout (nil:
//     os.Stdout), requiring NAME.lua from the file's own folder;
//   - a host of its own, hostservices.New on a clock fixed at Epoch, as
//     require "app-host" (whose quit returns false: nothing is running to
//     stop) and behind require "runtime-timers";
//   - os.time and os.date reading the host's virtual time, and os.clock
//     its elapsed time in seconds, so both start at Epoch and move only when
//     the test moves the host;
//   - the host as the default clock of create{} and make-scheduler{}, and
//     Temporal.clock.system() refused;
//   - math.random seeded with FileSeed(base.Seed, file).
func HostState(stdout io.Writer) Factory {
	return HostStateWith(scripting.Options{Stdout: stdout})
}

// HostStateWith is HostState with base as the state's options: HostState
// sets ScriptDir, Modules (base's are kept unless a host module replaces
// them), Now, CPUClock and Clock per file, and keeps the rest of base
// (AllowWallClock, for one).
func HostStateWith(base scripting.Options) Factory {
	return func(file string) (*lua.LState, func(), error) {
		h := hostservices.New(temporal.Fixed(Epoch))
		opts := base
		opts.ScriptDir = filepath.Dir(file)
		opts.Modules = maps.Clone(base.Modules)
		if opts.Modules == nil {
			opts.Modules = map[string]lua.LGFunction{}
		}
		maps.Copy(opts.Modules, scripting.HostModules(h, nil))
		opts.Now = func() time.Time { return h.Now().Time() }
		opts.CPUClock = func() float64 { return h.Scheduler().Elapsed().Std().Seconds() }
		opts.Clock = h
		opts.Seed = FileSeed(base.Seed, file)
		L := scripting.NewState(opts)
		return L, L.Close, nil
	}
}

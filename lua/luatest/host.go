package luatest

import (
	"io"
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
//     the test moves the host.
func HostState(stdout io.Writer) Factory { return HostStateWith(stdout, scripting.Options{}) }

// HostStateWith is HostState with opts' other fields (budgets, a context)
// for each file's state; its ScriptDir, Stdout, Modules, Now and CPUClock
// are HostState's.
func HostStateWith(stdout io.Writer, opts scripting.Options) Factory {
	return func(file string) (*lua.LState, func(), error) {
		h := hostservices.New(temporal.Fixed(Epoch))
		o := opts
		o.ScriptDir = filepath.Dir(file)
		o.Stdout = stdout
		o.Modules = scripting.HostModules(h, nil)
		o.Now = func() time.Time { return h.Now().Time() }
		o.CPUClock = func() float64 { return h.Scheduler().Elapsed().Std().Seconds() }
		L := scripting.NewState(o)
		return L, L.Close, nil
	}
}

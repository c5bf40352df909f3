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
//   - math.random seeded with FileSeed(0, file) (see SeededHostState).
func HostState(stdout io.Writer) Factory {
	return func(file string) (*lua.LState, func(), error) {
		h := hostservices.New(temporal.Fixed(Epoch))
		L := scripting.NewState(scripting.Options{
			ScriptDir: filepath.Dir(file),
			Stdout:    stdout,
			Modules:   scripting.HostModules(h, nil),
			Now:       func() time.Time { return h.Now().Time() },
			CPUClock:  func() float64 { return h.Scheduler().Elapsed().Std().Seconds() },
			Seed:      FileSeed(0, file),
		})
		return L, L.Close, nil
	}
}

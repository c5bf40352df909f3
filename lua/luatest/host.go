package luatest

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/runtime/sched"
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
//   - require "app-host" (whose quit returns false: nothing is running to
//     stop) and require "runtime-timers" on a host of its own: while the
//     main chunk runs, a load host; in each test, a fresh one
//     (hostservices.New on a clock fixed at Epoch: unpaused, empty, at
//     Epoch). The Lua objects are the same in every test and act on the
//     running test's host; after the test its host is dropped, and all it
//     carried with it;
//   - a file whose main chunk leaves jobs or facets on the load host fails
//     to load, naming them;
//   - os.time and os.date reading the current host's virtual time, and
//     os.clock its elapsed time in seconds, so both start at Epoch in each
//     test and move only when the test moves the host;
//   - the current host as the default clock of create{} and
//     make-scheduler{}, and Temporal.clock.system() refused;
//   - math.random seeded with FileSeed(base.Seed, file) for the main chunk,
//     and with TestSeed(base.Seed, file, name) before each test.
func HostState(stdout io.Writer) Factory {
	return HostStateWith(scripting.Options{Stdout: stdout})
}

// HostStateWith is HostState with base as the state's options: HostState
// sets ScriptDir, Modules (base's are kept unless a host module replaces
// them), Now, CPUClock, Clock and Seed per file, and keeps the rest of base
// (AllowWallClock, for one).
func HostStateWith(base scripting.Options) Factory {
	return func(file string) (*Env, error) {
		slot := scripting.NewHostSlot(hostservices.New(temporal.Fixed(Epoch)))
		opts := base
		opts.ScriptDir = filepath.Dir(file)
		opts.Modules = maps.Clone(base.Modules)
		if opts.Modules == nil {
			opts.Modules = map[string]lua.LGFunction{}
		}
		maps.Copy(opts.Modules, scripting.HostSlotModules(slot, nil))
		opts.Now = func() time.Time { return slot.Now().Time() }
		opts.CPUClock = func() float64 { return slot.Host().Scheduler().Elapsed().Std().Seconds() }
		opts.Clock = slot
		opts.Seed = FileSeed(base.Seed, file)
		L := scripting.NewState(opts)
		return &Env{
			L:      L,
			Loaded: func() error { return leftOnHost(slot.Host()) },
			Begin: func(name string) {
				slot.Set(hostservices.New(temporal.Fixed(Epoch))).Scheduler().Drop()
				sandbox.SeedRandom(L, TestSeed(base.Seed, file, name))
			},
			End: func() { slot.Host().Scheduler().Drop() },
		}, nil
	}
}

// leftOnHost is the error of a main chunk that left work on the load host:
// each test starts with an empty host, so that work would never run.
func leftOnHost(h *hostservices.Host) error {
	var left []string
	for _, j := range h.Scheduler().List() {
		left = append(left, sched.JobInfo{ID: j.ID, Kind: j.Kind, Label: j.Label}.String())
	}
	for _, f := range h.Facets() {
		left = append(left, fmt.Sprintf("facet %q", f))
	}
	if len(left) == 0 {
		return nil
	}
	return fmt.Errorf("the main chunk leaves work on the app-host host, and each test starts with an empty one: %s; set them up in `before_each`",
		strings.Join(left, ", "))
}

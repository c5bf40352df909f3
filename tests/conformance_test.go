// Package tests runs the Lua conformance suites: every *_test.lua in this
// folder, each file in its own sandboxed state, as Go subtests.
package tests

import (
	"path/filepath"
	"testing"

	"github.com/yuin/gopher-lua"
	"go.uber.org/goleak"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/luatest"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// start is where each test file's host clock begins, as under `metronome test`.
var start = temporal.FromUnixNano(946684800e9) // 2000-01-01T00:00:00Z

// sandboxed is the state `metronome test` gives a file: the default sandbox,
// requiring from the file's own folder, with a host of its own on a virtual
// clock for app-host and runtime-timers.
func sandboxed(file string) (*lua.LState, func(), error) {
	host := hostservices.New(temporal.Fixed(start))
	L := scripting.NewState(scripting.Options{
		ScriptDir: filepath.Dir(file),
		Modules:   scripting.HostModules(host, nil),
	})
	return L, L.Close, nil
}

func TestConformance(t *testing.T) {
	luatest.RunGo(t, ".", sandboxed)
}

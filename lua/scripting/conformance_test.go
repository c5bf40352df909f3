package scripting_test

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/metronome-rt/metronome/lua/luatest"
)

// The suites of the two host modules, in the state `metronome test` gives a
// file. (An external test package: luatest imports scripting.)
func TestAppHostConformance(t *testing.T) {
	luatest.RunGo(t, filepath.Join("..", "..", "tests", "app_host_test.lua"), luatest.HostState(io.Discard))
}

func TestRuntimeTimersConformance(t *testing.T) {
	luatest.RunGo(t, filepath.Join("..", "..", "tests", "runtime_timers_test.lua"), luatest.HostState(io.Discard))
}

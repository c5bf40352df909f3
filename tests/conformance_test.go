// Package tests runs the Lua conformance suites: every *_test.lua in this
// folder, each file in its own state as `metronome test` makes it
// (luatest.HostState), as Go subtests.
package tests

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/metronome-rt/metronome/lua/luatest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestConformance(t *testing.T) {
	luatest.RunGo(t, ".", luatest.HostState(os.Stdout))
}

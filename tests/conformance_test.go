// Package tests runs the Lua conformance suites: every *_test.lua in this
// folder, each file in its own sandboxed state, as Go subtests.
package tests

import (
	"path/filepath"
	"testing"

	glua "github.com/yuin/gopher-lua"
	"go.uber.org/goleak"

	"github.com/metronome-rt/metronome/lua"
	"github.com/metronome-rt/metronome/lua/luatest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// sandboxed is the state `metronome test` gives a file: the default sandbox,
// requiring from the file's own folder.
func sandboxed(file string) (*glua.LState, func(), error) {
	L := lua.NewState(lua.Options{ScriptDir: filepath.Dir(file)})
	return L, L.Close, nil
}

func TestConformance(t *testing.T) {
	luatest.RunGo(t, ".", sandboxed)
}

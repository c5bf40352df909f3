package luatest

import (
	"hash/fnv"
	"io"
	"path/filepath"
	"strconv"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/scripting"
)

// SeededHostState is HostState with math.random seeded for each file from
// seed and the file's name (its last element, so a file draws the same
// numbers wherever it is run from): files draw different sequences, and a
// run with the same seed repeats. HostState is SeededHostState with seed 0.
// Each file's tests share its sequence, in the order they run.
func SeededHostState(stdout io.Writer, seed int64) Factory {
	hosts := HostState(stdout)
	return func(file string) (*lua.LState, func(), error) {
		L, closeFn, err := hosts(file)
		if err == nil {
			scripting.SeedRandom(L, FileSeed(seed, file))
		}
		return L, closeFn, err
	}
}

// FileSeed is the seed of math.random in the file at path when a run is
// seeded with seed: FNV-1a of seed and path's last element.
func FileSeed(seed int64, path string) int64 {
	h := fnv.New64a()
	h.Write(strconv.AppendInt(nil, seed, 10))
	h.Write([]byte{0})
	h.Write([]byte(filepath.Base(path)))
	return int64(h.Sum64())
}

package luatest

import (
	"hash/fnv"
	"path/filepath"
	"strconv"
)

// FileSeed is the seed of math.random in the file at path when a run is
// seeded with seed (HostStateWith's base.Seed; HostState's is 0), so files
// draw different sequences and a run with the same seed repeats: FNV-1a of seed and path's last element.
func FileSeed(seed int64, path string) int64 {
	h := fnv.New64a()
	h.Write(strconv.AppendInt(nil, seed, 10))
	h.Write([]byte{0})
	h.Write([]byte(filepath.Base(path)))
	return int64(h.Sum64())
}

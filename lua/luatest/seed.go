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
	return seedOf(seed, filepath.Base(path))
}

// TestSeed is the seed of math.random at the start of the test named name
// (its full name) in the file at path, in a run seeded with seed: FNV-1a of
// seed, path's last element and name, so a test draws the same sequence
// whatever runs before it (--filter, other tests, order).
func TestSeed(seed int64, path, name string) int64 {
	return seedOf(seed, filepath.Base(path), name)
}

// seedOf hashes seed and parts, each after a zero byte.
func seedOf(seed int64, parts ...string) int64 {
	h := fnv.New64a()
	h.Write(strconv.AppendInt(nil, seed, 10))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return int64(h.Sum64())
}

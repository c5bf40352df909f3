package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The defaults refuse none of the project's own Lua files.
func TestSourceLimitsPassProjectScripts(t *testing.T) {
	lim := SourceLimits{}.withDefaults()
	n := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lua") || strings.Contains(path, "testdata/load/") || strings.Contains(path, "testdata/source/") {
			return err // files that fail to load on purpose
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if err := checkSource(string(src), path, lim); err != nil {
			t.Errorf("%v", err)
		}
		return nil
	})
	if err != nil || n < 20 {
		t.Fatalf("walked %d Lua files: %v", n, err)
	}
}

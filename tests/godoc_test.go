package tests

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A "# Heading" in a package doc needs a blank comment line after it, or go
// doc runs it into the paragraph below.
func TestDocHeadingsStandAlone(t *testing.T) {
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		heading, n := "", 0
		for sc.Scan() {
			n++
			line := sc.Text()
			if heading != "" && line != "//" {
				t.Errorf("%s:%d: heading %q needs a blank // line after it", path, n-1, heading)
			}
			heading = ""
			if strings.HasPrefix(line, "// # ") {
				heading = strings.TrimPrefix(line, "// ")
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}

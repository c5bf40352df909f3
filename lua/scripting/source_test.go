package scripting

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	"github.com/metronome-rt/metronome/lua/sandbox"
)

// A main script and a required module pass the same checks as load, and
// a file far over the size limit is not read whole.
func TestSourceLimitsLoadFileAndRequire(t *testing.T) {
	dir := t.TempDir()
	deep := "return " + strings.Repeat("{", 1000) + strings.Repeat("}", 1000)
	big := strings.Repeat("x = 1\n", 1<<20)
	for name, src := range map[string]string{"main.lua": deep, "deep.lua": deep, "big.lua": big} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	L, _ := newSandbox(t, Options{ScriptDir: dir})
	path := filepath.Join(dir, "main.lua")
	_, err := LoadFile(L, path)
	var le *sandbox.SourceLimitError
	if !errors.As(err, &le) || le.Limit != "Depth" || err.Error() != path+":1: source nested deeper than 200 levels (the source depth limit)" {
		t.Fatalf("LoadFile: %v, want the depth limit", err)
	}
	_, err = LoadFile(L, filepath.Join(dir, "big.lua"))
	if line := 1 + strings.Count(big[:sandbox.DefaultSourceBytes], "\n"); !errors.As(err, &le) || le.Limit != "Bytes" || le.Line != line {
		t.Fatalf("LoadFile(big.lua): %v, want the size limit at line %d", err, line)
	}
	msg := luaeval.Err(t, L, `require "deep"`)
	if !strings.Contains(msg, "error loading module 'deep'") || !strings.Contains(msg, "deep.lua:1: source nested deeper than 200 levels") {
		t.Fatalf("require: %q", msg)
	}
}

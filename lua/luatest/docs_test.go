package luatest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The test examples of the docs pass under HostState: the first Lua block
// after each heading or sentence named here.
func TestDocExamples(t *testing.T) {
	for _, tc := range []struct{ doc, after string }{
		{"../../docs/lua-api.md", "### The test harness"},
		{"../../docs/lua-api.md", "- `hs:jobs()` lists what `hs:count()` counts"},
		{"../../README.md", "save it as `tour_test.lua`"},
		{"../../docs/lua-api.md", "A test of handles and spawn"},
	} {
		src, err := os.ReadFile(tc.doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(src)
		i := strings.Index(text, tc.after)
		m := regexp.MustCompile("(?s)```lua\n(.*?)```").FindStringSubmatch(text[max(i, 0):])
		if i < 0 || m == nil {
			t.Errorf("%s: no Lua block after %q", tc.doc, tc.after)
			continue
		}
		path := filepath.Join(t.TempDir(), "example_test.lua")
		if err := os.WriteFile(path, []byte(m[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		results, err := Run(context.Background(), []string{path}, HostState(io.Discard), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s := Summarize(results); s.Failed > 0 || s.Passed == 0 {
			var b strings.Builder
			_ = Report(&b, results)
			t.Errorf("%s, the example after %q:\n%s", tc.doc, tc.after, b.String())
		}
	}
}

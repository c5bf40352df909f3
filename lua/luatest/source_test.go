package luatest

import (
	"strings"
	"testing"
)

// A test file nested past the source depth limit fails to load with the
// limit's error, before gopher-lua's compiler recurses into it.
func TestFileOverSourceLimitFailsToLoad(t *testing.T) {
	results, report := runDir(t, "testdata/source")
	want := "testdata/source/deep_test.lua:3: source nested deeper than 200 levels (the source depth limit)"
	if len(results) != 1 || results[0].Name != "" || strings.SplitN(results[0].String(), "\n", 2)[0] != want {
		t.Fatalf("results %+v, want one load failure %q:\n%s", results, want, report)
	}
	if !strings.HasSuffix(report, "\n0 passed, 1 failed\n") {
		t.Errorf("summary: %q", report)
	}
}

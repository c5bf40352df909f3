package main

import (
	"strings"
	"testing"
)

// A table facet whose update lookup raises ended `metronome run` with a Go
// panic (exit 2); it is the facet's error, named as one.
func TestRunTableFacetLookupError(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "run", "testdata/crash/facet_lookup.lua")
	if code != 1 || out != "" ||
		!strings.HasPrefix(errOut, "testdata/crash/facet_lookup.lua:6: no update here\nstack traceback:\n") ||
		!strings.HasSuffix(errOut, "\t[G]: in the lookup of method 'update'\n\t[facet] \"bad\"\n(at 0.016667s of virtual time)\n") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// A test that filled the value stack ended `metronome test` with a Go panic:
// the other files never ran and no summary was printed.
func TestTestRegistryOverflowFailsTheTest(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "test", "testdata/crash/overflow_test.lua", "testdata/suite/pass_test.lua")
	if code != 1 || errOut != "" ||
		!strings.Contains(out, "testdata/crash/overflow_test.lua:5: unpack: bad argument #1 to 'unpack' (too many results to unpack: 6000, at most 4096)\n") ||
		!strings.Contains(out, "testdata/crash/overflow_test.lua:20: overflow in pcall: registry overflow\n") ||
		!strings.HasSuffix(out, "3 passed, 2 failed, 1 skipped\n") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
}

// math.random repeats under one --seed and differs under another; the
// default is a fixed seed, 0.
func TestSeed(t *testing.T) {
	for _, cmd := range [][]string{{"run", "testdata/crash/random.lua"}, {"test", "testdata/crash/random_test.lua"}} {
		draw := func(seed ...string) string {
			t.Helper()
			args := append(append([]string{cmd[0]}, seed...), cmd[1])
			_, out, errOut := cli(t, t.Context(), args...)
			if out == "" || errOut != "" {
				t.Fatalf("%v: stdout %q, stderr %q", args, out, errOut)
			}
			return out
		}
		a, b, c := draw("--seed", "1"), draw("--seed", "1"), draw("--seed", "2")
		if a != b || a == c {
			t.Errorf("%s: --seed 1 twice and --seed 2 gave\n%s\n%s\n%s", cmd[0], a, b, c)
		}
		if draw() != draw("--seed", "0") {
			t.Errorf("%s: the default seed is not 0", cmd[0])
		}
	}
}

package main

import (
	"encoding/xml"
	"strconv"
	"strings"
	"testing"
)

const harnessFile = "testdata/harness/harness_test.lua"

func TestTestCommandVerbose(t *testing.T) {
	code, out, _ := cli(t, t.Context(), "test", "-v", "--filter", "^menu", harnessFile)
	lines := strings.Split(out, "\n")
	if code != 1 || len(lines) < 3 ||
		!strings.HasPrefix(lines[0], "pass "+harnessFile+": menu opens (") ||
		lines[1] != "    log: menu has 0 jobs" || // a passing test's t:log shows under -v
		!strings.HasPrefix(lines[2], "fail "+harnessFile+": menu fails (") ||
		!strings.HasSuffix(out, "\n1 passed, 1 failed\n") {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
}

func TestTestCommandFilter(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "test", "--filter", "draws", harnessFile)
	if code != 0 || out != "draw 418\n1 passed, 0 failed\n" || errOut != "" {
		t.Errorf("draws: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = cli(t, t.Context(), "test", "--filter", "nothing here", harnessFile)
	if code != 1 || out != "(run): --filter \"nothing here\" matches no test\n0 passed, 1 failed\n" {
		t.Errorf("no match: exit %d, stdout %q", code, out)
	}
	code, _, errOut = cli(t, t.Context(), "test", "--filter", "[a", harnessFile)
	if code != 2 || !strings.HasPrefix(errOut, `metronome test: --filter "[a" is not a Lua pattern: unexpected EOS at 1`) {
		t.Errorf("bad pattern: exit %d, stderr %q", code, errOut)
	}
	// A Lua pattern has no alternation: a|b would match nothing, silently.
	for _, f := range []string{`draws\|opens`, "draws|opens"} {
		code, out, errOut = cli(t, t.Context(), "test", "--filter", f, harnessFile)
		want := "metronome test: --filter " + strconv.Quote(f) + " is a Lua pattern, which has no alternation: '|' matches itself; run one pattern per name, or one that all the names match\nusage: metronome test [flags] [PATH...]; see metronome test -h\n"
		if code != 2 || out != "" || errOut != want {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", f, code, out, errOut, want)
		}
	}
	if code, _, _ = cli(t, t.Context(), "test", "--filter", "a%|b", harnessFile); code != 1 {
		t.Errorf("an escaped %%| is a literal bar: exit %d", code)
	}
}

// --seed reseeds math.random per test from the seed, the file and the
// test's name: a test draws the same alone or in the full run, and another
// seed draws otherwise.
func TestTestCommandSeedPerTest(t *testing.T) {
	_, all, _ := cli(t, t.Context(), "test", "--seed", "7", harnessFile)
	_, alone, _ := cli(t, t.Context(), "test", "--seed", "7", "--filter", "draws", harnessFile)
	_, other, _ := cli(t, t.Context(), "test", "--seed", "8", "--filter", "draws", harnessFile)
	draw := func(out string) string { line, _, _ := strings.Cut(out, "\n"); return line }
	if draw(all) != draw(alone) || draw(alone) == draw(other) || !strings.HasPrefix(draw(all), "draw ") {
		t.Errorf("seed 7: %q, alone %q; seed 8: %q", draw(all), draw(alone), draw(other))
	}
}

func TestTestCommandTAP(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "test", "--format", "tap", harnessFile)
	want := `TAP version 14
ok 1 - testdata/harness/harness_test.lua: draws
ok 2 - testdata/harness/harness_test.lua: menu opens
not ok 3 - testdata/harness/harness_test.lua: menu fails
  ---
  message: "values differ"
  at: "testdata/harness/harness_test.lua:14"
  details:
    - "got: 1"
    - "want: 2"
  ...
1..3
# 2 passed, 1 failed
`
	// print goes to stderr: stdout is the report alone
	if code != 1 || out != want || errOut != "draw 418\n" {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errOut, out, want)
	}
}

func TestTestCommandJUnit(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "test", "--format", "junit", harnessFile)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	if code != 1 || errOut != "draw 418\n" || doc.Tests != 3 || doc.Failures != 1 || len(doc.Suites) != 1 ||
		doc.Suites[0].Name != harnessFile || doc.Suites[0].Cases[2].Name != "menu fails" ||
		doc.Suites[0].Cases[2].Failure == nil || doc.Suites[0].Cases[2].Failure.Message != "values differ" {
		t.Errorf("exit %d, stderr %q, report %+v", code, errOut, doc)
	}
}

func TestTestCommandBadFormat(t *testing.T) {
	code, out, errOut := cli(t, t.Context(), "test", "--format", "xml", harnessFile)
	if code != 2 || out != "" || !strings.Contains(errOut, `invalid value "xml" for flag -format: want tap or junit, got "xml"`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

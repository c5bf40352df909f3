package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in examples/testdata and testdata/timeline")

// TestExamples runs every examples/*.lua with `metronome run` from the
// repository's root, as the docs show, and checks what it prints against
// examples/testdata/NAME.golden (stdout, then stderr after a marker line
// when there is any). quickstart.trace.golden is quickstart's --trace.
// `go test ./cmd/metronome -run TestExamples -update` rewrites them.
func TestExamples(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	scripts, err := filepath.Glob(filepath.Join("examples", "*.lua"))
	if err != nil || len(scripts) < 6 {
		t.Fatalf("examples: %v, %v", scripts, err)
	}
	type example struct {
		args   []string
		golden string
		trace  bool // the golden holds stderr (the trace) only
	}
	var runs []example
	for _, s := range scripts {
		name := strings.TrimSuffix(filepath.Base(s), ".lua")
		runs = append(runs, example{args: []string{"run", filepath.ToSlash(s)}, golden: name + ".golden"})
	}
	runs = append(runs, example{args: []string{"run", "--trace", "examples/quickstart.lua"}, golden: "quickstart.trace.golden", trace: true})

	for _, r := range runs {
		t.Run(r.golden, func(t *testing.T) {
			code, out, errOut := cli(t, t.Context(), r.args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			got := out
			switch {
			case r.trace:
				got = errOut
			case errOut != "":
				got += "--- stderr ---\n" + errOut
			}
			path := filepath.Join("examples", "testdata", r.golden)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("metronome %s differs from %s:\n%s", strings.Join(r.args, " "), path, diffLines(string(want), got))
			}
		})
	}
}

// diffLines shows the first lines where want and got differ.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}

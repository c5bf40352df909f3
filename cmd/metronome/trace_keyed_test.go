package main

import "testing"

// A keyed tick's trace line names its key, generation and the three
// indices; the tick after the 25 ms handler reports the skipped one.
func TestRunTraceKeyedTicks(t *testing.T) {
	exact(t, []string{"run", "--trace", "testdata/trace_keyed.lua"}, 0, "",
		`0.01s  timer  #1  testdata/trace_keyed.lua:4  key "regen"  generation 1  delivery 1  scheduled 1  skipped 0
0.035s  timer  #1  testdata/trace_keyed.lua:4  key "regen"  generation 1  delivery 2  scheduled 3  skipped 1
0.04s  timer  #1  testdata/trace_keyed.lua:4  key "regen"  generation 1  delivery 3  scheduled 4  skipped 0
`)
}

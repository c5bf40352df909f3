package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/metronome-rt/metronome/lua/luatest"
)

// testFlags are the report flags of `metronome test`: -v, --filter and
// --format.
type testFlags struct {
	verbose bool
	filter  string
	format  string // "", "tap" or "junit"
}

func (f *testFlags) bind(fs *flag.FlagSet) {
	fs.BoolVar(&f.verbose, "v", false, "print each test's name and wall time as it finishes, and a passing test's t:log lines")
	fs.StringVar(&f.filter, "filter", "", "run only the tests whose full name matches the Lua `PATTERN`")
	fs.Func("format", "write the report as `FORMAT`: tap (TAP version 14) or junit (JUnit XML)", func(v string) error {
		if v != "tap" && v != "junit" {
			return fmt.Errorf("want tap or junit, got %q", v)
		}
		f.format = v
		return nil
	})
}

// check refuses a --filter that is not a Lua pattern.
func (f *testFlags) check() error {
	if _, err := luatest.CompileFilter(f.filter); err != nil {
		return usageError("--" + err.Error())
	}
	return nil
}

func (f *testFlags) options(out streams) luatest.Options {
	o := luatest.Options{Filter: f.filter}
	if f.verbose && f.format == "" {
		o.OnResult = func(r luatest.Result) { fmt.Fprintln(out.stdout, luatest.Verbose(r)) }
	}
	return o
}

// report writes the results in the chosen format.
func (f *testFlags) report(w io.Writer, results []luatest.Result) error {
	switch f.format {
	case "tap":
		return luatest.ReportTAP(w, results)
	case "junit":
		return luatest.ReportJUnit(w, results)
	}
	return luatest.Report(w, results)
}

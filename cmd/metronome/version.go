package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is the release, set when linking:
// go build -ldflags "-X main.version=v1.2.3" ./cmd/metronome
var version string

// versionString is version, else the main module's version from the build
// info (set by go install module@version), else "devel".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "Print the version.",
		about:   "Version prints metronome's version and the Go toolchain that built it.",
		bind: func(_ *flag.FlagSet, out streams) func(context.Context, []string) error {
			return func(_ context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("version takes no arguments")
				}
				_, err := fmt.Fprintf(out.stdout, "metronome %s %s %s/%s\n",
					versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
				return err
			}
		},
	}
}

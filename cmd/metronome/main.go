// Command metronome runs Lua scripts on the Metronome runtime and runs their
// test suites. See `metronome -h`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal stops the host loop; the next one kills the process,
	// even while a script is busy inside Lua.
	go func() { <-ctx.Done(); stop() }()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

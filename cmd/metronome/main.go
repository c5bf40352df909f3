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
	// The first signal cancels ctx, which stops the host loop and the Lua
	// VM at its next instruction; a second one ends the process at once
	// (a long builtin, say, that checks no budget).
	go func() { <-ctx.Done(); stop() }()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

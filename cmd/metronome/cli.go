package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/metronome-rt/metronome/internal/nearest"
)

// command is one metronome subcommand. bind registers its flags on its own
// FlagSet and returns the function that runs it on the arguments left after
// them: flags are parsed in one place (run) for every command.
type command struct {
	name     string
	synopsis string // what follows "metronome NAME" in usage
	summary  string // one line in the command list
	about    string // the paragraph of `metronome NAME -h`
	bind     func(fs *flag.FlagSet, out streams) func(ctx context.Context, args []string) error
}

type streams struct {
	stdout, stderr io.Writer
}

// commands lists the subcommands in the order usage shows them.
func commands() []*command {
	return []*command{runCommand(), testCommand(), checkCommand(), occurrencesCommand(), versionCommand(), helpCommand()}
}

func lookup(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is the whole CLI: it returns the exit status, 0 on success, 1 when the
// work failed, 2 for a usage error, 130 when ctx was cancelled (a signal).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out := streams{stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, "metronome: no command given\n\n")
		writeUsage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		writeUsage(stdout)
		return 0
	}
	cmd := lookup(args[0])
	if cmd == nil {
		var names []string
		for _, c := range commands() {
			names = append(names, c.name)
		}
		fmt.Fprintf(stderr, "metronome: unknown command %q%s\nsee metronome -h for the commands\n", args[0], nearest.Phrase(nearest.Names(args[0], names, 3)))
		return 2
	}
	fs, exec := cmd.flagSet(out)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			cmd.writeUsage(stdout, fs)
			return 0
		}
		cmd.writeUsageError(stderr, err.Error())
		return 2
	}
	err := exec(ctx, fs.Args())
	var usage usageError
	var exit exitError
	var script *scriptError
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "metronome %s: interrupted\n", cmd.name)
		return 130
	case errors.As(err, &usage):
		cmd.writeUsageError(stderr, string(usage))
		return 2
	case errors.As(err, &exit):
		return int(exit)
	case errors.As(err, &script):
		fmt.Fprintln(stderr, script.Error())
		return 1
	default:
		fmt.Fprintf(stderr, "metronome %s: %v\n", cmd.name, err)
		return 1
	}
}

// flagSet makes the command's FlagSet; parse errors come back from Parse
// instead of being printed, so run decides where usage goes.
func (c *command) flagSet(out streams) (*flag.FlagSet, func(context.Context, []string) error) {
	fs := flag.NewFlagSet("metronome "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs, c.bind(fs, out)
}

// usageError is a bad command line: run prints it with the command's usage
// and exits 2.
type usageError string

func (e usageError) Error() string { return string(e) }

// exitError ends the command with a status and no message (the command has
// already said what went wrong, as a test report does).
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// scriptError is a Lua error that reached the top: "file:line: message" and
// a traceback, printed as they are.
type scriptError struct {
	msg, traceback string
	context        string // a last line: when, in run's loop
}

func (e *scriptError) Error() string {
	s := e.msg
	if e.traceback != "" {
		s += "\n" + e.traceback
	}
	if e.context != "" {
		s += "\n" + e.context
	}
	return s
}

func writeUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("Metronome runs Lua scripts on an exact-time scheduling runtime.\n\n")
	b.WriteString("Usage:\n  metronome <command> [flags] [arguments]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %s\n      %s\n", strings.TrimSpace(c.name+" "+c.synopsis), c.summary)
		fs, _ := c.flagSet(streams{stdout: io.Discard, stderr: io.Discard})
		for _, l := range flagLines(fs) {
			b.WriteString("      " + l + "\n")
		}
	}
	b.WriteString("\nEvery command takes -h or --help.\n")
	io.WriteString(w, b.String())
}

// writeUsageError writes a bad command line's message and a short usage
// line that points to the full help.
func (c *command) writeUsageError(w io.Writer, msg string) {
	fmt.Fprintf(w, "metronome %s: %s\nusage: metronome %s; see metronome %s -h\n", c.name, msg, strings.TrimSpace(c.name+" "+c.synopsis), c.name)
}

func (c *command) writeUsage(w io.Writer, fs *flag.FlagSet) {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage:\n  metronome %s\n\n", strings.TrimSpace(c.name+" "+c.synopsis))
	b.WriteString(c.about + "\n\nFlags:\n")
	for _, l := range flagLines(fs, "-h, --help", "show this help") {
		b.WriteString("  " + l + "\n")
	}
	io.WriteString(w, b.String())
}

// flagLines describes a FlagSet's flags, one per line, names aligned;
// extra is more name, usage pairs to list after them.
func flagLines(fs *flag.FlagSet, extra ...string) []string {
	type line struct{ name, usage string }
	var lines []line
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if len(f.Name) == 1 {
			name = "-" + f.Name // -v, as go test spells it
		}
		if arg != "" {
			name += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		width = max(width, len(name))
		lines = append(lines, line{name, usage})
	})
	for i := 0; i+1 < len(extra); i += 2 {
		width = max(width, len(extra[i]))
		lines = append(lines, line{extra[i], extra[i+1]})
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf("%-*s  %s", width, l.name, l.usage)
	}
	return out
}

func helpCommand() *command {
	return &command{
		name:     "help",
		synopsis: "[COMMAND]",
		summary:  "Print help for a command, or this list.",
		about:    "Help prints the usage of COMMAND, or the list of commands.",
		bind: func(_ *flag.FlagSet, out streams) func(context.Context, []string) error {
			return func(_ context.Context, args []string) error {
				switch len(args) {
				case 0:
					writeUsage(out.stdout)
					return nil
				case 1:
					c := lookup(args[0])
					if c == nil {
						return usageError(fmt.Sprintf("unknown command %q", args[0]))
					}
					fs, _ := c.flagSet(out)
					c.writeUsage(out.stdout, fs)
					return nil
				}
				return usageError("help takes at most one command")
			}
		},
	}
}

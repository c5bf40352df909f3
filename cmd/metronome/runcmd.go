package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	glua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua"
)

// runOptions is one `metronome run`: the command's flags fill it in and
// runScript carries it out, so new flags are a field here and a line in
// runCommand.
type runOptions struct {
	Script  string    // the main chunk's path; its folder is where require looks
	Args    []string  // the script's arguments: its ... and arg[1..]
	AllowIO bool      // open io and the full os library
	Stdout  io.Writer // where print goes
}

func runCommand() *command {
	return &command{
		name:     "run",
		synopsis: "[flags] FILE.lua [args...]",
		summary:  "Run a script in a sandboxed state.",
		about: `Run runs FILE.lua in a sandboxed state: no io, os limited to time, clock
and date (UTC), require limited to built-in modules and FILE.lua's folder.
The arguments after FILE.lua reach the script as ... and as arg[1..]
(arg[0] is FILE.lua). Flags go before FILE.lua. An uncaught error prints
file:line: message and a stack traceback, and exits 1.`,
		bind: func(fs *flag.FlagSet, out streams) func(context.Context, []string) error {
			o := runOptions{Stdout: out.stdout}
			fs.BoolVar(&o.AllowIO, "allow-io", false, "open io and the full os library")
			return func(ctx context.Context, args []string) error {
				if len(args) == 0 {
					return usageError("no script given")
				}
				o.Script, o.Args = args[0], args[1:]
				return runScript(ctx, o)
			}
		},
	}
}

// runScript runs the main chunk of o.Script with o.Args. A Lua error comes
// back as a *scriptError; a file that cannot be read as a plain error.
func runScript(ctx context.Context, o runOptions) error {
	L := newState(ctx, filepath.Dir(o.Script), o.AllowIO, o.Stdout)
	defer L.Close()

	fn, err := lua.LoadFile(L, o.Script)
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			return err
		}
		return &scriptError{msg: err.Error()}
	}
	argv := L.CreateTable(len(o.Args), 1)
	argv.RawSetInt(0, glua.LString(o.Script))
	for i, a := range o.Args {
		argv.RawSetInt(i+1, glua.LString(a))
	}
	L.SetGlobal("arg", argv)

	L.Push(fn)
	for _, a := range o.Args {
		L.Push(glua.LString(a))
	}
	if err := L.PCall(len(o.Args), 0, nil); err != nil {
		return luaError(L, err)
	}
	return nil
}

// newState is the state both run and test give a script: sandboxed,
// requiring from dir, printing to stdout, stopped when ctx is done.
func newState(ctx context.Context, dir string, allowIO bool, stdout io.Writer) *glua.LState {
	L := lua.NewState(lua.Options{AllowIO: allowIO, ScriptDir: dir, Stdout: stdout})
	L.SetContext(ctx)
	return L
}

// luaError turns an error from PCall into a *scriptError.
func luaError(L *glua.LState, err error) error {
	var api *glua.ApiError
	if !errors.As(err, &api) {
		return err
	}
	var msg string
	switch v := api.Object.(type) {
	case glua.LString:
		msg = string(v)
	case glua.LNumber:
		msg = v.String()
	default:
		msg = fmt.Sprintf("(error object is a %s value)", v.Type())
		if L.GetMetaField(v, "__tostring") != glua.LNil {
			tostring := L.NewFunction(func(L *glua.LState) int {
				L.Push(L.ToStringMeta(L.Get(1)))
				return 1
			})
			if err := L.CallByParam(glua.P{Fn: tostring, NRet: 1, Protect: true}, v); err == nil {
				msg = L.Get(-1).String()
				L.Pop(1)
			}
		}
	}
	return &scriptError{msg: msg, traceback: api.StackTrace}
}

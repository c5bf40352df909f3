package scripting

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/metronome-rt/metronome/lua/sandbox"
	lua "github.com/yuin/gopher-lua"
)

// FennelEnv is the environment variable the metronome command reads for the
// Fennel compiler when --fennel is not given.
const FennelEnv = "METRONOME_FENNEL"

// fennelFile is the compiler's file name in a script's folder.
const fennelFile = "fennel.lua"

// maxCompilerBytes bounds the compiler file Metronome reads: a release's
// fennel.lua is about 300 KB.
const maxCompilerBytes = 16 << 20

// isFennel reports whether path names Fennel source (a .fnl file).
func isFennel(path string) bool { return strings.HasSuffix(path, ".fnl") }

// NoFennelError is the error for Fennel source in a state without a
// compiler. Its message is one line that says how to provide one.
type NoFennelError struct {
	Script string // the .fnl file
}

func (e *NoFennelError) Error() string {
	return fmt.Sprintf("%s is Fennel source: put fennel.lua (the Fennel compiler) beside it, set %s, or pass --fennel FILE", e.Script, FennelEnv)
}

// FennelCompiler returns the compiler a script at script should use: flag
// when set, then the variable FennelEnv, then fennel.lua in the script's
// folder when there is one; "" when none is found.
func FennelCompiler(flag, script string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv(FennelEnv); env != "" {
		return env
	}
	p := filepath.Join(filepath.Dir(script), fennelFile)
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		return p
	}
	return ""
}

const fennelKey = "metronome.fennel"

// fennelSlot is a state's compiler: where it is and, once a .fnl file has
// needed it, its loaded module and compile function.
type fennelSlot struct {
	path    string // "" : fennel.lua in dir when it exists
	dir     string
	compile *lua.LFunction // (src, filename) -> lua source
}

func installFennel(L *lua.LState, path, dir string) {
	ud := L.NewUserData()
	ud.Value = &fennelSlot{path: path, dir: dir}
	L.G.Registry.RawSetString(fennelKey, ud)
}

func fennelSlotOf(L *lua.LState) *fennelSlot {
	if ud, ok := L.G.Registry.RawGetString(fennelKey).(*lua.LUserData); ok {
		if s, ok := ud.Value.(*fennelSlot); ok {
			return s
		}
	}
	return &fennelSlot{}
}

// fennelGlue runs once the compiler module is loaded. It makes the
// compiler's macro searchers find macro modules through read (the folder
// rule; no io) and returns the function that compiles one file to Lua
// source and its source map: for each Lua line, { filename, fennel-line }.
const fennelGlue = `
local fennel, read = ...
local searchers = fennel["macro-searchers"] or fennel.macroSearchers
if searchers then
  for i = #searchers, 1, -1 do table.remove(searchers, i) end
  table.insert(searchers, function(name)
    local src, path = read(name)
    if not src then return nil end
    return function(modname)
      return fennel.eval(src, { env = "_COMPILER", filename = path,
        ["module-name"] = modname, correlate = true })
    end, path
  end)
end
fennel.path, fennel["macro-path"] = "", ""
-- A call the compiler rewrites (a method call, a.b:c) loses its line;
-- it takes the line of the call it came from.
local last
local lines = { name = "metronome-lines", call = function(ast)
  if type(ast) ~= "table" then return end
  if ast.line then last = ast
  elseif last then ast.line, ast.filename = last.line, last.filename end
end }
return function(src, filename)
  last = nil
  return fennel.compileString(src, { filename = filename, plugins = { lines } })
end
`

// fennelCompile returns the compile function of L's compiler, loading the
// compiler the first time. script is the .fnl file that needs it.
func fennelCompile(L *lua.LState, script string) (*lua.LFunction, error) {
	slot := fennelSlotOf(L)
	if slot.compile != nil {
		return slot.compile, nil
	}
	path := slot.path
	if path == "" && slot.dir != "" {
		p := filepath.Join(slot.dir, fennelFile)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			path = p
		}
	}
	if path == "" {
		return nil, &NoFennelError{Script: script}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the Fennel compiler: %w", err)
	}
	src, err := io.ReadAll(io.LimitReader(f, maxCompilerBytes+1))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("the Fennel compiler: %w", err)
	}
	if len(src) > maxCompilerBytes || strings.HasPrefix(string(src), "\x1b") {
		return nil, fmt.Errorf("the Fennel compiler %s: want Lua source of at most %d bytes", path, maxCompilerBytes)
	}
	// The compiler is the operator's choice, not script input, and a
	// release is larger and deeper than the script source limits allow.
	chunk, err := sandbox.CompileTrusted(L, string(src), path)
	if err != nil {
		return nil, fmt.Errorf("the Fennel compiler %s: %v", path, err)
	}
	// The sandbox has no debug library; the compiler's macro error
	// handler calls debug.traceback and drops its last line, so this one
	// gives the message and an empty traceback.
	env := L.NewTable()
	dbg := L.NewTable()
	dbg.RawSetString("traceback", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(L.ToStringMeta(L.Get(1)).String() + "\nstack traceback:"))
		return 1
	}))
	env.RawSetString("debug", dbg)
	meta := L.NewTable()
	meta.RawSetString("__index", L.G.Global)
	L.SetMetatable(env, meta)
	chunk.Env = env
	L.Push(chunk)
	L.Push(lua.LString("fennel"))
	if err := PCall(L, 1, 1, nil); err != nil {
		return nil, fmt.Errorf("the Fennel compiler %s: %w", path, err)
	}
	ret := L.Get(-1)
	L.Pop(1)
	mod, ok := ret.(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("the Fennel compiler %s: it returned %s, want the fennel module table", path, ret.Type())
	}
	if loaded, ok := L.GetField(L.Get(lua.RegistryIndex), "_LOADED").(*lua.LTable); ok {
		loaded.RawSetString("fennel", mod)
	}
	glue, err := L.LoadString(fennelGlue)
	if err != nil {
		panic(err) // fennelGlue is ours
	}
	L.Push(glue)
	L.Push(mod)
	L.Push(L.NewFunction(readMacroModule))
	if err := PCall(L, 2, 1, nil); err != nil {
		return nil, fmt.Errorf("the Fennel compiler %s: %w", path, err)
	}
	fn, ok := L.Get(-1).(*lua.LFunction)
	L.Pop(1)
	if !ok {
		return nil, fmt.Errorf("the Fennel compiler %s: no compileString", path)
	}
	slot.compile = fn
	return fn, nil
}

// readMacroModule is read(name) for the macro searcher: the source and
// path of NAME.fnl, NAME/init-macros.fnl or NAME/init.fnl in the script
// folder, or nil.
func readMacroModule(L *lua.LState) int {
	name := L.CheckString(1)
	dir := fennelSlotOf(L).dir
	base, err := moduleBase(name)
	if err != nil {
		raise(L, "import-macros %q: %v", name, err)
	}
	if dir == "" {
		return 0
	}
	for _, rel := range []string{base + ".fnl", filepath.Join(base, "init-macros.fnl"), filepath.Join(base, "init.fnl")} {
		path := filepath.Join(dir, rel)
		if fi, err := os.Stat(path); err != nil || fi.IsDir() {
			continue
		}
		if err := inScriptDir(dir, path); err != nil {
			raise(L, "import-macros %q: %s: %v", name, rel, err)
		}
		src, err := sandbox.ReadSource(L, path)
		if err != nil {
			raise(L, "import-macros %q: %v", name, err)
		}
		L.Push(lua.LString(src))
		L.Push(lua.LString(path))
		return 2
	}
	return 0
}

// compileFennel compiles the Fennel source src of the file path to Lua
// with the state's compiler and loads it under the chunk name path: its
// lines are the .fnl file's lines.
func compileFennel(L *lua.LState, src, path string) (*lua.LFunction, error) {
	compile, err := fennelCompile(L, path)
	if err != nil {
		return nil, err
	}
	L.Push(compile)
	L.Push(lua.LString(src))
	L.Push(lua.LString(path))
	if err := PCall(L, 2, 2, nil); err != nil {
		return nil, &fennelError{msg: fennelErrorMessage(L, path, err), err: err}
	}
	ret, smap := L.Get(-2), L.Get(-1)
	L.Pop(2)
	out, ok := ret.(lua.LString)
	if !ok {
		return nil, fmt.Errorf("%s: the Fennel compiler returned %s, want Lua source", path, ret.Type())
	}
	lines := fennelLines(smap)
	fn, err := sandbox.Compile(L, string(out), path)
	if le := (*sandbox.SourceLimitError)(nil); errors.As(err, &le) {
		le.Line = lines.at(le.Line)
	}
	if err != nil {
		return nil, err
	}
	lines.remap(fn.Proto)
	return fn, nil
}

// fennelError is a Fennel compile error: the compiler's message, with the
// error of its call.
type fennelError struct {
	msg string
	err error
}

func (e *fennelError) Error() string { return e.msg }
func (e *fennelError) Unwrap() error { return e.err }

// fennelLineMap maps a line of compiled Lua (index 1 is line 1) to the line
// of the .fnl source it came from; nil maps each line to itself.
type fennelLineMap []int

// fennelLines reads the compiler's source map, a list with one
// { filename, line } per Lua line. Lines without a source position (code
// the compiler generated) take the line before them.
func fennelLines(smap lua.LValue) fennelLineMap {
	t, ok := smap.(*lua.LTable)
	if !ok || t.Len() == 0 {
		return nil
	}
	n := t.Len()
	lines := make(fennelLineMap, n+1)
	last, first := 0, 0
	for i := 1; i <= n; i++ {
		if e, ok := t.RawGetInt(i).(*lua.LTable); ok {
			if l, ok := e.RawGetInt(2).(lua.LNumber); ok && l > 0 {
				last = int(l)
				if first == 0 {
					first = last
				}
			}
		}
		lines[i] = last
	}
	for i := 1; i <= n && lines[i] == 0; i++ {
		lines[i] = first
	}
	return lines
}

func (m fennelLineMap) at(line int) int {
	if line <= 0 || line >= len(m) || m[line] == 0 {
		if len(m) > 0 && line >= len(m) {
			return m[len(m)-1]
		}
		return line
	}
	return m[line]
}

// remap rewrites the line information of p and the functions in it, so
// every position the state reports (errors, tracebacks, where a job was
// scheduled) is a line of the .fnl file, at no cost when it runs.
func (m fennelLineMap) remap(p *lua.FunctionProto) {
	if m == nil {
		return
	}
	for i, l := range p.DbgSourcePositions {
		p.DbgSourcePositions[i] = m.at(l)
	}
	if p.LineDefined > 0 {
		p.LineDefined = m.at(p.LineDefined)
	}
	if p.LastLineDefined > 0 {
		p.LastLineDefined = m.at(p.LastLineDefined)
	}
	for _, c := range p.FunctionPrototypes {
		m.remap(c)
	}
}

// fennelErrorMessage turns a compile error into "path:line: message", one
// line: Fennel's read "path:line:col: Parse error: ..." followed by the
// source line and hints.
func fennelErrorMessage(L *lua.LState, path string, err error) string {
	var api *lua.ApiError
	msg := err.Error()
	if errors.As(err, &api) {
		msg = sandbox.ErrorText(L, api.Object)
	}
	msg, _, _ = strings.Cut(msg, "\n")
	msg = strings.TrimSpace(msg)
	if rest, ok := strings.CutPrefix(msg, path+":"); ok {
		line, rest, _ := strings.Cut(rest, ":")
		if col, after, ok := strings.Cut(rest, ":"); ok && isDigits(col) {
			rest = after
		}
		if isDigits(line) {
			return path + ":" + line + ": " + strings.TrimSpace(rest)
		}
	}
	if strings.HasPrefix(msg, path) {
		return msg
	}
	return path + ": " + msg
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

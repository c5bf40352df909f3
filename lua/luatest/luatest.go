package luatest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/scripting"
)

// Factory makes the state that the test file at path runs in. close releases
// the state and whatever owns it; when it is nil the harness calls L.Close.
type Factory func(path string) (L *lua.LState, close func(), err error)

// Status is the outcome of one test.
type Status int

// The outcomes of a test.
const (
	Pass Status = iota
	Fail
	Skip
)

func (s Status) String() string {
	switch s {
	case Pass:
		return "pass"
	case Fail:
		return "fail"
	case Skip:
		return "skip"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result is the outcome of one test, or of a test file that failed to load.
type Result struct {
	File    string   // the test file's path, as given to Run
	Name    string   // the test's name; "" for a file that failed to load
	Status  Status   //
	Line    int      // for a failure, the line in File where it happened; 0 if unknown
	Message string   // why the test failed, or the skip reason
	Details []string // lines that explain a failure: got / want, a traceback
	Logs    []string // what the test passed to t:log, in order
}

// Find expands paths into test files: a directory is searched recursively
// for *_test.lua files (skipping folders named testdata or starting with "."
// or "_", as go test does), a file is taken as it is. The result is in
// lexical order within each path, without duplicates.
func Find(paths ...string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	add := func(path string) {
		if !seen[path] {
			seen[path] = true
			files = append(files, path)
		}
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			add(root)
			continue
		}
		var found []string
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				name := d.Name()
				if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(d.Name(), "_test.lua") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		for _, f := range found {
			add(f)
		}
	}
	return files, nil
}

// Run runs each file in a state from factory and returns one Result per test
// and one per file that failed to load, in order. Once ctx is done it starts
// no further file or test and returns the results so far with ctx's error;
// stopping a test that is running is the state's business (L.SetContext).
func Run(ctx context.Context, files []string, factory Factory) ([]Result, error) {
	var results []Result
	for _, file := range files {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		s, failed := openSuite(file, factory)
		if failed != nil {
			results = append(results, *failed)
			continue
		}
		for i := range s.tests {
			if err := ctx.Err(); err != nil {
				s.close()
				return results, err
			}
			results = append(results, s.run(i))
		}
		s.close()
	}
	return results, nil
}

// suite is one loaded test file and its state.
type suite struct {
	file    string
	L       *lua.LState
	closeFn func()
	tests   []testCase
	loaded  bool           // the main chunk finished: test() is refused from now on
	stop    *lua.LUserData // raised by a failing assertion or a skip
	meta    *lua.LTable    // metatable of t
	handler *lua.LFunction // message handler that records where an error came from
	caught  *caught        // what handler saw for the last error
	current *testCase      // the test running, for tracebacks
}

type testCase struct {
	name string
	fn   *lua.LFunction
	line int // where test(name, fn) was called
}

// caught is an error as the message handler saw it, before the stack unwound.
type caught struct {
	value     lua.LValue
	line      int
	traceback []string
}

// openSuite makes the file's state, loads it and collects its tests. A file
// that cannot be made or loaded comes back as a failed Result.
func openSuite(file string, factory Factory) (*suite, *Result) {
	fail := func(line int, msg string, details ...string) *Result {
		return &Result{File: file, Status: Fail, Line: line, Message: msg, Details: details}
	}
	L, closeFn, err := factory(file)
	if err != nil {
		return nil, fail(0, fmt.Sprintf("cannot make a state: %v", err))
	}
	if closeFn == nil {
		closeFn = L.Close
	}
	s := &suite{file: file, L: L, closeFn: closeFn, stop: L.NewUserData()}
	s.stop.Value = errStopped
	s.meta = s.newMeta()
	s.handler = L.NewFunction(s.handle)
	L.SetGlobal("test", L.NewFunction(s.register))

	fn, line, msg := loadFile(L, file)
	if fn == nil {
		s.close()
		return nil, fail(line, msg)
	}
	L.Push(fn)
	if err := scripting.PCall(L, 0, 0, s.handler); err != nil {
		line, msg, details := s.failure(err)
		s.close()
		return nil, fail(line, msg, details...)
	}
	s.loaded = true
	if len(s.tests) == 0 {
		s.close()
		return nil, fail(0, "registers no test: call test(name, fn) at its top level")
	}
	return s, nil
}

func (s *suite) close() {
	if s.closeFn != nil {
		s.closeFn()
		s.closeFn = nil
	}
}

// register is the global test(name, fn).
func (s *suite) register(L *lua.LState) int {
	name := L.CheckString(1)
	fn := L.CheckFunction(2)
	if s.loaded {
		L.RaiseError("test %q: tests are registered at the top level of the file, not while tests run", name)
	}
	line := s.fileLine(L)
	for _, tc := range s.tests {
		if tc.name == name {
			L.RaiseError("duplicate test name %q: first registered at line %d", name, tc.line)
		}
	}
	s.tests = append(s.tests, testCase{name: name, fn: fn, line: line})
	return 0
}

var errStopped = errors.New("luatest: test stopped")

// run runs test i in the suite's state.
func (s *suite) run(i int) Result {
	tc := &s.tests[i]
	t := &T{suite: s, res: Result{File: s.file, Name: tc.name}}
	ud := s.L.NewUserData()
	ud.Value = t
	ud.Metatable = s.meta
	s.current, s.caught = tc, nil
	s.L.Push(tc.fn)
	s.L.Push(ud)
	err := scripting.PCall(s.L, 1, 0, s.handler)
	s.current = nil
	t.done = true
	res := t.res
	switch {
	case res.Status != Pass:
	case err != nil:
		res.Status = Fail
		res.Line, res.Message, res.Details = s.failure(err)
	}
	return res
}

// handle is the message handler of every protected call the harness makes:
// it records the stack of an unexpected error while it still exists.
func (s *suite) handle(L *lua.LState) int {
	v := L.Get(1)
	if v != s.stop {
		s.caught = &caught{value: v, line: s.fileLine(L), traceback: s.traceback(L)}
		if m, ok := v.(lua.LString); ok && strings.Contains(string(m), "\nstack traceback:\n") {
			s.caught.traceback = nil // a callback's error carries its own
		}
	}
	L.Push(v)
	return 1
}

// failure turns an unexpected error into a line, a message and a traceback.
func (s *suite) failure(err error) (int, string, []string) {
	var api *lua.ApiError
	if !errors.As(err, &api) {
		return 0, err.Error(), nil
	}
	c := s.caught
	if c == nil || c.value != api.Object {
		// Not seen by the handler (a stack overflow, say): use gopher-lua's traceback.
		c = &caught{value: api.Object, traceback: splitTrace(api.StackTrace)}
		prefix := "  " + s.file + ":"
		for _, l := range c.traceback {
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				n, _ := strconv.Atoi(rest[:strings.IndexByte(rest+":", ':')])
				c.line = n
				break
			}
		}
	}
	msg := describe(s.L, c.value)
	if c.line > 0 {
		msg = strings.TrimPrefix(msg, fmt.Sprintf("%s:%d: ", s.file, c.line))
	}
	return c.line, msg, c.traceback
}

func splitTrace(trace string) []string {
	if trace == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(trace), "\n")
	for i, l := range lines {
		lines[i] = strings.Replace(l, "\t", "  ", 1)
	}
	return lines
}

// fileLine is the line of the innermost frame running code of the test file.
func (s *suite) fileLine(L *lua.LState) int {
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return 0
		}
		if _, err := L.GetInfo("Sl", dbg, nil); err != nil {
			continue
		}
		if dbg.Source == s.file && dbg.CurrentLine > 0 {
			return dbg.CurrentLine
		}
	}
}

// traceback describes the stack from the frame that raised the error (level
// 1, under the handler) outwards, as Lua's debug.traceback does.
func (s *suite) traceback(L *lua.LState) []string {
	var frames []string
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		fv, err := L.GetInfo("Slnf", dbg, nil)
		if err != nil {
			continue
		}
		fn, _ := fv.(*lua.LFunction)
		where := "[G]:"
		if fn != nil && !fn.IsG {
			where = fmt.Sprintf("%s:%d:", dbg.Source, dbg.CurrentLine)
		}
		var what string
		switch {
		case s.current != nil && fn == s.current.fn:
			what = fmt.Sprintf("test %q", s.current.name)
		case dbg.Name == "main chunk":
			what = "main chunk"
		case strings.HasPrefix(dbg.Name, "<") || strings.HasPrefix(dbg.Name, "("):
			what = "function " + dbg.Name
		default:
			what = fmt.Sprintf("function '%s'", dbg.Name)
		}
		frames = append(frames, "  "+where+" in "+what)
	}
	const head, tail = 10, 11
	if len(frames) > head+tail+1 {
		frames = append(append(frames[:head:head], "  ..."), frames[len(frames)-tail:]...)
	}
	return append([]string{"stack traceback:"}, frames...)
}

// loadFile compiles a test file with scripting.LoadFile, the loader of
// `metronome run` (source only: a binary chunk is refused). Its errors read
// "path:line: message" or "path: message"; line and msg are the parts.
func loadFile(L *lua.LState, path string) (fn *lua.LFunction, line int, msg string) {
	fn, err := scripting.LoadFile(L, path)
	if err == nil {
		return fn, 0, ""
	}
	msg = err.Error()
	rest, ok := strings.CutPrefix(msg, path+":")
	if !ok {
		return nil, 0, msg // the file could not be read
	}
	if n, text, ok := strings.Cut(rest, ": "); ok {
		if line, err := strconv.Atoi(n); err == nil && line > 0 {
			return nil, line, text
		}
	}
	return nil, 0, strings.TrimPrefix(rest, " ")
}

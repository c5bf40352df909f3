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
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/pm"

	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

// Factory makes the state that the test file at path runs in, and what the
// harness calls around its tests.
type Factory func(path string) (*Env, error)

// Env is one test file's state and the calls the harness makes around its
// tests. Every field but L may be nil.
type Env struct {
	L *lua.LState
	// Close releases L and whatever owns it; nil: L.Close.
	Close func()
	// Loaded is called after the main chunk ran; an error fails the file's
	// load with its text, and no test runs.
	Loaded func() error
	// Begin is called before each test, before its before_each hooks,
	// with the test's full name: it gives the test a world of its own.
	Begin func(name string)
	// End is called after each test's after_each hooks.
	End func()
}

// Options are the choices of one Run.
type Options struct {
	// Filter, when not empty, is a Lua pattern (string.find's, unanchored
	// unless it starts with ^): only tests whose full name it matches run.
	// When it matches no test of any file, Run adds one failed Result
	// saying so.
	Filter string
	// Now reads the wall clock for Result.Elapsed; nil: time.Now.
	Now func() time.Time
	// OnResult, when set, sees each Result as soon as it is known.
	OnResult func(Result)
}

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
	File    string            // the test file's path, as given to Run
	Name    string            // the test's name; "" for a file that failed to load
	Status  Status            //
	Line    int               // for a failure, the line in File where it happened; 0 if unknown
	Message string            // why the test failed, or the skip reason
	Details []string          // lines that explain a failure: got / want, a traceback
	Errored bool              // the failure is an error the test raised, not a failed check
	Logs    []string          // what the test passed to t:log, in order
	Elapsed temporal.Duration // wall time of the test with its hooks; 0 for a file that failed to load
}

// Find expands paths into test files: a directory is searched recursively
// for *_test.lua and *_test.fnl files (skipping folders named testdata or starting with "."
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
		found, err := Walk(root, func(name string) bool {
			return strings.HasSuffix(name, "_test.lua") || strings.HasSuffix(name, "_test.fnl")
		})
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			add(f)
		}
	}
	return files, nil
}

// Walk returns the files below root whose names keep accepts, sorted. It
// skips the folders Go's tools skip: testdata, and names that start with
// "." or "_" (root itself is never skipped).
func Walk(root string, keep func(name string) bool) ([]string, error) {
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if keep(name) {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(found)
	return found, nil
}

// Run runs each file in a state from factory and returns one Result per test
// and one per file that failed to load, in order. Once ctx is done it starts
// no further file or test and returns the results so far with ctx's error;
// stopping a test that is running is the state's business (L.SetContext).
// A malformed opts.Filter is an error before any file runs.
func Run(ctx context.Context, files []string, factory Factory, opts Options) ([]Result, error) {
	match, err := CompileFilter(opts.Filter)
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	var results []Result
	add := func(r Result) {
		results = append(results, r)
		if opts.OnResult != nil {
			opts.OnResult(r)
		}
	}
	matched := 0
	for _, file := range files {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		s, failed := openSuite(file, factory)
		if failed != nil {
			add(*failed)
			continue
		}
		s.now = now
		for i := range s.tests {
			if !match(s.tests[i].name) {
				continue
			}
			matched++
			if err := ctx.Err(); err != nil {
				s.close()
				return results, err
			}
			add(s.run(i))
		}
		s.close()
	}
	if opts.Filter != "" && matched == 0 {
		add(Result{Status: Fail, Message: fmt.Sprintf("--filter %q matches no test", opts.Filter)})
	}
	return results, nil
}

// CompileFilter returns the matcher of Options.Filter: pattern as
// string.find takes it, over a test's full name; "" matches every test.
func CompileFilter(pattern string) (func(name string) bool, error) {
	if pattern == "" {
		return func(string) bool { return true }, nil
	}
	if _, err := pm.Find(pattern, nil, 0, 1); err != nil {
		return nil, fmt.Errorf("filter %q is not a Lua pattern: %v", pattern, err)
	}
	if strings.Contains(pattern, `\|`) || strings.Contains(pattern, "|") && !strings.Contains(pattern, "%|") {
		return nil, fmt.Errorf("filter %q is a Lua pattern, which has no alternation: '|' matches itself; run one pattern per name, or one that all the names match", pattern)
	}
	return func(name string) bool {
		m, err := pm.Find(pattern, []byte(name), 0, 1)
		return err == nil && len(m) > 0
	}, nil
}

// suite is one loaded test file and its state.
type suite struct {
	file    string
	L       *lua.LState
	env     *Env
	tests   []testCase
	lines   map[string]int // a test's full name -> the line registering it
	scope   *scope         // where test, describe and the hooks register while loading
	loaded  bool           // the main chunk finished: registering is refused from now on
	stop    *lua.LUserData // raised by a failing assertion or a skip
	meta    *lua.LTable    // metatable of t
	handler *lua.LFunction // message handler that records where an error came from
	caught  *caught        // what handler saw for the last error
	running *lua.LFunction // the test body or hook running, for tracebacks
	what    string         // how tracebacks name running
	now     func() time.Time
}

type testCase struct {
	name  string // the full name: describe names and the test's name
	fn    *lua.LFunction
	line  int // where test(name, fn) was called
	scope *scope
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
	env, err := factory(file)
	if err != nil {
		return nil, fail(0, fmt.Sprintf("cannot make a state: %v", err))
	}
	L := env.L
	s := &suite{file: file, L: L, env: env, lines: map[string]int{}, stop: L.NewUserData(), scope: &scope{}, now: time.Now}
	s.stop.Value = errStopped
	s.meta = s.newMeta()
	s.handler = L.NewFunction(s.handle)
	s.setGlobals()

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
	if env.Loaded != nil {
		if err := env.Loaded(); err != nil {
			s.close()
			return nil, fail(0, err.Error())
		}
	}
	return s, nil
}

func (s *suite) close() {
	if s.env == nil {
		return
	}
	if s.env.Close != nil {
		s.env.Close()
	} else {
		s.L.Close()
	}
	s.env = nil
}

var errStopped = errors.New("luatest: test stopped")

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
	// An error from a callback carries its own traceback in its text: it
	// goes with the details, where a test body's traceback is, followed by
	// the frames that led to the callback.
	details := c.traceback
	if head, trace, ok := strings.Cut(msg, "\nstack traceback:\n"); ok {
		msg = head
		details = splitTrace("stack traceback:\n" + trace)
		if len(c.traceback) > 1 {
			details = append(details, c.traceback[1:]...)
		}
	}
	return c.line, msg, details
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

// fileLine is the line of the innermost frame running code of the test
// file, among the frames a traceback lists; 0 when none is.
func (s *suite) fileLine(L *lua.LState) int {
	line := 0
	sandbox.WalkStack(L, 1, func(f sandbox.StackFrame) bool {
		if f.Fn != nil && !f.Fn.IsG && f.Debug.Source == s.file && f.Debug.CurrentLine > 0 {
			line = f.Debug.CurrentLine
			return false
		}
		return true
	})
	return line
}

// checkLine is the line of the running test's (or hook's) own function
// where a failed check was called from, directly or through helpers; the
// innermost line of the test file when that function is not on the stack.
func (s *suite) checkLine(L *lua.LState) int {
	line := 0
	sandbox.WalkStack(L, 1, func(f sandbox.StackFrame) bool {
		if s.running != nil && f.Fn == s.running && f.Debug.CurrentLine > 0 {
			line = f.Debug.CurrentLine
			return false
		}
		return true
	})
	if line == 0 {
		return s.fileLine(L)
	}
	return line
}

// helperAt describes where in a helper of the test file the failed check
// ran, or "" when that is the test's own line.
func (s *suite) helperAt(L *lua.LState, testLine int) string {
	var at string
	sandbox.WalkStack(L, 1, func(f sandbox.StackFrame) bool {
		if f.Fn == nil || f.Fn.IsG || f.Debug.Source != s.file || f.Debug.CurrentLine <= 0 {
			return true
		}
		if f.Fn != s.running && f.Debug.CurrentLine != testLine {
			at = fmt.Sprintf("checked at %s:%d, in %s", f.Debug.Source, f.Debug.CurrentLine, f.What())
		}
		return false
	})
	return at
}

// traceback describes the stack from the frame that raised the error (level
// 1, under the handler) outwards, as Lua's debug.traceback does, with at
// most as many frames as sandbox.WalkStack lists.
func (s *suite) traceback(L *lua.LState) []string {
	lines := []string{"stack traceback:"}
	more := sandbox.WalkStack(L, 1, func(f sandbox.StackFrame) bool {
		name := f.Debug.Name
		var what string
		switch {
		case s.running != nil && f.Fn == s.running:
			what = s.what
		case name == "main chunk":
			what = "main chunk"
		case strings.HasPrefix(name, "<") || strings.HasPrefix(name, "("):
			what = "function " + name
		default:
			what = fmt.Sprintf("function '%s'", name)
		}
		lines = append(lines, "  "+f.Where()+" in "+what)
		if f.TailCalls > 0 {
			lines = append(lines, "  "+sandbox.TailCallLine)
		}
		return true
	})
	if more {
		lines = append(lines, "  ...")
	}
	return lines
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

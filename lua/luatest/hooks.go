package luatest

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

// scope is the file or one describe block: its hooks, and the scope it is
// in (nil for the file).
type scope struct {
	parent        *scope
	name          string // the describe block's full name; "" for the file
	before, after []*lua.LFunction
}

// chain lists the scopes from the file inwards to sc.
func (sc *scope) chain() []*scope {
	var out []*scope
	for ; sc != nil; sc = sc.parent {
		out = append(out, sc)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// join is a full name: the enclosing names and name, joined with spaces.
func (sc *scope) join(name string) string {
	if sc.name == "" {
		return name
	}
	return sc.name + " " + name
}

// setGlobals adds test, describe, before_each and after_each to the state.
func (s *suite) setGlobals() {
	s.L.SetGlobal("test", s.L.NewFunction(s.register))
	s.L.SetGlobal("describe", s.L.NewFunction(s.describe))
	s.L.SetGlobal("before_each", s.L.NewFunction(s.hook("before_each")))
	s.L.SetGlobal("after_each", s.L.NewFunction(s.hook("after_each")))
}

// register is the global test(name, fn).
func (s *suite) register(L *lua.LState) int {
	name := L.CheckString(1)
	fn := L.CheckFunction(2)
	if s.loaded {
		L.RaiseError("test %q: tests are registered while the file loads (at its top level or in a describe body), not while tests run", name)
	}
	full := s.scope.join(name)
	line := s.fileLine(L)
	if first, ok := s.lines[full]; ok {
		L.RaiseError("duplicate test name %q: first registered at line %d", full, first)
	}
	s.lines[full] = line
	s.tests = append(s.tests, testCase{name: full, fn: fn, line: line, scope: s.scope})
	return 0
}

// describe is the global describe(name, fn): fn runs at once, and what it
// registers belongs to the block.
func (s *suite) describe(L *lua.LState) int {
	name := L.CheckString(1)
	fn := L.CheckFunction(2)
	if s.loaded {
		L.RaiseError("describe %q: blocks are declared while the file loads, not while tests run", name)
	}
	outer := s.scope
	s.scope = &scope{parent: outer, name: outer.join(name)}
	defer func() { s.scope = outer }() // also when fn raises
	L.Push(fn)
	L.Call(0, 0)
	return 0
}

// hook is the global before_each(fn) or after_each(fn).
func (s *suite) hook(kind string) lua.LGFunction {
	return func(L *lua.LState) int {
		fn := L.CheckFunction(1)
		if s.loaded {
			L.RaiseError("%s: hooks are registered while the file loads (at its top level or in a describe body), not while tests run", kind)
		}
		if kind == "before_each" {
			s.scope.before = append(s.scope.before, fn)
		} else {
			s.scope.after = append(s.scope.after, fn)
		}
		return 0
	}
}

// run runs test i in the suite's state: Env.Begin, the before_each hooks
// from the file inwards, the body, the after_each hooks from the innermost
// block outwards, Env.End. A before_each that fails or skips stops the
// ones after it and the body; the after_each hooks of every scope whose
// before_each hooks started still run.
func (s *suite) run(i int) Result {
	tc := &s.tests[i]
	t := &T{suite: s, res: Result{File: s.file, Name: tc.name}}
	ud := s.L.NewUserData()
	ud.Value = t
	ud.Metatable = s.meta
	start := s.now()
	if s.env.Begin != nil {
		s.env.Begin(tc.name)
	}
	chain := tc.scope.chain()
	entered := 0
	ok := true
	for _, sc := range chain {
		entered++
		for _, h := range sc.before {
			if ok = s.call(t, ud, h, fmt.Sprintf("before_each of test %q", tc.name)); !ok {
				break
			}
		}
		if !ok {
			break
		}
	}
	if ok {
		s.call(t, ud, tc.fn, fmt.Sprintf("test %q", tc.name))
	}
	for k := entered - 1; k >= 0; k-- {
		for _, h := range chain[k].after {
			s.call(t, ud, h, fmt.Sprintf("after_each of test %q", tc.name))
		}
	}
	if s.env.End != nil {
		s.env.End()
	}
	t.done = true
	res := t.res
	res.Elapsed = temporal.Duration(s.now().Sub(start))
	return res
}

// call runs fn(t) for test t, recording its first failure, and reports
// whether the test is still passing. what names fn in tracebacks.
func (s *suite) call(t *T, ud *lua.LUserData, fn *lua.LFunction, what string) bool {
	s.running, s.what, s.caught = fn, what, nil
	s.L.Push(fn)
	s.L.Push(ud)
	err := scripting.PCall(s.L, 1, 0, s.handler)
	s.running = nil
	if err != nil && t.res.Status != Fail && !(t.res.Status == Skip && s.caughtStop(err)) {
		t.res.Status, t.res.Errored = Fail, true
		t.res.Line, t.res.Message, t.res.Details = s.failure(err)
	}
	return t.res.Status == Pass
}

// caughtStop reports whether err is the stop sentinel of an assertion or a
// skip.
func (s *suite) caughtStop(err error) bool {
	api, ok := err.(*lua.ApiError)
	return ok && api.Object == s.stop
}

package luatest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/internal/nearest"
	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/lua/scripting"
)

// T is the state of one running test; Lua sees it as the t argument.
type T struct {
	suite *suite
	res   Result
	done  bool
}

func (s *suite) newMeta() *lua.LTable {
	L := s.L
	methods := L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"eq":    s.eq,
		"near":  s.near,
		"ok":    s.ok,
		"error": s.errorCheck,
		"skip":  s.skip,
		"log":   s.log,
	})
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckUserData(1).Value.(*T)
		key := L.CheckString(2)
		if key == "name" {
			L.Push(lua.LString(t.res.Name))
			return 1
		}
		if m := methods.RawGetString(key); m != lua.LNil {
			L.Push(m)
			return 1
		}
		L.RaiseError("%s", noMethod(methods, key))
		return 0
	}))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(fmt.Sprintf("test %q", L.CheckUserData(1).Value.(*T).res.Name)))
		return 1
	}))
	return mt
}

// noMethod is the error for t.key, a name the test object lacks.
func noMethod(methods *lua.LTable, key string) string {
	names := []string{"name"}
	methods.ForEach(func(k, _ lua.LValue) { names = append(names, lua.LVAsString(k)) })
	slices.Sort(names)
	msg := "test has no method '" + key + "'"
	if near := nearest.Names(key, names, 3); len(near) > 0 {
		return msg + nearest.Phrase(near)
	}
	return msg + " (methods: " + strings.Join(names, ", ") + ")"
}

// checkT returns the test a method was called on, and refuses t.eq(...) (a
// dot instead of a colon) and a t kept past its test.
func (s *suite) checkT(L *lua.LState, method string) *T {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if t, ok := ud.Value.(*T); ok {
			if t.done {
				L.RaiseError("t:%s: test %q has finished; use the t passed to the running test", method, t.res.Name)
			}
			return t
		}
	}
	L.RaiseError("t:%s: call it with a colon, t:%s(...)", method, method)
	return nil
}

// fail records the test's first failure at the calling line of the test file
// and stops the test.
func (s *suite) fail(L *lua.LState, t *T, msg string, details ...string) {
	if t.res.Status != Fail {
		t.res.Status = Fail
		t.res.Line, t.res.Message, t.res.Details = s.checkLine(L), msg, details
		if at := s.helperAt(L, t.res.Line); at != "" {
			t.res.Details = append([]string{at}, details...)
		}
	}
	L.Error(s.stop, 0)
}

// stopped re-raises the stop sentinel when the test already failed or was
// skipped, so an assertion inside t:error's function still stops the test.
func (s *suite) stopped(L *lua.LState, t *T) {
	if t.res.Status != Pass {
		L.Error(s.stop, 0)
	}
}

func (s *suite) eq(L *lua.LState) int {
	t := s.checkT(L, "eq")
	if L.GetTop() < 3 {
		L.RaiseError("t:eq: want two values, got and want, got %d", L.GetTop()-1)
	}
	got, want := L.Get(2), L.Get(3)
	msg := optMessage(L, 4, "values differ")
	c := comparer{L: L, seen: map[[2]*lua.LTable]bool{}}
	d := c.equal(got, want)
	if d == nil {
		return 0
	}
	details := labeled(L, "got: ", got)
	details = append(details, labeled(L, "want: ", want)...)
	if d.path != "" {
		details = append(details, fmt.Sprintf("first difference at %s: got %s, want %s",
			strings.TrimPrefix(d.path, "."), renderLine(L, d.got), renderLine(L, d.want)))
	}
	s.fail(L, t, msg, details...)
	return 0
}

// near is t:near(got, want, tol [, msg]): numbers within tol of each
// other, for floats whose last bits depend on the order of operations.
func (s *suite) near(L *lua.LState) int {
	t := s.checkT(L, "near")
	num := func(i int, name string) float64 {
		n, ok := L.Get(i).(lua.LNumber)
		if !ok {
			L.RaiseError("t:near: %s must be a number, got %s %s", name, L.Get(i).Type(), render(L, L.Get(i)))
		}
		return float64(n)
	}
	got, want, tol := num(2, "got"), num(3, "want"), num(4, "tol")
	if !(tol >= 0) || math.IsInf(tol, 0) {
		L.RaiseError("t:near: tol must be a finite number >= 0, got %s", describe(L, L.Get(4)))
	}
	if got == want || math.Abs(got-want) <= tol {
		return 0
	}
	s.fail(L, t, optMessage(L, 5, "values are not near"),
		"got: "+render(L, L.Get(2)),
		fmt.Sprintf("want: %s ± %s", render(L, L.Get(3)), render(L, L.Get(4))),
		"off by: "+render(L, lua.LNumber(math.Abs(got-want))))
	return 0
}

func (s *suite) ok(L *lua.LState) int {
	t := s.checkT(L, "ok")
	if L.ToBool(2) {
		return 0
	}
	s.fail(L, t, optMessage(L, 3, "expected a true value"), labeled(L, "got: ", L.Get(2))...)
	return 0
}

// errorCheck is t:error(fn [, text]): text is matched as plain text.
func (s *suite) errorCheck(L *lua.LState) int {
	t := s.checkT(L, "error")
	fn := L.CheckFunction(2)
	text, hasText := "", false
	if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		text, hasText = L.CheckString(3), true
	}
	L.Push(fn)
	err := scripting.PCall(L, 0, 0, nil) // its traceback, unused, bounded like any other
	s.stopped(L, t)
	want := "an error"
	if hasText {
		want = "an error containing " + quote(text)
	}
	if err == nil {
		s.fail(L, t, "expected an error", "got: no error", "want: "+want)
	}
	var msg string
	if api, ok := err.(*lua.ApiError); ok {
		msg = describe(L, api.Object)
	} else {
		msg = err.Error()
	}
	if hasText && !strings.Contains(msg, text) {
		s.fail(L, t, "error does not contain the expected text", "got: "+quote(msg), "want: "+want)
	}
	return 0
}

func (s *suite) skip(L *lua.LState) int {
	t := s.checkT(L, "skip")
	if t.res.Status == Pass {
		t.res.Status = Skip
		t.res.Message = optMessage(L, 2, "")
	}
	L.Error(s.stop, 0)
	return 0
}

func (s *suite) log(L *lua.LState) int {
	t := s.checkT(L, "log")
	parts := make([]string, 0, L.GetTop()-1)
	for i := 2; i <= L.GetTop(); i++ {
		parts = append(parts, L.ToStringMeta(L.Get(i)).String())
	}
	t.res.Logs = append(t.res.Logs, strings.Join(parts, " "))
	return 0
}

func optMessage(L *lua.LState, n int, def string) string {
	if L.Get(n) == lua.LNil {
		return def
	}
	return L.CheckString(n)
}

// labeled renders v after label; a value that needs several lines continues
// below it, indented.
func labeled(L *lua.LState, label string, v lua.LValue) []string {
	lines := strings.Split(render(L, v), "\n")
	lines[0] = label + lines[0]
	return lines
}

// describe is the text of an error value: a string as it is, otherwise its
// __tostring, otherwise its rendering; at most sandbox.MaxErrorText bytes.
func describe(L *lua.LState, v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return sandbox.ClipText(string(v))
	case lua.LNumber:
		return formatNumber(float64(v))
	}
	if s, ok := tostringMeta(L, v); ok {
		return s
	}
	return renderLine(L, v)
}

// tostringMeta calls v's __tostring, if it has one, with a budget of its
// own (sandbox.ToString).
func tostringMeta(L *lua.LState, v lua.LValue) (string, bool) {
	s, ok, err := sandbox.ToString(L, v)
	if err != nil {
		return fmt.Sprintf("(%s whose __tostring failed: %s)", v.Type(), sandbox.FailureText(err)), true
	}
	return s, ok
}

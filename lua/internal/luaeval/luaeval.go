// Package luaeval holds the test helpers the sandbox's and the bindings'
// tests share: evaluating an expression in a state, reading the error a
// chunk raises, and checking an error's text.
package luaeval

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// Eval runs "return <expr>" in L and returns the results as strings.
func Eval(t testing.TB, L *lua.LState, expr string) []string {
	t.Helper()
	top := L.GetTop()
	if err := L.DoString("return " + expr); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	var got []string
	for i := top + 1; i <= L.GetTop(); i++ {
		got = append(got, L.Get(i).String())
	}
	L.SetTop(top)
	return got
}

// Eval1 is Eval of an expression with exactly one result.
func Eval1(t testing.TB, L *lua.LState, expr string) string {
	t.Helper()
	got := Eval(t, L, expr)
	if len(got) != 1 {
		t.Fatalf("%s: got %d results %q, want 1", expr, len(got), got)
	}
	return got[0]
}

// Err runs src in L and returns the error value it raised, as a string.
func Err(t testing.TB, L *lua.LState, src string) string {
	t.Helper()
	err := L.DoString(src)
	if err == nil {
		t.Fatalf("%s: no error, want one", src)
	}
	return err.(*lua.ApiError).Object.String()
}

// WantErr fails t unless err holds every one of parts.
func WantErr(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q; want it to contain %q", err, p)
		}
	}
}

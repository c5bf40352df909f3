package luatest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/lua/scripting"
)

// A mistyped method of t names the test object and the nearest methods.
func TestUnknownTestMethod(t *testing.T) {
	_, res := runSource(t, scripting.Options{}, `test("typo", function(t)
  t:eqq(1, 1)
end)
test("far", function(t)
  t:frobnicate()
end)
`)
	if len(res) != 2 {
		t.Fatalf("results: %+v", res)
	}
	for i, want := range []string{
		"test has no method 'eqq'; did you mean 'eq'?",
		"test has no method 'frobnicate' (methods: eq, error, log, name, near, ok, skip)",
	} {
		if res[i].Status != Fail || !strings.Contains(res[i].Message, want) {
			t.Errorf("%s: %s %q, want an error containing %q", res[i].Name, res[i].Status, res[i].Message, want)
		}
	}
}

// t:near passes numbers within tol and fails others with what it got,
// wanted and how far off it was.
func TestNear(t *testing.T) {
	_, res := runSource(t, scripting.Options{}, `test("near", function(t)
  t:near(0.1 + 0.2, 0.3, 1e-12)
  t:near(1/0, 1/0, 0)
  t:near(5, 5, 0)
end)
test("far", function(t)
  t:near(0.5, 0.25, 0.125)
end)
test("nan", function(t)
  t:near(0/0, 0, 1)
end)
test("bad tol", function(t)
  t:near(1, 1, -1)
end)
test("not a number", function(t)
  t:near("1", 1, 0)
end)
`)
	want := []string{
		`pass near "" []`,
		`fail far "values are not near" ["got: 0.5" "want: 0.25 ± 0.125" "off by: 0.25"]`,
		`fail nan "values are not near" ["got: nan" "want: 0 ± 1" "off by: nan"]`,
		`fail bad tol "t:near: tol must be a finite number >= 0, got -1"`,
		`fail not a number "t:near: got must be a number, got string \"1\""`,
	}
	if len(res) != len(want) {
		t.Fatalf("results: %+v", res)
	}
	for i, r := range res {
		got := fmt.Sprintf("%s %s %q", r.Status, r.Name, r.Message)
		if i < 3 {
			got += fmt.Sprintf(" %q", r.Details)
		}
		if got != want[i] {
			t.Errorf("got  %s\nwant %s", got, want[i])
		}
	}
}

// A failed check in a helper reports the line of the test that called the
// helper, and the helper's own line in the first detail.
func TestHelperFailurePosition(t *testing.T) {
	file, res := runSource(t, scripting.Options{}, `local function check(t, v)
  t:eq(v, 2)
end
local function outer(t, v)
  check(t, v)
end
test("helper", function(t)
  t:ok(true)
  check(t, 1)
end)
test("nested helper", function(t)
  outer(t, 3)
end)
test("direct", function(t)
  t:eq(1, 2)
end)
test("callback", function(t)
  local hs = require("app-host").scheduler
  hs:schedule_once{ delay = require("temporal").duration{}, callback = function() t:ok(false) end }
  hs:run_all()
end)
`)
	want := []struct {
		line int
		at   string
	}{
		{9, "checked at " + file + ":2, in function 'check'"},
		{12, "checked at " + file + ":2, in function 'check'"},
		{15, "got: 1"},
		{20, "checked at " + file + ":19, in function <" + file + ":19>"},
	}
	if len(res) != len(want) {
		t.Fatalf("results: %+v", res)
	}
	for i, r := range res {
		if r.Status != Fail || r.Line != want[i].line || len(r.Details) == 0 || r.Details[0] != want[i].at {
			t.Errorf("%s: %s at line %d, details %q; want a failure at line %d, first detail %q", r.Name, r.Status, r.Line, r.Details, want[i].line, want[i].at)
		}
	}
}

package luatest

import (
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
		"test has no method 'frobnicate' (methods: eq, error, log, name, ok, skip",
	} {
		if res[i].Status != Fail || !strings.Contains(res[i].Message, want) {
			t.Errorf("%s: %s %q, want an error containing %q", res[i].Name, res[i].Status, res[i].Message, want)
		}
	}
}

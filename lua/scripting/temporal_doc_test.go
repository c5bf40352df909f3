package scripting

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The durations example of docs/lua-temporal.md prints what its "-->"
// comments say.
func TestDurationDocExample(t *testing.T) {
	src, err := os.ReadFile("../../docs/lua-temporal.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	i := strings.Index(text, "## Durations")
	m := regexp.MustCompile("(?s)```lua\n(.*?)```").FindStringSubmatch(text[max(i, 0):])
	if i < 0 || m == nil {
		t.Fatal("no Lua block under ## Durations")
	}
	var want []string
	for _, line := range strings.Split(m[1], "\n") {
		if _, out, ok := strings.Cut(line, "--> "); ok {
			want = append(want, strings.Join(strings.Fields(out), " "))
		}
	}
	var out strings.Builder
	L := NewState(Options{Stdout: &out})
	defer L.Close()
	if err := L.DoString("local Temporal = require \"temporal\"\n" + m[1]); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		got = append(got, strings.Join(strings.Fields(line), " "))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("printed:\n%s\nthe doc says:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(want) < 7 {
		t.Errorf("only %d --> lines", len(want))
	}
}

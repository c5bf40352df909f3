package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	lua "github.com/yuin/gopher-lua"
)

// pcallResults runs `return pcall(function() return <expr> end)` and
// renders the results.
func pcallResults(L *lua.LState, expr string) string {
	top := L.GetTop()
	if err := L.DoString("return pcall(function() return " + expr + " end)"); err != nil {
		return "load: " + err.Error()
	}
	var got []string
	for i := top + 1; i <= L.GetTop(); i++ {
		got = append(got, L.Get(i).String())
	}
	L.SetTop(top)
	return strings.Join(got, " | ")
}

// Below the limit, the checked string.rep, string.gsub, string.format and
// table.concat return what gopher-lua's own do, errors included (but %q,
// which quotes as Lua 5.1 does: TestFormatQuotesAsLua).
func TestStringLimitsKeepGopherLuaResults(t *testing.T) {
	stock := lua.NewState()
	defer stock.Close()
	L, _ := newSandbox(t, Options{})
	for _, expr := range []string{
		`string.rep("ab", 3)`, `string.rep("ab", 0)`, `string.rep("ab", -2)`, `string.rep("ab", 2.7)`,
		`string.rep("", 1e10)`, `string.rep("ab", 3, ",")`, `string.rep("ab", 0/0)`,
		`string.rep("ab")`, `string.rep(nil, 2)`, `string.rep(12, 2)`, `string.rep("a", "3")`,
		`("x"):rep(4)`,
		`string.gsub("hello world", "o", "%0%0")`, `string.gsub("hello world", "(o)", "[%1%%%x]")`,
		`string.gsub("hello", "l", {l = "L"})`, `string.gsub("hello", "()l", function(p) return p end)`,
		`string.gsub("hello", "(h)(e)", function(a, b) return b .. a end)`,
		`string.gsub("hello", "l", "%2")`, `string.gsub("hello", "(l)", "%2")`, `string.gsub("hello", "%", "x")`,
		`string.gsub("hello", "[", "x")`, `string.gsub("hello", "l", "x", 1)`, `string.gsub("hello", "", "-")`,
		`string.gsub("hello", "x*", "-")`, `string.gsub("hello", "l", "%1")`, `string.gsub("hello", "l", "a%")`,
		`string.gsub("hello", "l", false)`, `string.gsub("hello", "l", {})`, `string.gsub("hello", "(l)(l)", {ll = 1, l = 2})`,
		`string.gsub("hello", "l+", function() return false end)`, `string.gsub("hello", "l", function() return 1.5 end)`,
		`string.gsub("hello", "^h", "H")`, `string.gsub("abc", "%w", "%0%0", 0)`, `string.gsub("", "", "x")`,
		`string.gsub("hello", "(e)(l)", "%2%1%0")`, `string.gsub(123, 2, 9)`,
		`string.format("%5d|%-5s|%.3f", 42, "ab", 1/3)`, `string.format("%99999999d", 1)`,
		`string.format("%d %d", 1)`, `string.format("%%")`, `string.format("%s", {})  ~= nil`, `string.format()`,
		`table.concat({1, "a", 2.5}, ", ")`, `table.concat({1, 2, 3}, "-", 2)`, `table.concat({1, 2, 3}, "-", 2, 3)`,
		`table.concat({1, 2, 3}, "-", 5)`, `table.concat({1, 2, 3}, "-", 0)`, `table.concat({1, 2, 3}, "-", 3, 1)`,
		`table.concat({1, {}, 3})`, `table.concat({})`, `table.concat({1, 2, 3}, nil, 1, 9)`, `table.concat("x")`,
	} {
		want, got := pcallResults(stock, expr), pcallResults(L, expr)
		if got != want {
			t.Errorf("%s\n got  %s\n want %s (gopher-lua)", expr, got, want)
		}
	}
}

// A result past the string limit is refused before it is built, with an
// error naming the function, the size asked for and the limit; nothing
// near that size is allocated. Before the check, string.rep("x", 1e10)
// ended the process (Go's fatal out of memory) and string.rep("x", 2^31)
// took 2 GB.
func TestStringLimitRefusesHugeResults(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	cases := []struct{ src, want string }{
		{`string.rep("x", 1e10)`, "<string>:1: bad argument #2 to 'rep' (result of 10000000000 bytes exceeds the 1 GiB string limit)"},
		{`string.rep("x", 2^31)`, "bad argument #2 to 'rep' (result of 2147483648 bytes exceeds the 1 GiB string limit)"},
		{`string.rep("x", 1e10, ",")`, "bad argument #2 to 'rep' (result of 10000000000 bytes exceeds the 1 GiB string limit)"},
		{`("ab"):rep(2^62)`, "bad argument #2 to 'rep' (result of 9.223e+18 bytes exceeds the 1 GiB string limit)"},
		{`string.rep("x", 1e300)`, "bad argument #2 to 'rep' (result of 1e+300 bytes exceeds the 1 GiB string limit)"},
		{`string.format(("%1000000d"):rep(2000), 1)`, "bad argument #1 to 'format' (result of up to 2000818000 bytes exceeds the 1 GiB string limit)"},
	}
	for _, c := range cases {
		if got := luaeval.Err(t, L, "local _ = "+c.src); !strings.Contains(got, c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.src, got, c.want)
		}
	}
}

// With Options.MemoryLimit, that is the string limit.
func TestStringLimitFollowsMemoryLimit(t *testing.T) {
	L, _ := newSandbox(t, Options{MemoryLimit: 64 << 10})
	if got := luaeval.Eval1(t, L, `#("x"):rep(65536)`); got != "65536" {
		t.Fatalf("a string of exactly the limit: %s", got)
	}
	cases := []struct{ src, want string }{
		{`("x"):rep(65537)`, "bad argument #2 to 'rep' (result of 65537 bytes exceeds the 64 KiB string limit)"},
		{`string.format("%s%s", ("x"):rep(2^15), "y")`, "bad argument #1 to 'format' (result of up to 131084 bytes exceeds the 64 KiB string limit)"},
		{`string.format(("%1000000d"):rep(2), 1, 2)`, "bad argument #1 to 'format' (result of up to 2000818 bytes exceeds the 64 KiB string limit)"},
		{`("abc"):rep(20000):gsub("b", "bb")`, "bad argument #3 to 'gsub' (result of 80000 bytes exceeds the 64 KiB string limit)"},
		{`("x"):rep(2^10):gsub("x", ("%0"):rep(65))`, "bad argument #3 to 'gsub' (result of 66560 bytes exceeds the 64 KiB string limit)"},
		{`("x"):rep(2^10):gsub("x", function(c) return ("y"):rep(65) end)`, "bad argument #3 to 'gsub' (result of at least 65585 bytes exceeds the 64 KiB string limit)"},
		{`("x"):rep(2^10):gsub("x", {x = ("y"):rep(65)})`, "bad argument #3 to 'gsub' (result of at least 65585 bytes exceeds the 64 KiB string limit)"},
		{`("x"):rep(2^16):gsub("x", "%0", 1) .. ("x"):rep(2^16):gsub("^", "y")`, "bad argument #3 to 'gsub' (result of 65537 bytes exceeds the 64 KiB string limit)"},
		{`table.concat({("x"):rep(65536), "y"})`, "bad argument #1 to 'concat' (result of 65537 bytes exceeds the 64 KiB string limit)"},
		{`table.concat({("x"):rep(2^15), ("x"):rep(2^15), "x"}, "")`, "bad argument #1 to 'concat' (result of 65537 bytes exceeds the 64 KiB string limit)"},
		{`table.concat({1, 2, 3}, ("-"):rep(2^15 + 1))`, "bad argument #1 to 'concat' (result of at least 65540 bytes exceeds the 64 KiB string limit)"},
	}
	for _, c := range cases {
		if got := luaeval.Err(t, L, "local _ = "+c.src); !strings.Contains(got, c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.src, got, c.want)
		}
	}
}

func TestSizeLimitNames(t *testing.T) {
	for n, want := range map[sizeLimit]string{1 << 30: "1 GiB", 3 << 30: "3 GiB", 1536 << 20: "1536 MiB", 64 << 10: "64 KiB", 1000: "1000 B", 1<<30 + 1: "1073741825 B"} {
		if got := fmt.Sprint(n); got != want {
			t.Errorf("sizeLimit(%d) = %q, want %q", int64(n), got, want)
		}
	}
}

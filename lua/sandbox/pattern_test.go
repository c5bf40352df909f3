package sandbox

import (
	"fmt"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The bounded pattern functions give gopher-lua's results and errors.
func TestPatternsMatchGopherLua(t *testing.T) {
	calls := []string{
		`string.find("hello world", "o w")`,
		`string.find("hello world", "l+")`,
		`string.find("hello world", "(l)(l)")`,
		`string.find("hello", "()ll()")`,
		`string.find("hello", "l", -2)`,
		`string.find("hello", "l", 10)`,
		`string.find("a.b", ".", 1, true)`,
		`string.find("a+b", "+", 1, true)`,
		`string.find("", "")`,
		`string.find("abc", "")`,
		`string.find("abc", "^b")`,
		`string.find("abc", "c$")`,
		`string.find("THE (quick) fox", "%((%a+)%)")`,
		`string.find("f(a(b)c)", "%b()")`,
		`string.find("key = value", "(%w+)%s*=%s*(%w+)")`,
		`string.find("abc", "[a-")`,
		`string.find("abc", "%")`,
		`string.find("abc", "(")`,
		`string.find("aaa", "a-b")`,
		`string.find("x123y", "%d*")`,
		`string.find("x123y", "[%d]+")`,
		`string.find("x123y", "[^%a]+")`,
		`string.find("abab", "(ab)%1")`,
		`string.match("hello 42", "%d+")`,
		`string.match("hello 42", "(%a+) (%d+)")`,
		`string.match("hello", "xyz")`,
		`string.match("hello", "()")`,
		`string.match("hello", "l", -2)`,
		`string.match("  trim  ", "^%s*(.-)%s*$")`,
		`string.gsub("hello world", "o", "0")`,
		`string.gsub("hello world", "(%w+)", "<%1>")`,
		`string.gsub("hello world", "%w+", "%0 %0", 1)`,
		`string.gsub("abc", "", "-")`,
		`string.gsub("abc", "%w", "%%")`,
		`string.gsub("abc", "%w", "%2")`,
		`string.gsub("$name is $age", "%$(%w+)", {name = "Ann", age = 7})`,
		`string.gsub("a b c", "%a", function(c) return c:upper() end)`,
		`string.gsub("a b c", "%a", function(c) if c == "b" then return false end return "x" end)`,
		`string.gsub("abc", "()", "%1")`,
		`("x"):rep(3):gsub("x", "y")`,
		`(function() local r = {} for k, v in string.gmatch("a=1, b=2", "(%w+)=(%w+)") do r[#r+1] = k .. v end return table.concat(r, ";") end)()`,
		`(function() local r = {} for w in string.gmatch("one two three", "%a+") do r[#r+1] = w end return table.concat(r, ";") end)()`,
		`(function() local r = {} for p in string.gmatch("abc", "()") do r[#r+1] = p end return table.concat(r, ";") end)()`,
		`string.gfind ~= nil`,
		`string.find(("a"):rep(100), ("a-"):rep(3) .. "b")`,
	}
	stock := lua.NewState()
	defer stock.Close()
	L := NewState(Options{})
	defer L.Close()
	eval := func(L *lua.LState, expr string) string {
		fn, err := L.LoadString("return " + expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		top := L.GetTop()
		L.Push(fn)
		if err := L.PCall(0, lua.MultRet, nil); err != nil {
			return "error: " + err.(*lua.ApiError).Object.String()
		}
		var out []string
		for i := top + 1; i <= L.GetTop(); i++ {
			out = append(out, L.Get(i).Type().String()+" "+L.Get(i).String())
		}
		L.SetTop(top)
		return fmt.Sprint(out)
	}
	for _, c := range calls {
		if got, want := eval(L, c), eval(stock, c); got != want {
			t.Errorf("%s:\n got %s\nwant %s (gopher-lua)", c, got, want)
		}
	}
}

// Where gopher-lua's pattern functions depart from the Lua 5.1 manual,
// ours follow the manual.
func TestPatternsFollowTheManual(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	for _, c := range []struct{ expr, want string }{
		// The empty match at init (gopher-lua: 1, 0 for any init).
		{`string.find("abc", "", 3)`, "3 2"},
		{`string.find("abc", "", -1, true)`, "3 2"},
		{`string.find("abc", "", 5)`, "nil"},
		// In gmatch '^' is a plain character.
		{`(function() local r = {} for k in string.gmatch("^a^a", "^a") do r[#r+1] = k end return table.concat(r, ";") end)()`, "^a;^a"},
		{`(function() local r = {} for k in string.gmatch("abc", "^.") do r[#r+1] = k end return #r end)()`, "0"},
		// gmatch's iterator is a function of its own.
		{`(function() local it = string.gmatch("a1b2", "%d") return it(), it(), select("#", it()) end)()`, "1 2 0"},
		{`select("#", string.gmatch("a", "a"))`, "1"},
		// %n inside capture n.
		{`pcall(string.find, "ab", "((a)%1)")`, "false <string>:1: invalid capture index"},
		// Lua's bound on open choices.
		{`pcall(string.find, ("a"):rep(201) .. "b", ("a?"):rep(201) .. "b")`, "false <string>:1: pattern too complex"},
		{`string.find(("a"):rep(200) .. "b", ("a?"):rep(200) .. "b")`, "1 201"},
	} {
		fn, err := L.LoadString("return " + c.expr)
		if err != nil {
			t.Fatal(err)
		}
		top := L.GetTop()
		L.Push(fn)
		if err := L.PCall(0, lua.MultRet, nil); err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		var out []string
		for i := top + 1; i <= L.GetTop(); i++ {
			out = append(out, L.Get(i).String())
		}
		L.SetTop(top)
		if got := strings.Join(out, " "); got != c.want {
			t.Errorf("%s = %q, want %q", c.expr, got, c.want)
		}
	}
}

package sandbox

import (
	"errors"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/sandbox/internal/pattern"
)

// string.find, match, gmatch and gsub run on internal/pattern, a matcher
// that a budget can stop: a pattern such as ("a-"):rep(5) .. "b"
// backtracks for hours inside one builtin call, where the VM's check of
// the budget never runs. Their results and errors are gopher-lua's where
// scripts could rely on them, with three changes towards Lua 5.1's manual:
// string.find(s, "", init) finds the empty match at init (gopher-lua's
// says 1, 0 for any init); in gmatch a leading '^' is a plain character;
// and gmatch's iterator is a plain function, callable on its own. A
// pattern's captures are bounded (maxResults), and so is gsub's result
// (the state's string limit).

// installPatterns replaces the pattern functions of the string library;
// gsub refuses a result longer than limit bytes.
func installPatterns(L *lua.LState, limit int64) {
	mod, ok := L.GetGlobal("string").(*lua.LTable)
	if !ok {
		return
	}
	mod.RawSetString("find", L.NewFunction(strFind))
	mod.RawSetString("match", L.NewFunction(strMatch))
	mod.RawSetString("gsub", L.NewFunction(sizeLimit(limit).gsub))
	gmatch := L.NewFunction(strGmatch)
	mod.RawSetString("gmatch", gmatch)
	mod.RawSetString("gfind", gmatch)
}

// compilePattern compiles pat, argument 2 of fn, raising its errors.
func compilePattern(L *lua.LState, fn, pat string, anchor bool) *pattern.Pattern {
	p, err := pattern.Compile(pat, anchor, maxResults())
	if err != nil {
		var ce *pattern.CapturesError
		if errors.As(err, &ce) {
			argError(L, 2, fn, err.Error())
		}
		L.RaiseError("%s", err.Error())
	}
	return p
}

// findMatch is m.Find(init) with L's budget as its stop.
func findMatch(L *lua.LState, m *pattern.Matcher, init int) (start, end int) {
	start, end, err := m.Find(init, StopCheck(L))
	switch {
	case err == pattern.ErrStopped:
		raise(L, "%s", governorOf(L).message())
	case err != nil:
		L.RaiseError("%s", err.Error())
	}
	return start, end
}

// startIndex turns init, a 1-based index that counts from the end when
// negative, into an offset of a string of n bytes; false past its end.
func startIndex(n, init int) (int, bool) {
	if init < 0 {
		init = max(n+init+1, 1)
	}
	init = max(init, 1)
	if init > n+1 {
		return 0, false
	}
	return init - 1, true
}

// hasSpecials reports whether pat is more than its bytes. A lone ')' is
// special: it is an error, as in gopher-lua.
func hasSpecials(pat string) bool { return strings.ContainsAny(pat, "^$*+?.([%-)") }

// capture is capture k of m's match as Lua sees it: a position capture
// is its 1-based position.
func capture(m *pattern.Matcher, str string, k int) lua.LValue {
	c := m.Capture(k)
	if c.Position {
		return lua.LNumber(c.Start + 1)
	}
	return lua.LString(str[c.Start:c.End])
}

// pushCaptures pushes the captures of m's match str[s:e], or the match
// itself when the pattern has none, and returns how many it pushed.
func pushCaptures(L *lua.LState, m *pattern.Matcher, n int, str string, s, e int) int {
	if n == 0 {
		L.Push(lua.LString(str[s:e]))
		return 1
	}
	for k := 0; k < n; k++ {
		L.Push(capture(m, str, k))
	}
	return n
}

// strFind is string.find(s, pattern [, init [, plain]]).
func strFind(L *lua.LState) int {
	str := L.CheckString(1)
	pat := L.CheckString(2)
	init, ok := startIndex(len(str), L.OptInt(3, 1))
	plain := lua.LVAsBool(L.Get(4))
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	if plain || !hasSpecials(pat) {
		i := strings.Index(str[init:], pat)
		if i < 0 {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LNumber(init + i + 1))
		L.Push(lua.LNumber(init + i + len(pat)))
		return 2
	}
	p := compilePattern(L, "find", pat, true)
	m := p.Matcher(str)
	s, e := findMatch(L, m, init)
	if s < 0 {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(s + 1))
	L.Push(lua.LNumber(e))
	for k := 0; k < p.Captures(); k++ {
		L.Push(capture(m, str, k))
	}
	return 2 + p.Captures()
}

// strMatch is string.match(s, pattern [, init]). Without a match it
// returns nothing, as gopher-lua's does.
func strMatch(L *lua.LState) int {
	str := L.CheckString(1)
	pat := L.CheckString(2)
	init, ok := startIndex(len(str), L.OptInt(3, 1))
	p := compilePattern(L, "match", pat, true)
	if !ok {
		return 0
	}
	m := p.Matcher(str)
	s, e := findMatch(L, m, init)
	if s < 0 {
		return 0
	}
	return pushCaptures(L, m, p.Captures(), str, s, e)
}

// strGmatch is string.gmatch(s, pattern): an iterator over the matches,
// each giving its captures (or itself). After an empty match the next
// search starts one byte further on.
func strGmatch(L *lua.LState) int {
	str := L.CheckString(1)
	pat := L.CheckString(2)
	p := compilePattern(L, "gmatch", pat, false)
	m := p.Matcher(str)
	at := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		if at > len(str) {
			return 0
		}
		s, e := findMatch(L, m, at)
		if s < 0 {
			at = len(str) + 1
			return 0
		}
		at = e
		if e == s {
			at++
		}
		return pushCaptures(L, m, p.Captures(), str, s, e)
	}))
	return 1
}

// gsub is string.gsub(s, pattern, repl [, n]) as gopher-lua's (repl a
// string, a table or a function; n <= 0 replaces every match), built in
// one pass and refused once the result would pass the string limit: a
// string repl's result is measured to the end, so the error gives its
// exact size, while a table's or a function's stops at the first
// replacement past the limit ("at least"). Nothing past the limit is
// built.
func (n sizeLimit) gsub(L *lua.LState) int {
	const fn = "gsub"
	str := L.CheckString(1)
	pat := L.CheckString(2)
	L.CheckTypes(3, lua.LTString, lua.LTTable, lua.LTFunction)
	repl := L.Get(3)
	most := L.OptInt(4, -1)
	p := compilePattern(L, fn, pat, true)
	m := p.Matcher(str)
	var tmpl replTemplate
	r, isString := repl.(lua.LString)
	if isString {
		tmpl = parseRepl(string(r))
	}
	o := gsubOut{limit: int64(n)}
	o.b.Grow(min(len(str), int(n)))
	count, copied, at := 0, 0, 0
	for (most <= 0 || count < most) && at <= len(str) {
		s, e := findMatch(L, m, at)
		if s < 0 {
			break
		}
		count++
		at = e
		if e == s {
			at++ // past the byte after an empty match, which is kept
		}
		if isString {
			o.write(str[copied:s])
			tmpl.write(L, &o, m, p.Captures(), str, s, e)
			copied = e
		} else if v := replValue(L, repl, m, p.Captures(), str, s, e); !lua.LVIsFalse(v) {
			o.write(str[copied:s])
			o.write(lua.LVAsString(v))
			copied = e
			if o.size > o.limit {
				n.refuse(L, 3, fn, "at least ", float64(o.size))
			}
		}
		if p.Anchored() {
			break
		}
	}
	o.write(str[copied:])
	if o.size > o.limit {
		n.refuse(L, 3, fn, "", float64(o.size))
	}
	L.Push(lua.LString(o.b.String()))
	L.Push(lua.LNumber(count))
	return 2
}

// gsubOut is gsub's result: its size so far, and its text while that is
// within the limit.
type gsubOut struct {
	b     strings.Builder
	size  int64
	limit int64
}

func (o *gsubOut) write(s string) {
	o.size += int64(len(s))
	if o.size <= o.limit {
		o.b.WriteString(s)
	}
}

// replValue is the value a table or function replacement gives the match
// str[s:e]: the table looked up with the first capture (or the match),
// the function called with every capture (or the match).
func replValue(L *lua.LState, repl lua.LValue, m *pattern.Matcher, ncap int, str string, s, e int) lua.LValue {
	if t, ok := repl.(*lua.LTable); ok {
		key := lua.LValue(lua.LString(str[s:e]))
		if ncap > 0 {
			key = capture(m, str, 0)
		}
		return L.GetTable(t, key)
	}
	L.Push(repl)
	nargs := pushCaptures(L, m, ncap, str, s, e)
	L.Call(nargs, 1)
	v := L.Get(-1)
	L.Pop(1)
	return v
}

// replTemplate is a string replacement, read as gopher-lua reads it:
// "%%" is "%", "%d" a capture (%0 the whole match), and '%' before any
// other character, or last, stays as it is.
type replTemplate []replPart

// replPart is literal text, or capture idx (0: the whole match) when text
// is empty.
type replPart struct {
	text string
	idx  int
}

func parseRepl(r string) replTemplate {
	var (
		t   replTemplate
		lit []byte
	)
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c != '%' || i == len(r)-1 {
			lit = append(lit, c)
			continue
		}
		i++
		switch d := r[i]; {
		case d == '%':
			lit = append(lit, '%')
		case d >= '0' && d <= '9':
			if len(lit) > 0 {
				t = append(t, replPart{text: string(lit)})
				lit = nil
			}
			t = append(t, replPart{idx: int(d - '0')})
		default:
			lit = append(lit, '%', d)
		}
	}
	if len(lit) > 0 {
		t = append(t, replPart{text: string(lit)})
	}
	return t
}

// write writes the replacement of the match str[s:e]. %1 of a pattern
// without captures is the whole match; a capture the pattern lacks is an
// error.
func (t replTemplate) write(L *lua.LState, o *gsubOut, m *pattern.Matcher, ncap int, str string, s, e int) {
	for _, p := range t {
		switch {
		case p.text != "":
			o.write(p.text)
		case p.idx == 0 || p.idx == 1 && ncap == 0:
			o.write(str[s:e])
		case p.idx > ncap:
			raise(L, "invalid capture index")
		default:
			c := m.Capture(p.idx - 1)
			if c.Position {
				o.write(strconv.Itoa(c.Start + 1))
			} else {
				o.write(str[c.Start:c.End])
			}
		}
	}
}

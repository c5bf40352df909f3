package scripting

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua"
)

// schedulerSetMaxPending is s["set-max-pending"](s, n): the scheduler's cap
// on pending jobs (by default 1,000,000).
func schedulerSetMaxPending(L *lua.LState) int {
	const fn = "set-max-pending"
	ls := live(L, fn)
	n, ok := toInteger(L.Get(2))
	if !ok || n < 1 {
		argError(L, 2, fn, "an integer >= 1 expected, got "+describe(L.Get(2)))
	}
	raiseError(L, luaCall{fn, 2, false}, ls.s.SetMaxPending(int(n)))
	L.Push(lua.LTrue)
	return 1
}

// DefaultStringLimit is the largest string, in bytes, that string.rep,
// string.format, string.gsub and table.concat build when Options.MemoryLimit
// is 0; with a MemoryLimit, that is the limit.
const DefaultStringLimit = 1 << 30

// stringLimit is the string limit of a state whose MemoryLimit is
// memoryLimit.
func stringLimit(memoryLimit int64) int64 {
	if memoryLimit > 0 {
		return memoryLimit
	}
	return DefaultStringLimit
}

// installStringLimits replaces the library functions whose result can be
// far larger than their arguments (and installPatterns' gsub checks its
// own) with versions that compute the size of
// the result before building it, and refuse one larger than limit: Go's
// allocator would otherwise end the process on `("x"):rep(1e10)`. The VM's
// own `..` cannot be checked this way; each step of a doubling loop is at
// most twice the largest string that passed these checks.
func installStringLimits(L *lua.LState, limit int64) {
	str, _ := L.GetGlobal(lua.StringLibName).(*lua.LTable)
	tab, _ := L.GetGlobal(lua.TabLibName).(*lua.LTable)
	if str == nil || tab == nil {
		return
	}
	lim := sizeLimit(limit)
	format, _ := str.RawGetString("format").(*lua.LFunction)
	str.RawSetString("rep", L.NewFunction(lim.rep))
	if format != nil && format.IsG {
		str.RawSetString("format", L.NewFunction(lim.format(format.GFunction)))
	}
	tab.RawSetString("concat", L.NewFunction(lim.concat))
}

// sizeLimit is a state's string limit in bytes.
type sizeLimit int64

// String names the limit as errors show it: "1 GiB", "64 KiB", "1000 B".
func (n sizeLimit) String() string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= sizeLimit(u.size) && int64(n)%u.size == 0 {
			return fmt.Sprintf("%d %s", int64(n)/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d B", int64(n))
}

// refuse raises the error for a result of size bytes (a float, as a size
// asked for may exceed int64) built by fn from argument arg; qual says how
// exact size is ("", "at least ", "up to ").
func (n sizeLimit) refuse(L *lua.LState, arg int, fn, qual string, size float64) {
	s := strconv.FormatFloat(size, 'f', -1, 64)
	if size >= 1<<63 {
		s = strconv.FormatFloat(size, 'g', 4, 64)
	}
	argError(L, arg, fn, fmt.Sprintf("result of %s%s bytes exceeds the %v string limit", qual, s, n))
}

// rep is string.rep(s, n): as gopher-lua's (n truncated, n <= 0 gives "",
// a third argument ignored, as in Lua 5.1), with the size checked first.
func (n sizeLimit) rep(L *lua.LState) int {
	s := L.CheckString(1)
	count := L.CheckInt(2)
	if f := float64(L.Get(2).(lua.LNumber)); len(s) > 0 && f >= 1 {
		if size := float64(len(s)) * math.Trunc(f); size > float64(n) {
			n.refuse(L, 2, "rep", "", size)
		}
	}
	if count <= 0 {
		L.Push(lua.LString(""))
		return 1
	}
	L.Push(lua.LString(strings.Repeat(s, count)))
	return 1
}

// concat is table.concat(t [, sep [, i [, j]]]) as gopher-lua's, but it
// sums the lengths before it builds the result, and builds it without
// pushing every element on the stack.
func (n sizeLimit) concat(L *lua.LState) int {
	tbl := L.CheckTable(1)
	sep := L.OptString(2, "")
	i := L.OptInt(3, 1)
	j := L.OptInt(4, tbl.Len())
	if L.GetTop() == 3 && (i > tbl.Len() || i < 1) {
		L.Push(lua.LString(""))
		return 1
	}
	i = max(min(i, tbl.Len()), 1)
	j = min(j, tbl.Len())
	if i > j {
		L.Push(lua.LString(""))
		return 1
	}
	parts := make([]string, 0, j-i+1)
	size := int64(0)
	for k := i; k <= j; k++ {
		v := tbl.RawGetInt(k)
		if !lua.LVCanConvToString(v) {
			raise(L, "invalid value (%s) at index %d in table for concat", v.Type().String(), k)
		}
		p := lua.LVAsString(v)
		size += int64(len(p))
		if k != j {
			size += int64(len(sep))
		}
		if size > int64(n) {
			qual := ""
			if k != j {
				qual = "at least "
			}
			n.refuse(L, 1, "concat", qual, float64(size))
		}
		parts = append(parts, p)
	}
	L.Push(lua.LString(strings.Join(parts, sep)))
	return 1
}

// format wraps gopher-lua's string.format, which hands the format to
// fmt.Sprintf: it bounds the result from the format's widths and
// precisions (fmt refuses those over 1e6) and the arguments' lengths first.
func (n sizeLimit) format(orig lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		f := L.CheckString(1)
		if size := formatBound(L, f); size > float64(n) {
			n.refuse(L, 1, "format", "up to ", size)
		}
		if strings.Contains(f, "%q") {
			L.Replace(1, lua.LString(quoteArgs(L, f)))
		}
		return orig(L)
	}
}

// quoteArgs writes each argument of a %q in f as Lua 5.1 quotes it (a
// backslash before '"', '\' and a newline; "\r" and "\000" for CR and
// NUL; other bytes as they are), in place on L's stack, and returns f
// with those %q as %s. gopher-lua's %q is Go's, whose escapes ("\x00",
// "\u00e9") Lua does not read back: the Fennel compiler writes string
// literals with %q.
func quoteArgs(L *lua.LState, f string) string {
	var b strings.Builder
	arg := 2
	for i := 0; i < len(f); i++ {
		b.WriteByte(f[i])
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		for i < len(f) && strings.IndexByte("0123456789.+- #", f[i]) >= 0 {
			b.WriteByte(f[i])
			i++
		}
		if i >= len(f) {
			break
		}
		c := f[i]
		if c == 'q' {
			switch v := L.Get(arg).(type) {
			case lua.LString, lua.LNumber:
				L.Replace(arg, lua.LString(luaQuote(lua.LVAsString(v))))
				c = 's'
			}
		}
		b.WriteByte(c)
		arg++
	}
	return b.String()
}

func luaQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\000`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// formatBound returns an upper bound of the length of string.format(f,
// ...), the arguments being on L's stack from index 2.
func formatBound(L *lua.LState, f string) float64 {
	size := float64(len(f))
	arg := 2
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		num := [2]float64{} // width, precision
		which := 0
		for ; i < len(f); i++ {
			c := f[i]
			switch {
			case c >= '0' && c <= '9':
				num[which] = num[which]*10 + float64(c-'0')
				continue
			case c == '.':
				which = 1
				continue
			case strings.IndexByte("+- #", c) >= 0:
				continue
			}
			break
		}
		size += min(num[0], 1e6) + min(num[1], 1e6)
		if i >= len(f) {
			break
		}
		if s, ok := L.Get(arg).(lua.LString); ok {
			// %q and %x (with or without a space) write at most 4 bytes
			// for one.
			size += 4*float64(len(s)) + 2
		} else {
			size += 400 // a number's digits, a value's name
		}
		arg++
	}
	return size
}

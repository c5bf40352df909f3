package luatest

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua"
)

// width is where a table's rendering breaks into one entry per line.
const width = 72

// render shows v as Lua source would write it: numbers exactly, strings
// quoted, tables as constructors (sorted keys, nested, several lines when
// long), and values with __tostring through it.
func render(L *lua.LState, v lua.LValue) string {
	r := renderer{L: L, open: map[*lua.LTable]bool{}}
	return r.value(v, "")
}

// renderLine is render on one line.
func renderLine(L *lua.LState, v lua.LValue) string {
	r := renderer{L: L, open: map[*lua.LTable]bool{}}
	return r.compact(v)
}

type renderer struct {
	L    *lua.LState
	open map[*lua.LTable]bool // tables being rendered, to cut cycles
}

func (r *renderer) value(v lua.LValue, indent string) string {
	tb, ok := v.(*lua.LTable)
	if !ok || r.open[tb] || r.L.GetMetaField(tb, "__tostring") != lua.LNil {
		return r.compact(v)
	}
	if c := r.compact(v); len(indent)+len(c) <= width {
		return c
	}
	r.open[tb] = true
	defer delete(r.open, tb)
	inner := indent + "  "
	var b strings.Builder
	b.WriteString("{\n")
	for _, e := range entries(tb) {
		b.WriteString(inner)
		if e.key != nil {
			b.WriteString(r.key(e.key))
		}
		b.WriteString(r.value(e.value, inner))
		b.WriteString(",\n")
	}
	b.WriteString(indent + "}")
	return b.String()
}

func (r *renderer) compact(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LNumber:
		return formatNumber(float64(v))
	case lua.LString:
		return quote(string(v))
	case *lua.LTable:
		if s, ok := tostringMeta(r.L, v); ok {
			return s
		}
		if r.open[v] {
			return "<cycle>"
		}
		r.open[v] = true
		defer delete(r.open, v)
		es := entries(v)
		if len(es) == 0 {
			return "{}"
		}
		parts := make([]string, len(es))
		for i, e := range es {
			if e.key != nil {
				parts[i] = r.key(e.key)
			}
			parts[i] += r.compact(e.value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	if s, ok := tostringMeta(r.L, v); ok {
		return s
	}
	return v.String()
}

// key renders a table key with its " = ".
func (r *renderer) key(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok && isIdentifier(string(s)) {
		return string(s) + " = "
	}
	return "[" + r.compact(k) + "] = "
}

// entry is one table field; key is nil for the sequence part 1..n.
type entry struct {
	key, value lua.LValue
}

// entries lists a table's fields in a stable order: the sequence 1..n
// first, then numbers, strings, booleans and other keys, each sorted.
func entries(tb *lua.LTable) []entry {
	var es []entry
	n := 0
	for ; tb.RawGetInt(n+1) != lua.LNil; n++ {
		es = append(es, entry{value: tb.RawGetInt(n + 1)})
	}
	var rest []entry
	tb.ForEach(func(k, v lua.LValue) {
		if num, ok := k.(lua.LNumber); ok && float64(num) == math.Trunc(float64(num)) && num >= 1 && int(num) <= n {
			return
		}
		rest = append(rest, entry{key: k, value: v})
	})
	sort.SliceStable(rest, func(i, j int) bool { return keyLess(rest[i].key, rest[j].key) })
	return append(es, rest...)
}

func keyLess(a, b lua.LValue) bool {
	rank := func(v lua.LValue) int {
		switch v.Type() {
		case lua.LTNumber:
			return 0
		case lua.LTString:
			return 1
		case lua.LTBool:
			return 2
		}
		return 3
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra < rb
	}
	switch a := a.(type) {
	case lua.LNumber:
		return a < b.(lua.LNumber)
	case lua.LString:
		return a < b.(lua.LString)
	case lua.LBool:
		return !bool(a) && bool(b.(lua.LBool))
	}
	return a.String() < b.String()
}

var luaKeywords = map[string]bool{
	"and": true, "break": true, "do": true, "else": true, "elseif": true, "end": true,
	"false": true, "for": true, "function": true, "if": true, "in": true, "local": true,
	"nil": true, "not": true, "or": true, "repeat": true, "return": true, "then": true,
	"true": true, "until": true, "while": true, "goto": true,
}

func isIdentifier(s string) bool {
	if s == "" || luaKeywords[s] {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// formatNumber prints a Lua number exactly: integers in full without an
// exponent, other values in the shortest form that reads back the same.
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0 && math.Signbit(f):
		return "-0"
	}
	a := math.Abs(f)
	switch {
	case a < 1e21 && f == math.Trunc(f):
		// Precision 0 prints the exact value; -1 would round 2^63 to ...6000.
		return strconv.FormatFloat(f, 'f', 0, 64)
	case a >= 1e-6 && a < 1e21:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// quote writes s as a Lua string literal.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%d`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// difference is where two values first differ; path is empty at the top.
type difference struct {
	path      string
	got, want lua.LValue
}

// comparer is t:eq's deep equality.
type comparer struct {
	L    *lua.LState
	seen map[[2]*lua.LTable]bool // pairs assumed equal while being compared
}

// equal returns nil when got equals want: tables key by key (a missing key
// reads as nil), values with an __eq metamethod and everything else by ==.
func (c *comparer) equal(got, want lua.LValue, path string) *difference {
	if got == want {
		return nil
	}
	gt, gok := got.(*lua.LTable)
	wt, wok := want.(*lua.LTable)
	if !gok || !wok || c.hasEq(gt) || c.hasEq(wt) {
		if c.L.Equal(got, want) {
			return nil
		}
		return &difference{path: path, got: got, want: want}
	}
	pair := [2]*lua.LTable{gt, wt}
	if c.seen[pair] {
		return nil
	}
	c.seen[pair] = true
	keys := map[lua.LValue]bool{}
	var order []lua.LValue
	collect := func(tb *lua.LTable) {
		tb.ForEach(func(k, _ lua.LValue) {
			if !keys[k] {
				keys[k] = true
				order = append(order, k)
			}
		})
	}
	collect(wt)
	collect(gt)
	sort.SliceStable(order, func(i, j int) bool { return keyLess(order[i], order[j]) })
	for _, k := range order {
		if d := c.equal(gt.RawGet(k), wt.RawGet(k), path+c.step(k)); d != nil {
			return d
		}
	}
	return nil
}

func (c *comparer) hasEq(tb *lua.LTable) bool {
	return c.L.GetMetaField(tb, "__eq") != lua.LNil
}

func (c *comparer) step(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok && isIdentifier(string(s)) {
		return "." + string(s)
	}
	return "[" + renderLine(c.L, k) + "]"
}

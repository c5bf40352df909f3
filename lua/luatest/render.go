package luatest

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/sandbox"
)

// width is where a table's rendering breaks into one entry per line.
const width = 72

// A rendering shows maxRenderDepth levels of nested tables ("{…}" below
// them) and at most maxRenderText bytes ("…" after them), and checks the
// budget as it goes: a value nested a million deep or a million wide gives
// a short report, and soon.
const (
	maxRenderDepth = 12
	maxRenderText  = 4 << 10
)

// render shows v as Lua source would write it: numbers exactly, strings
// quoted, tables as constructors (sorted keys, nested, several lines when
// long), and values with __tostring through it.
func render(L *lua.LState, v lua.LValue) string {
	r := renderer{L: L, open: map[*lua.LTable]bool{}}
	w := &textWriter{left: maxRenderText}
	r.value(w, v, "", 0)
	return w.b.String()
}

// renderLine is render on one line.
func renderLine(L *lua.LState, v lua.LValue) string {
	r := renderer{L: L, open: map[*lua.LTable]bool{}}
	w := &textWriter{left: maxRenderText}
	r.compact(w, v, 0)
	return w.b.String()
}

// textWriter writes up to left more bytes, then "…" once, then nothing.
type textWriter struct {
	b    strings.Builder
	left int
	full bool
}

func (w *textWriter) str(s string) {
	if w.full {
		return
	}
	if len(s) > w.left {
		n := max(w.left, 0)
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		w.b.WriteString(s[:n])
		w.b.WriteString("…")
		w.full = true
		return
	}
	w.b.WriteString(s)
	w.left -= len(s)
}

type renderer struct {
	L     *lua.LState
	open  map[*lua.LTable]bool // tables being rendered, to cut cycles
	steps int                  // tables rendered, for the budget checks
}

// tick checks the budget every 256 tables.
func (r *renderer) tick() {
	r.steps++
	if r.steps%256 == 0 {
		sandbox.CheckBudget(r.L)
	}
}

func (r *renderer) value(w *textWriter, v lua.LValue, indent string, depth int) {
	tb, ok := v.(*lua.LTable)
	if !ok || r.open[tb] || depth >= maxRenderDepth || r.L.GetMetaField(tb, "__tostring") != lua.LNil {
		r.compact(w, v, depth)
		return
	}
	line := &textWriter{left: width - len(indent)}
	if r.compact(line, v, depth); !line.full {
		w.str(line.b.String())
		return
	}
	r.tick()
	r.open[tb] = true
	defer delete(r.open, tb)
	inner := indent + "  "
	w.str("{\n")
	for _, e := range entries(tb) {
		if w.full {
			return
		}
		w.str(inner)
		if e.key != nil {
			r.key(w, e.key, depth)
		}
		r.value(w, e.value, inner, depth+1)
		w.str(",\n")
	}
	w.str(indent + "}")
}

func (r *renderer) compact(w *textWriter, v lua.LValue, depth int) {
	if w.full {
		return
	}
	switch v := v.(type) {
	case lua.LNumber:
		w.str(formatNumber(float64(v)))
		return
	case lua.LString:
		w.str(quote(string(v[:min(len(v), w.left+1)])))
		return
	case *lua.LTable:
		if s, ok := tostringMeta(r.L, v); ok {
			w.str(s)
			return
		}
		if r.open[v] {
			w.str("<cycle>")
			return
		}
		if depth >= maxRenderDepth {
			w.str("{…}")
			return
		}
		r.tick()
		r.open[v] = true
		defer delete(r.open, v)
		w.str("{")
		for i, e := range entries(v) {
			if w.full {
				return
			}
			if i > 0 {
				w.str(", ")
			}
			if e.key != nil {
				r.key(w, e.key, depth)
			}
			r.compact(w, e.value, depth+1)
		}
		w.str("}")
		return
	}
	if s, ok := tostringMeta(r.L, v); ok {
		w.str(s)
		return
	}
	w.str(v.String())
}

// key renders a table key with its " = ".
func (r *renderer) key(w *textWriter, k lua.LValue, depth int) {
	if s, ok := k.(lua.LString); ok && isIdentifier(string(s)) {
		w.str(string(s) + " = ")
		return
	}
	w.str("[")
	r.compact(w, k, depth+1)
	w.str("] = ")
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

// comparer is t:eq's deep equality. It walks the tables with a stack of
// its own, not Go's, and checks the budget as it goes: a table nested a
// million deep costs memory, not Go stack.
type comparer struct {
	L     *lua.LState
	seen  map[[2]*lua.LTable]bool // pairs assumed equal while being compared
	steps int
}

// comparing is a pair of tables being compared: their keys in order, and
// how many have been taken.
type comparing struct {
	got, want *lua.LTable
	keys      []lua.LValue
	next      int
}

// equal returns nil when got equals want: tables key by key (a missing key
// reads as nil), values with an __eq metamethod and everything else by ==.
// The first difference is the first in key order, depth first.
func (c *comparer) equal(got, want lua.LValue) *difference {
	var stack []comparing
	for {
		c.tick()
		pair, differs := c.open(got, want)
		if differs {
			return &difference{path: c.path(stack), got: got, want: want}
		}
		if pair != nil {
			stack = append(stack, *pair)
		}
		for {
			if len(stack) == 0 {
				return nil
			}
			top := &stack[len(stack)-1]
			if top.next < len(top.keys) {
				k := top.keys[top.next]
				top.next++
				got, want = top.got.RawGet(k), top.want.RawGet(k)
				break
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// open compares got and want where it can at once; two tables to compare
// key by key come back as a pair.
func (c *comparer) open(got, want lua.LValue) (pair *comparing, differs bool) {
	if got == want {
		return nil, false
	}
	gt, gok := got.(*lua.LTable)
	wt, wok := want.(*lua.LTable)
	if !gok || !wok || c.hasEq(gt) || c.hasEq(wt) {
		return nil, !c.L.Equal(got, want)
	}
	k := [2]*lua.LTable{gt, wt}
	if c.seen[k] {
		return nil, false
	}
	c.seen[k] = true
	keys := map[lua.LValue]bool{}
	var order []lua.LValue
	collect := func(tb *lua.LTable) {
		tb.ForEach(func(k, _ lua.LValue) {
			c.tick()
			if !keys[k] {
				keys[k] = true
				order = append(order, k)
			}
		})
	}
	collect(wt)
	collect(gt)
	sort.SliceStable(order, func(i, j int) bool { c.tick(); return keyLess(order[i], order[j]) })
	return &comparing{got: gt, want: wt, keys: order}, false
}

// tick counts a step of the comparison and checks the budget every 1024.
func (c *comparer) tick() {
	c.steps++
	if c.steps%1024 == 0 {
		sandbox.CheckBudget(c.L)
	}
}

func (c *comparer) hasEq(tb *lua.LTable) bool {
	return c.L.GetMetaField(tb, "__eq") != lua.LNil
}

// maxPathSteps is how many keys of a path the report shows: half from its
// start, half from its end.
const maxPathSteps = 16

// path is where the pair after the keys taken in stack is.
func (c *comparer) path(stack []comparing) string {
	step := func(p comparing) string {
		k := p.keys[p.next-1]
		if s, ok := k.(lua.LString); ok && isIdentifier(string(s)) {
			return "." + string(s)
		}
		return "[" + renderLine(c.L, k) + "]"
	}
	var b strings.Builder
	for i, p := range stack {
		if len(stack) > maxPathSteps && i == maxPathSteps/2 {
			fmt.Fprintf(&b, "…(%d keys)…", len(stack)-maxPathSteps)
		}
		if len(stack) <= maxPathSteps || i < maxPathSteps/2 || i >= len(stack)-maxPathSteps/2 {
			b.WriteString(step(p))
		}
	}
	return b.String()
}

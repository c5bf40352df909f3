package scripting

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// readAll reads tbl as fn's option table with keys, in a protected call,
// and returns what get and has report for each key.
func readAll(t *testing.T, keys []string, tbl *lua.LTable) (vals []lua.LValue, has []bool, err error) {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	f := L.NewFunction(func(L *lua.LState) int {
		o := readOptions(L, tbl, 1, "f", keys, nil)
		for _, k := range keys {
			vals = append(vals, o.get(k))
			has = append(has, o.has(k))
		}
		return 0
	})
	err = L.CallByParam(lua.P{Fn: f, Protect: true})
	return vals, has, err
}

// An option list longer than the slots held in place reads like a short
// one: every key, either spelling, absent keys absent, one spelling per key.
func TestOptionsPastInline(t *testing.T) {
	keys := make([]string, inlineOptions+3)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%d", i)
	}
	keys[len(keys)-1] = "last?"
	tbl := &lua.LTable{}
	for i, k := range keys {
		if i == inlineOptions+1 {
			continue // left absent
		}
		if i%2 == 1 {
			k = snake(k)
		}
		tbl.RawSetString(k, lua.LNumber(i))
	}
	vals, has, err := readAll(t, keys, tbl)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		want := lua.LValue(lua.LNumber(i))
		if i == inlineOptions+1 {
			want = lua.LNil
		}
		if vals[i] != want || has[i] != (want != lua.LNil) {
			t.Errorf(":%s: get %v, has %v; want %v", k, vals[i], has[i], want)
		}
	}

	tbl.RawSetString("key-11", lua.LTrue)
	tbl.RawSetString("key_11", lua.LTrue)
	_, _, err = readAll(t, keys, tbl)
	if err == nil || !strings.Contains(err.Error(), "are one option; give one spelling") {
		t.Errorf("both spellings of a key past the inline slots: %v", err)
	}
}

// optionLists returns every key list the package's non-test files give
// checkOptions or readOptions, by position: a []string literal, or a
// package-level variable holding one.
func optionLists(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	vars := map[string]ast.Expr{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							vars[n.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
	lists := map[string][]string{}
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			if fd, ok := n.(*ast.FuncDecl); ok && fd.Name.Name == "checkOptions" {
				return false // it passes its caller's list on
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			id, ok := call.Fun.(*ast.Ident)
			if !ok || id.Name != "checkOptions" && id.Name != "readOptions" {
				return true
			}
			arg := map[string]int{"checkOptions": 3, "readOptions": 4}[id.Name]
			pos := fset.Position(call.Pos()).String()
			expr := call.Args[arg]
			if v, ok := expr.(*ast.Ident); ok && vars[v.Name] != nil {
				expr = vars[v.Name]
			}
			lit, ok := expr.(*ast.CompositeLit)
			if !ok {
				t.Errorf("%s: the keys of %s are not a []string literal or a package variable holding one: this test cannot check them", pos, id.Name)
				return true
			}
			var keys []string
			for _, e := range lit.Elts {
				b, ok := e.(*ast.BasicLit)
				if !ok || b.Kind != token.STRING {
					t.Errorf("%s: a key that is not a string literal", pos)
					return true
				}
				s, err := strconv.Unquote(b.Value)
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, s)
			}
			lists[pos] = keys
			return true
		})
	}
	return lists
}

// Every option list of the package reads a table that sets all its keys,
// and no two of its keys share a spelling.
func TestEveryOptionList(t *testing.T) {
	lists := optionLists(t)
	if len(lists) < 10 {
		t.Fatalf("found %d option lists; the search is broken", len(lists))
	}
	t.Logf("%d option lists", len(lists))
	for pos, keys := range lists {
		for i, k := range keys {
			for _, s := range []string{k, snake(k)} {
				if j := keyIndex(keys, s); j != i {
					t.Errorf("%s: :%s reads as :%s", pos, s, keys[j])
				}
			}
		}
		tbl := &lua.LTable{}
		for i, k := range keys {
			tbl.RawSetString(k, lua.LNumber(i))
		}
		vals, _, err := readAll(t, keys, tbl)
		if err != nil {
			t.Errorf("%s: %v", pos, err)
			continue
		}
		for i, k := range keys {
			if vals[i] != lua.LNumber(i) {
				t.Errorf("%s: :%s read as %v, want %d", pos, k, vals[i], i)
			}
		}
	}
}

// BenchmarkReadOptions is schedule_once's option table read and its values
// fetched: the part of scheduling that option parsing costs.
func BenchmarkReadOptions(b *testing.B) {
	L := lua.NewState()
	defer L.Close()
	keys := []string{"delay", "at", "callback", "label"}
	tbl := L.NewTable()
	tbl.RawSetString("delay", lua.LNumber(1))
	tbl.RawSetString("callback", lua.LTrue)
	tbl.RawSetString("label", lua.LString("x"))
	b.ReportAllocs()
	for b.Loop() {
		o := readOptions(L, tbl, 2, "schedule-once", keys, nil)
		if o.get("delay") == lua.LNil || o.has("at") || o.get("label") == lua.LNil {
			b.Fatal("wrong options")
		}
	}
}

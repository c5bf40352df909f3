package scripting

import (
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

// A binding calls Lua only through the sandbox (sandbox.Callbacks, PCall,
// Drain): gopher-lua's own calls skip the budgets, the guard against a
// registry overflow and the callback's traceback. No file of the package
// calls one of them on a *lua.LState.
func TestBindingsCallLuaThroughTheSandbox(t *testing.T) {
	raw := map[string]bool{"PCall": true, "CallByParam": true, "DoString": true, "DoFile": true, "Resume": true}
	fset := token.NewFileSet()
	bp, err := build.Default.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("github.com/metronome-rt/metronome/lua/scripting", fset, files, info); err != nil {
		t.Fatal(err)
	}
	calls := 0
	for sel, s := range info.Selections {
		fn, ok := s.Obj().(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "github.com/yuin/gopher-lua" {
			continue
		}
		calls++
		recv := fn.Type().(*types.Signature).Recv()
		if recv != nil && raw[fn.Name()] && types.TypeString(recv.Type(), nil) == "*github.com/yuin/gopher-lua.LState" {
			t.Errorf("%s: calls (*lua.LState).%s; call Lua through the sandbox (sandbox.Callbacks, PCall, Drain)", fset.Position(sel.Pos()), fn.Name())
		}
	}
	if calls < 100 {
		t.Fatalf("found %d calls into gopher-lua; want the package's", calls)
	}
}

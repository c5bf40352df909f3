package scripting

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// dotCalled wraps the functions of the module mod (named module, held by
// scripts in a variable the docs call local) so that a colon call
// (RuntimeTimers:Timeout{...}, whose first argument is mod itself) names
// the mistake instead of reading mod as an option table.
func dotCalled(mod *lua.LTable, module, local string, fns map[string]lua.LGFunction) map[string]lua.LGFunction {
	for name, f := range fns {
		call := local + "." + name
		if strings.Contains(name, "-") {
			call = local + `["` + name + `"]`
		}
		msg := "got the " + module + " module: call " + call + " with '.', not ':'"
		fns[name] = func(L *lua.LState) int {
			if L.Get(1) == lua.LValue(mod) {
				argError(L, 1, name, msg)
			}
			return f(L)
		}
	}
	return fns
}

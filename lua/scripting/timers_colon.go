package scripting

import (
	"github.com/yuin/gopher-lua"
)

// dotCalled wraps the functions of the runtime-timers module mod so that a
// colon call (RuntimeTimers:Timeout{...}, whose first argument is mod
// itself) names the mistake instead of reading mod as an option table.
func dotCalled(mod *lua.LTable, fns map[string]lua.LGFunction) map[string]lua.LGFunction {
	for name, f := range fns {
		fns[name] = func(L *lua.LState) int {
			if L.Get(1) == lua.LValue(mod) {
				argError(L, 1, name, "got the runtime-timers module: call RuntimeTimers."+name+" with '.', not ':'")
			}
			return f(L)
		}
	}
	return fns
}

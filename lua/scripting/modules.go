package scripting

import lua "github.com/yuin/gopher-lua"

// builtinModules are preloaded into every state NewState makes, by name,
// through package.preload: a script gets one with require, never as a global.
// Options.Modules adds to this table (and replaces entries of the same name).
var builtinModules = map[string]lua.LGFunction{
	"runtime-scheduler": loadRuntimeScheduler,
	// app-host.services needs no host: make-scheduler makes its own.
	"app-host.services": loadAppHostServices,
	"temporal":          loadTemporal,
	"event-loop":        loadEventLoop,
}

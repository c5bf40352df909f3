// Package luatest runs Lua test files: the harness behind `metronome test`
// and behind Go tests that run Lua suites as subtests (RunGo).
//
// # Test files
//
// A test file is named *_test.lua and registers tests at its top level:
//
//	test("adds", function(t)
//	  t:eq(1 + 1, 2)
//	end)
//
// The file's main chunk runs first; then its tests run in registration
// order. t has these methods:
//
//	t:eq(got, want [, msg])  deep equality: tables compare key by key, nested
//	                         and cycle-safe; values with an __eq metamethod
//	                         compare with ==; metatables are otherwise ignored
//	t:ok(cond [, msg])       cond is neither nil nor false
//	t:error(fn [, text])     fn raises an error whose message (a string, or
//	                         the value's __tostring) contains text as plain
//	                         text, not a Lua pattern; without text, any error
//	t:skip([reason])         stops the test; it counts as skipped
//	t:log(...)               notes shown with a failure (and by go test -v)
//	t.name                   the test's name
//
// A failing assertion stops its test; the line reported is the line in the
// test file that made the call (also when the call came through a helper in
// another file). A test that raises any other error fails with the message
// and a traceback. Either way the remaining tests of the file still run.
//
// A file is loaded as `metronome run` loads a script (scripting.LoadFile):
// Lua source only, a precompiled chunk is refused; a first line starting
// with # is skipped. A file that does not compile, whose main chunk raises
// an error, that registers no test, or that registers two tests of one name
// (the failure names both lines) is one failure and runs no tests.
//
// # States
//
// Each file runs in its own state, made by the caller's Factory, so a caller
// decides the sandbox, the modules and the host behind them. The harness adds
// one global, test, and otherwise leaves the state as the factory made it.
// HostState is the factory of `metronome test` and of go test ./tests: the
// sandbox, and a host of its own on a virtual clock from Epoch, which
// os.time, os.date and os.clock read.
//
// # Report
//
// Report writes one block per failure and a summary:
//
//	tests/sum_test.lua:4: adds: values differ
//	    got: 3
//	    want: 2
//	1 passed, 1 failed, 1 skipped
//
// The ", N skipped" part appears only when a test was skipped.
package luatest

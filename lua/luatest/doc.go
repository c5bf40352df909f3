// Package luatest runs Lua test files: the harness behind `metronome test`
// and behind Go tests that run Lua suites as subtests (RunGo).
//
// # Test files
//
// A test file is named *_test.lua (or *_test.fnl, Fennel compiled by the
// state's compiler: see scripting.Options.Fennel) and registers tests at
// its top level:
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
//	t:near(got, want, tol [, msg])
//	                         numbers within tol: |got - want| <= tol
//	t:error(fn [, text])     fn raises an error whose message (a string, or
//	                         the value's __tostring) contains text as plain
//	                         text, not a Lua pattern; without text, any error
//	t:skip([reason])         stops the test; it counts as skipped
//	t:log(...)               notes shown with a failure (and by go test -v)
//	t.name                   the test's full name
//
// # Blocks and hooks
//
// describe(name, fn) runs fn at once, while the file loads; the tests and
// hooks fn registers belong to the block. A test's full name joins the
// names of its blocks and its own with spaces; duplicate detection,
// Options.Filter, the report and RunGo's subtests use it.
//
// before_each(fn) and after_each(fn) register hooks in the file or the
// block being declared; each is called with the test's t. Before a test
// the file's before_each hooks run, then each block's inwards; after it
// the innermost block's after_each hooks run first, outwards to the
// file's; within one scope, in registration order. A before_each that
// fails or skips stops the hooks after it and the body; the after_each
// hooks of every scope whose before_each hooks started still run, also
// when the test failed. The first failure, in a hook or the body, is the
// one reported. test, describe and the hooks are refused once the main
// chunk has finished.
//
// A failing assertion stops its test; the line reported is the line of the
// test's own function (or hook's) that made the call, directly or through
// helpers; a helper in the test file adds its line as the first detail
// ("checked at x_test.lua:4, in function 'check'"). Without the test's
// function on the stack, it is the innermost line of the test file. A test that raises any other error fails with the message
// and a traceback. Either way the remaining tests of the file still run.
// A report stays short: a traceback of at most 40 frames, an error's text
// cut to 16 KiB (an error object's __tostring called with a budget of its
// own), and in t:eq's and t:ok's details 12 levels of a table and 4 KiB of
// each value. t:eq checks the state's budget as it compares.
//
// A file is loaded as `metronome run` loads a script (scripting.LoadFile):
// Lua source only, a precompiled chunk is refused; a first line starting
// with # is skipped. A file that does not compile, whose main chunk raises
// an error, that registers no test, or that registers two tests of one name
// (the failure names both lines) is one failure and runs no tests.
//
// # States
//
// Each file runs in its own state, made by the caller's Factory as an Env,
// so a caller decides the sandbox, the modules and the host behind them.
// The harness adds the globals test, describe, before_each and after_each
// and otherwise leaves the state as the factory made it; it calls
// Env.Loaded after the main chunk (an error fails the file) and Env.Begin
// and Env.End around each test, outside its hooks.
//
// HostState is the factory of `metronome test` and of go test ./tests: the
// sandbox, and app-host and runtime-timers on a scripting.HostSlot. The
// main chunk runs on a load host; each test gets a fresh host
// (hostservices.New on a clock fixed at Epoch: unpaused, empty), swapped in
// behind the same Lua objects, and dropped after the test with every kind of
// work on its scheduler, so no test sees another's and order and filters
// change no result. os.time, os.date and os.clock read the current host. A
// main chunk that leaves jobs or facets on the load host fails the file,
// naming them ("set them up in `before_each`"). math.random is seeded with
// FileSeed for the main chunk and reseeded with TestSeed (the seed, the
// file's name, the test's full name) before each test.
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
// The ", N skipped" part appears only when a test was skipped. Verbose is
// the line of one result as it finishes (status, file, full name, wall
// time); ReportTAP writes TAP version 14 and ReportJUnit JUnit XML. A Filter
// that matches no test adds one failed Result with no File, shown as
// "(run)".
package luatest

-- luacheck over examples/, tests/ and internal/bench/ (make lint-lua; make test runs it).
std = "lua51"
-- Tests quote whole error messages; a line is as long as its message.
max_line_length = false
-- Callbacks and facets spell out the arguments they are given.
unused_args = false
-- The harness's globals in *_test.lua files (lua/luatest).
files["**/*_test.lua"] = {
  read_globals = { "test", "describe", "before_each", "after_each" },
}
-- Scripts under testdata are inputs that fail on purpose.
exclude_files = { "**/testdata/**" }

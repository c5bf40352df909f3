-- note(s) records in Go; each hook notes what it is and the test's name.
before_each(function(t) note("file before " .. t.name) end)
after_each(function(t) note("file after " .. t.name) end)

test("plain", function(t) note("body") end)

describe("outer", function()
  before_each(function(t) note("outer before 1") end)
  before_each(function(t) note("outer before 2") end)
  after_each(function(t) note("outer after") end)

  describe("inner", function()
    before_each(function(t) note("inner before") end)
    after_each(function(t) note("inner after") end)
    test("fails", function(t)
      note("body")
      t:eq(1, 2)
    end)
    test("errors", function(t)
      note("body")
      error("boom")
    end)
  end)

  test("passes", function(t) note("body") end)
end)

describe("setup fails", function()
  before_each(function(t) note("failing before"); t:eq("setup", "ok") end)
  before_each(function(t) note("not reached") end)
  after_each(function(t) note("setup-fails after") end)
  test("body skipped", function(t) note("body not reached") end)
end)

describe("setup skips", function()
  before_each(function(t) t:skip("no backend") end)
  test("skipped", function(t) note("body not reached") end)
end)

describe("teardown fails", function()
  after_each(function(t) note("failing after"); error("teardown boom") end)
  test("passing body", function(t) note("body") end)
end)

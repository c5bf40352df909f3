test("passes", function(t) t:eq(1, 1) end)

describe("group", function()
  test("fails", function(t)
    t:log("a note with <xml> & \"quotes\"")
    t:eq({ 1, 2 }, { 1, 3 })
  end)
  test("skips", function(t) t:skip("not # today") end)
end)

test("logs and passes", function(t) t:log("shown by -v") end)
test("raises", function(t) error("boom") end)
-- A callback's error carries its own traceback in its text.
test("callback raises", function(t)
  error("cb.lua:3: boom\nstack traceback:\n\t[G]: in function 'error'\n\tcb.lua:3: in function <cb.lua:2>", 0)
end)

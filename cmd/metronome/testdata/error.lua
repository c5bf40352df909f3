local function fail(what)
  error("boom: " .. what)
end

fail("deliberate")

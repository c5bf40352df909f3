-- Conformance tests for Temporal.instant and Temporal.clock (docs/lua-temporal.md).
local Temporal = require "temporal"
local I, D = Temporal.instant, Temporal.duration

test("parse and tostring: RFC 3339 in UTC, fraction trimmed", function(t)
  t:eq(tostring(I.parse("2024-03-10T06:59:00Z")), "2024-03-10T06:59:00Z")
  t:eq(tostring(I.parse("2024-03-10T01:59:00-05:00")), "2024-03-10T06:59:00Z")
  t:eq(tostring(I.parse("2024-03-10T08:59:00+02:00")), "2024-03-10T06:59:00Z")
  t:eq(tostring(I.parse("2024-03-10T06:59:00.250Z")), "2024-03-10T06:59:00.25Z")
  t:eq(tostring(I.parse("2024-03-10T06:59:00.000000001Z")), "2024-03-10T06:59:00.000000001Z")
  t:eq(tostring(I.parse("1969-12-31T23:59:59.5Z")), "1969-12-31T23:59:59.5Z")
  t:eq(I.parse("2024-03-10T06:59:00Z"), I.parse("2024-03-10T01:59:00-05:00"))
end)

test("parse refuses a missing offset and junk", function(t)
  t:error(function() return I.parse("2024-03-10T06:59:00") end,
    'instant.parse: instant "2024-03-10T06:59:00" has no offset: add Z or ±hh:mm (RFC 3339)')
  t:error(function() return I.parse("yesterday") end, "want RFC 3339 such as 2024-03-10T06:59:00Z")
  t:error(function() return I.parse("2300-01-01T00:00:00Z") end, "overflows int64 nanoseconds")
  t:error(function() return I.parse(0) end,
    "bad argument #1 to 'instant.parse' (RFC 3339 string expected (such as \"2024-03-10T06:59:00Z\"), got number 0)")
end)

test("from-epoch-ms and epoch-ms (floor)", function(t)
  t:eq(tostring(I["from-epoch-ms"](0)), "1970-01-01T00:00:00Z")
  t:eq(tostring(I.from_epoch_ms(1710053940000)), "2024-03-10T06:59:00Z")
  t:eq(tostring(I.from_epoch_ms(-1)), "1969-12-31T23:59:59.999Z")
  t:eq(I.parse("2024-03-10T06:59:00Z"):epoch_ms(), 1710053940000)
  local t0 = I.parse("2024-03-10T06:59:00Z")
  t:eq(t0["epoch-ms"](t0), 1710053940000)
  t:eq(I.parse("2024-03-10T06:59:00.9999Z"):epoch_ms(), 1710053940999)
  t:eq(I.parse("1969-12-31T23:59:59.9995Z"):epoch_ms(), -1)        -- floor, not toward zero
  t:eq(I.parse("1969-12-31T23:59:59.999999999Z"):epoch_ms(), -1)
  local ms = I.parse("2024-03-10T06:59:00.5Z"):epoch_ms()
  t:eq(math.floor(ms), ms)
end)

test("from-epoch-ms refuses fractions, strings and overflow", function(t)
  t:error(function() return I.from_epoch_ms(1.5) end,
    "bad argument #1 to 'instant.from-epoch-ms' (epoch milliseconds must be an integer number, got number 1.5)")
  t:error(function() return I.from_epoch_ms("16") end, 'got string "16"')
  t:error(function() return I.from_epoch_ms(0 / 0) end, "got number NaN")
  t:error(function() return I.from_epoch_ms(1 / 0) end, "got number inf")
  t:error(function() return I.from_epoch_ms(2 ^ 60) end, "instant.from-epoch-ms: epoch milliseconds 1152921504606846976 overflows int64 nanoseconds")
end)

test("from-epoch-ns takes a decimal string or an integer up to 2^53", function(t)
  t:eq(tostring(I["from-epoch-ns"]("1710053940000000001")), "2024-03-10T06:59:00.000000001Z")
  t:eq(tostring(I.from_epoch_ns("-1")), "1969-12-31T23:59:59.999999999Z")
  t:eq(tostring(I.from_epoch_ns("+1")), "1970-01-01T00:00:00.000000001Z")
  t:eq(tostring(I.from_epoch_ns(1500)), "1970-01-01T00:00:00.0000015Z")
  t:eq(I.from_epoch_ns(2 ^ 53):epoch_ns(), "9007199254740992")
  t:eq(I.from_epoch_ns(-(2 ^ 53)):epoch_ns(), "-9007199254740992")
  t:eq(I.from_epoch_ns("9223372036854775807"):epoch_ns(), "9223372036854775807")
  t:eq(I.from_epoch_ns("-9223372036854775808"):epoch_ns(), "-9223372036854775808")
  t:eq(tostring(I.from_epoch_ns("9223372036854775807")), "2262-04-11T23:47:16.854775807Z")
end)

test("from-epoch-ns refusals", function(t)
  t:error(function() return I.from_epoch_ns(2 ^ 53 + 2) end,
    "epoch nanoseconds number 9007199254740994 is beyond 2^53, where Lua numbers stop being exact; pass a decimal string")
  t:error(function() return I.from_epoch_ns(1.5) end, "epoch nanoseconds must be an integer, got number 1.5")
  t:error(function() return I.from_epoch_ns("1.5") end, 'epoch nanoseconds "1.5" is not a decimal integer')
  t:error(function() return I.from_epoch_ns("1e9") end, "is not a decimal integer")
  t:error(function() return I.from_epoch_ns(" 1") end, "is not a decimal integer")
  t:error(function() return I.from_epoch_ns("0x10") end, "is not a decimal integer")
  t:error(function() return I.from_epoch_ns("") end, "is not a decimal integer")
  t:error(function() return I.from_epoch_ns("9223372036854775808") end, "overflows int64 nanoseconds")
  t:error(function() return I.from_epoch_ns(true) end,
    "bad argument #1 to 'instant.from-epoch-ns' (epoch nanoseconds must be a decimal string or an integer number, got boolean true)")
end)

test("epoch-ns round trips through a decimal string", function(t)
  local t0 = I.parse("2024-03-10T06:59:00.123456789Z")
  t:eq(t0:epoch_ns(), "1710053940123456789")
  t:eq(t0["epoch-ns"](t0), "1710053940123456789")
  t:eq(I.from_epoch_ns(t0:epoch_ns()), t0)
  t:eq(type(t0:epoch_ns()), "string")
end)

test("instant arithmetic", function(t)
  local t0 = I.parse("2024-03-10T06:59:00Z")
  local minute = D{ minutes = 1 }
  t:eq(tostring(t0 + minute), "2024-03-10T07:00:00Z")
  t:eq(tostring(minute + t0), "2024-03-10T07:00:00Z")
  t:eq(tostring(t0 - minute), "2024-03-10T06:58:00Z")
  t:eq(tostring(t0 + D{ nanoseconds = 1 }), "2024-03-10T06:59:00.000000001Z")
  t:eq(tostring(t0 + D{ nanoseconds = -1 }), "2024-03-10T06:58:59.999999999Z")
  local d = (t0 + D{ hours = 1, nanoseconds = 5 }) - t0
  t:eq(tostring(d), "PT1H0.000000005S")
  t:eq(tostring(t0 - (t0 + minute)), "-PT1M")
  t:eq((t0 + minute) - minute, t0)
end)

test("instant arithmetic refusals and overflow", function(t)
  local t0 = I.parse("2024-03-10T06:59:00Z")
  t:error(function() return t0 + t0 end, "bad operands to '+' (Temporal.instant 2024-03-10T06:59:00Z + Temporal.instant 2024-03-10T06:59:00Z;")
  t:error(function() return t0 + 1000 end, "Temporal.instant 2024-03-10T06:59:00Z + number 1000")
  t:error(function() return D{ seconds = 1 } - t0 end, "bad operands to '-' (Temporal.duration PT1S - Temporal.instant")
  t:error(function() return t0 * 2 end, "bad operands to '*'")
  t:error(function() return -t0 end, "bad operand to unary '-' (Temporal.instant 2024-03-10T06:59:00Z; only a duration negates)")
  local last = I.from_epoch_ns("9223372036854775807")
  t:error(function() return last + D{ nanoseconds = 1 } end, "overflows int64 nanoseconds")
  local first = I.from_epoch_ns("-9223372036854775808")
  t:error(function() return first - D{ nanoseconds = 1 } end, "overflows int64 nanoseconds")
  t:error(function() return last - first end, "overflows int64 nanoseconds")
  local min = D.parse("-PT2562047H47M16.854775807S") - D{ nanoseconds = 1 }
  t:eq(I.from_epoch_ns("-1") - min, last)          -- -1 ns + 2^63 ns fits
  t:error(function() return I.from_epoch_ns("0") - min end, "overflows int64 nanoseconds")
end)

test("instant comparisons", function(t)
  local a = I.parse("2024-03-10T06:59:00Z")
  local b = a + D{ nanoseconds = 1 }
  t:ok(a < b)
  t:ok(a <= b and a <= a)
  t:ok(b > a and b >= b)
  t:ok(not (b < a)) -- luacheck: ignore 581 (the < metamethod is under test)
  t:ok(a == I.from_epoch_ms(1710053940000))
  t:ok(a ~= b)
  t:error(function() return a < D{ seconds = 1 } end, "bad operands to '<' (Temporal.instant 2024-03-10T06:59:00Z < Temporal.duration PT1S;")
  t:error(function() return a < "2024" end, "attempt to compare")
end)

test("to-zoned-string", function(t)
  local t0 = I.parse("2024-03-10T07:00:00Z")
  t:eq(t0["to-zoned-string"](t0, "America/New_York"), "2024-03-10T03:00:00-04:00[America/New_York]")
  t:eq(t0:to_zoned_string("America/New_York"), "2024-03-10T03:00:00-04:00[America/New_York]")
  t:eq((t0 - D{ nanoseconds = 1 }):to_zoned_string("America/New_York"), "2024-03-10T01:59:59.999999999-05:00[America/New_York]")
  t:eq(t0:to_zoned_string("UTC"), "2024-03-10T07:00:00+00:00[UTC]")
  t:eq(t0:to_zoned_string("Asia/Kolkata"), "2024-03-10T12:30:00+05:30[Asia/Kolkata]")
end)

test("to-zoned-string refuses bad zones", function(t)
  local t0 = I.parse("2024-03-10T07:00:00Z")
  t:error(function() return t0:to_zoned_string("") end, 'to-zoned-string: zone "": a zone id is required')
  t:error(function() return t0:to_zoned_string("Mars/Olympus") end, 'to-zoned-string: zone "Mars/Olympus": unknown IANA zone id')
  t:error(function() return t0:to_zoned_string("Local") end, "the host's local zone is not available")
  t:error(function() return t0:to_zoned_string("america/new_york") end, 'did you mean "America/New_York"?')
  t:error(function() return t0:to_zoned_string() end,
    "bad argument #2 to 'to-zoned-string' (zone id string expected (such as \"America/New_York\"), got nil)")
  t:error(function() return t0.to_zoned_string("America/New_York") end,
    "bad argument #1 to 'to-zoned-string' (a Temporal.instant expected (call it as t:to_zoned_string()), got string \"America/New_York\")")
end)

test("fields gives an instant's calendar fields in a zone", function(t)
  -- the first instant after New York's spring-forward gap, a Sunday
  local f = I.parse("2024-03-10T07:00:00.5Z"):fields("America/New_York")
  t:eq(f, { year = 2024, month = 3, day = 10, hour = 3, minute = 0, second = 0, nanosecond = 500000000,
            weekday = 7, ["day-of-year"] = 70, offset = "-04:00" })
  t:eq(f.day_of_year, 70)
  local g = I.parse("2024-12-31T23:30:00Z"):fields("Europe/Paris")   -- already 2025 in Paris, a Wednesday
  t:eq({ g.year, g.month, g.day, g.weekday, g["day-of-year"], g.offset }, { 2025, 1, 1, 3, 1, "+01:00" })
  t:eq(I.parse("1900-01-01T00:00:00Z"):fields("Europe/Paris").offset, "+00:09:21")   -- local mean time
  t:error(function() return I.parse("2024-01-01T00:00:00Z"):fields("Local") end, "the host's local zone is not available")
end)

test("from-local in a gap, all four disambiguations", function(t)
  local z = "America/New_York"
  -- 2024-03-10: 02:00 EST jumps to 03:00 EDT, so 02:30 does not exist
  t:error(function() return I["from-local"]("2024-03-10T02:30:00", z) end,
    "instant.from-local: local time 2024-03-10T02:30:00 does not exist in America/New_York")
  t:error(function() return I.from_local("2024-03-10T02:30:00", z, "reject") end, "does not exist")
  t:eq(tostring(I.from_local("2024-03-10T02:30:00", z, "compatible")), "2024-03-10T07:30:00Z")
  t:eq(tostring(I.from_local("2024-03-10T02:30:00", z, "earlier")), "2024-03-10T06:30:00Z")
  t:eq(tostring(I.from_local("2024-03-10T02:30:00", z, "later")), "2024-03-10T07:30:00Z")
end)

test("from-local in an overlap, all four disambiguations", function(t)
  local z = "America/New_York"
  -- 2024-11-03: 02:00 EDT falls back to 01:00 EST, so 01:30 happens twice
  t:error(function() return I.from_local("2024-11-03T01:30:00", z) end,
    "instant.from-local: local time 2024-11-03T01:30:00 is ambiguous in America/New_York")
  t:eq(tostring(I.from_local("2024-11-03T01:30:00", z, "compatible")), "2024-11-03T05:30:00Z")
  t:eq(tostring(I.from_local("2024-11-03T01:30:00", z, "earlier")), "2024-11-03T05:30:00Z")
  t:eq(tostring(I.from_local("2024-11-03T01:30:00", z, "later")), "2024-11-03T06:30:00Z")
  -- an ordinary time is the same whatever the choice
  for _, d in ipairs{ "reject", "compatible", "earlier", "later" } do
    t:eq(tostring(I.from_local("2024-07-01T12:00:00.5", z, d)), "2024-07-01T16:00:00.5Z")
  end
end)

test("from-local refusals", function(t)
  local z = "America/New_York"
  t:error(function() return I.from_local("2024-03-10T02:30:00Z", z) end, "a local date-time carries no offset")
  t:error(function() return I.from_local("2024-03-10T02:30:00-05:00", z) end, "a local date-time carries no offset")
  t:error(function() return I.from_local("2024-02-30T00:00:00", z) end, "day 30 is out of range 1..29")
  t:error(function() return I.from_local("2024-03-10", z) end, "want YYYY-MM-DDTHH:MM:SS")
  t:error(function() return I.from_local("2024-03-10T12:00:00", "") end, 'instant.from-local: zone "": a zone id is required')
  t:error(function() return I.from_local("2024-03-10T12:00:00", "Mars/Olympus") end, 'zone "Mars/Olympus": unknown IANA zone id')
  t:error(function() return I.from_local("2024-03-10T12:00:00", z, "latest") end,
    'bad argument #3 to \'instant.from-local\' (disambiguation "latest": want "reject", "compatible", "earlier" or "later")')
  t:error(function() return I.from_local("2024-03-10T12:00:00", z, 1) end, "disambiguation must be a string")
  t:error(function() return I.from_local("2024-03-10T12:00:00") end, "bad argument #2 to 'instant.from-local'")
  t:error(function() return I.from_local(nil, z) end, "bad argument #1 to 'instant.from-local'")
end)

test("clocks", function(t)
  local t0 = I.parse("2024-03-10T06:59:00Z")
  local c = Temporal.clock.fixed(t0)
  t:eq(c:now(), t0)
  t:eq(c:now(), t0)
  t:eq(tostring(c), "Temporal.clock fixed 2024-03-10T06:59:00Z")
  -- The wall clock is refused on a test's virtual clock (metronome test
  -- --allow-wallclock allows it); lua/scripting's Go tests read it.
  t:error(function() return Temporal.clock.system() end,
    "clock.system: the wall clock is refused: this state runs on a virtual clock, so a run repeats; use Temporal.clock.fixed(t), or allow the wall clock with --allow-wallclock")
  t:error(function() return Temporal.clock.fixed("2024-03-10T06:59:00Z") end,
    "bad argument #1 to 'clock.fixed' (a Temporal.instant expected (make one with Temporal.instant.parse), got string \"2024-03-10T06:59:00Z\")")
  t:error(function() return Temporal.clock.fixed(D{}) end, "got Temporal.duration PT0S")
  t:error(function() return c.now() end, "bad argument #1 to 'now' (a Temporal.clock expected (call it as clock:now()), got nil)")
end)

test("type names", function(t)
  t:eq(getmetatable(I.from_epoch_ms(0)), "Temporal.instant")
  t:eq(getmetatable(Temporal.clock.fixed(I.from_epoch_ms(0))), "Temporal.clock")
  t:eq(type(I.from_epoch_ms(0)), "userdata")
end)

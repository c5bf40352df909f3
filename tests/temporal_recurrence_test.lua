-- Conformance tests for Temporal["recurrence-set"] (docs/lua-temporal.md).
local Temporal = require "temporal"
local RS, I = Temporal["recurrence-set"], Temporal.instant
local NY = "America/New_York"

-- strings renders a list of instants as RFC 3339 strings.
local function strings(list)
  local out = {}
  for i, v in ipairs(list) do out[i] = tostring(v) end
  return out
end

test("the example of the contract", function(t)
  local rs = Temporal["recurrence-set"]{ dtstart = "2024-03-09T02:30:00", rrule = "FREQ=DAILY;COUNT=3" }
  local list = rs:occurrences{ ["zone-id"] = NY, disambiguation = "compatible", limit = 10 }
  t:eq(strings(list), { "2024-03-09T07:30:00Z", "2024-03-10T07:30:00Z", "2024-03-11T06:30:00Z" })
  t:eq(#list, 3)
  t:eq(type(list[1]), "userdata")
  t:eq(list[1], I.parse("2024-03-09T07:30:00Z"))
  t:eq(Temporal.recurrence_set, Temporal["recurrence-set"])
end)

test("a daily rule across the spring-forward gap, all four disambiguations", function(t)
  -- 2024-03-10 02:30 does not exist in New York (02:00 EST -> 03:00 EDT)
  local rs = RS{ dtstart = "2024-03-08T02:30:00", rrule = "FREQ=DAILY;COUNT=4" }
  t:error(function() return rs:occurrences{ ["zone-id"] = NY } end,
    "occurrences: local time 2024-03-10T02:30:00 does not exist in America/New_York")
  t:error(function() return rs:occurrences{ zone_id = NY, disambiguation = "reject" } end, "does not exist")
  t:eq(strings(rs:occurrences{ zone_id = NY, disambiguation = "compatible" }),
    { "2024-03-08T07:30:00Z", "2024-03-09T07:30:00Z", "2024-03-10T07:30:00Z", "2024-03-11T06:30:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = NY, disambiguation = "earlier" }),
    { "2024-03-08T07:30:00Z", "2024-03-09T07:30:00Z", "2024-03-10T06:30:00Z", "2024-03-11T06:30:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = NY, disambiguation = "later" }),
    { "2024-03-08T07:30:00Z", "2024-03-09T07:30:00Z", "2024-03-10T07:30:00Z", "2024-03-11T06:30:00Z" })
end)

test("a rejected local time beyond limit or before is not an error", function(t)
  local rs = RS{ dtstart = "2024-03-08T02:30:00", rrule = "FREQ=DAILY;COUNT=4" }
  t:eq(strings(rs:occurrences{ zone_id = NY, limit = 2 }), { "2024-03-08T07:30:00Z", "2024-03-09T07:30:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = NY, before = I.parse("2024-03-10T06:00:00Z") }),
    { "2024-03-08T07:30:00Z", "2024-03-09T07:30:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = NY, after = I.parse("2024-03-11T00:00:00Z") }), { "2024-03-11T06:30:00Z" })
end)

test("a daily rule across the fall-back overlap, all four disambiguations", function(t)
  -- 2024-11-03 01:30 happens twice in New York (02:00 EDT -> 01:00 EST)
  local rs = RS{ dtstart = "2024-11-02T01:30:00", rrule = "FREQ=DAILY;COUNT=3" }
  t:error(function() return rs:occurrences{ zone_id = NY } end,
    "occurrences: local time 2024-11-03T01:30:00 is ambiguous in America/New_York")
  t:eq(strings(rs:occurrences{ zone_id = NY, disambiguation = "compatible" }),
    { "2024-11-02T05:30:00Z", "2024-11-03T05:30:00Z", "2024-11-04T06:30:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = NY, disambiguation = "earlier" }),
    { "2024-11-02T05:30:00Z", "2024-11-03T05:30:00Z", "2024-11-04T06:30:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = NY, disambiguation = "later" }),
    { "2024-11-02T05:30:00Z", "2024-11-03T06:30:00Z", "2024-11-04T06:30:00Z" })
end)

test("an hourly rule through the overlap: wall-time expansion, one 01:30", function(t)
  -- expansion is in wall time, so the repeated hour is one local time, 01:30,
  -- resolved once by the disambiguation
  local rs = RS{ dtstart = "2024-11-03T00:30:00", rrule = "FREQ=HOURLY;COUNT=3" }
  t:error(function() return rs:occurrences{ zone_id = NY } end, "2024-11-03T01:30:00 is ambiguous")
  t:eq(strings(rs:occurrences{ zone_id = NY, limit = 1 }), { "2024-11-03T04:30:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = NY, disambiguation = "earlier" }),
    { "2024-11-03T04:30:00Z", "2024-11-03T05:30:00Z", "2024-11-03T07:30:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = NY, disambiguation = "compatible" }),
    { "2024-11-03T04:30:00Z", "2024-11-03T05:30:00Z", "2024-11-03T07:30:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = NY, disambiguation = "later" }),
    { "2024-11-03T04:30:00Z", "2024-11-03T06:30:00Z", "2024-11-03T07:30:00Z" })
end)

test("an rdate equal to a rule's time is one occurrence", function(t)
  local rs = RS{ dtstart = "2024-03-01T09:00:00", rrule = "FREQ=DAILY;COUNT=2",
                 rdate = { "2024-03-02T09:00:00", "2024-03-01T09:00:00" } }
  t:eq(strings(rs:occurrences{ zone_id = "UTC" }), { "2024-03-01T09:00:00Z", "2024-03-02T09:00:00Z" })
end)

test("local times a gap folds onto one instant are one occurrence", function(t)
  -- every 30 minutes from 01:30: 02:00 and 02:30 do not exist on 2024-03-10
  local rs = RS{ dtstart = "2024-03-10T01:30:00", rrule = "FREQ=MINUTELY;INTERVAL=30;COUNT=5" }
  t:eq(strings(rs:occurrences{ zone_id = NY, disambiguation = "compatible" }),
    { "2024-03-10T06:30:00Z", "2024-03-10T07:00:00Z", "2024-03-10T07:30:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = NY, disambiguation = "earlier" }),
    { "2024-03-10T06:00:00Z", "2024-03-10T06:30:00Z", "2024-03-10T07:00:00Z", "2024-03-10T07:30:00Z" })
end)

test("RFC 5545: DTSTART counts, EXDATE removes after COUNT, RDATE adds", function(t)
  -- 2024-03-09 is a Saturday: the rule would not produce it, DTSTART still counts
  local rs = RS{ dtstart = "2024-03-09T09:00:00", rrule = "FREQ=WEEKLY;BYDAY=MO;COUNT=3" }
  t:eq(strings(rs:occurrences{ zone_id = "UTC" }),
    { "2024-03-09T09:00:00Z", "2024-03-11T09:00:00Z", "2024-03-18T09:00:00Z" })
  local ex = RS{ dtstart = "2024-03-01T09:00:00", rrule = "FREQ=DAILY;COUNT=3", exdate = { "2024-03-02T09:00:00" } }
  t:eq(strings(ex:occurrences{ zone_id = "UTC" }), { "2024-03-01T09:00:00Z", "2024-03-03T09:00:00Z" })
  local rd = RS{ dtstart = "2024-03-01T09:00:00", rrule = "FREQ=DAILY;COUNT=2",
                 rdate = { "2024-03-01T12:00:00", "2024-03-02T09:00:00" } }
  t:eq(strings(rd:occurrences{ zone_id = "UTC" }),
    { "2024-03-01T09:00:00Z", "2024-03-01T12:00:00Z", "2024-03-02T09:00:00Z" })
  local exr = RS{ dtstart = "2024-03-01T09:00:00", rrule = "FREQ=DAILY;COUNT=5",
                  rdate = { "2024-03-02T12:00:00" }, exdate = { "2024-03-02T12:00:00" },
                  exrule = "FREQ=DAILY;INTERVAL=2;COUNT=3" }
  t:eq(strings(exr:occurrences{ zone_id = "UTC" }), { "2024-03-02T09:00:00Z", "2024-03-04T09:00:00Z" })
end)

test("rrule and exrule take a list", function(t)
  local rs = RS{ dtstart = "2024-03-01T09:00:00",
                 -- DTSTART counts toward each rule's COUNT; an EXRULE does not get it
                 rrule = { "FREQ=DAILY;COUNT=2", "RRULE:FREQ=DAILY;BYHOUR=18;COUNT=3" },
                 exrule = { "FREQ=DAILY;BYHOUR=18;COUNT=1" } }
  t:eq(strings(rs:occurrences{ zone_id = "UTC" }),
    { "2024-03-01T09:00:00Z", "2024-03-02T09:00:00Z", "2024-03-02T18:00:00Z" })
  local only = RS{ dtstart = "2024-03-01T09:00:00" }
  t:eq(strings(only:occurrences{ zone_id = "UTC" }), { "2024-03-01T09:00:00Z" })
  local empty = RS{ dtstart = "2024-03-01T09:00:00", rrule = {}, rdate = {} }
  t:eq(#empty:occurrences{ zone_id = "UTC" }, 1)
end)

test("limit, after (inclusive) and before (exclusive)", function(t)
  local rs = RS{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=HOURLY" }
  t:eq(strings(rs:occurrences{ zone_id = "UTC", limit = 2 }), { "2024-01-01T00:00:00Z", "2024-01-01T01:00:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = "UTC", after = I.parse("2024-01-01T05:00:00Z"), limit = 2 }),
    { "2024-01-01T05:00:00Z", "2024-01-01T06:00:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = "UTC", after = I.parse("2024-01-01T05:00:00.000000001Z"),
                               before = I.parse("2024-01-01T08:00:00Z") }),
    { "2024-01-01T06:00:00Z", "2024-01-01T07:00:00Z" })
  t:eq(strings(rs:occurrences{ zone_id = "UTC", before = I.parse("2024-01-01T00:00:00.000000001Z") }),
    { "2024-01-01T00:00:00Z" })
  t:eq(#rs:occurrences{ zone_id = "UTC", before = I.parse("2024-01-01T00:00:00Z") }, 0)
  -- 2024-03-31T02:00 does not exist in Paris: reject refuses it, compatible
  -- moves it onto 03:00, which is listed once
  t:error(function() return rs:occurrences{ ["zone-id"] = "Europe/Paris", limit = 24 * 366 } end,
    "local time 2024-03-31T02:00:00 does not exist in Europe/Paris")
  local year = rs:occurrences{ ["zone-id"] = "Europe/Paris", disambiguation = "compatible", limit = 24 * 366 }
  t:eq(#year, 24 * 366)
  t:eq(year[#year]:to_zoned_string("Europe/Paris"), "2025-01-01T00:00:00+01:00[Europe/Paris]")   -- one hour lost to the gap
end)

test("an unbounded set needs limit or before", function(t)
  local rs = RS{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=DAILY" }
  t:error(function() return rs:occurrences{ zone_id = "UTC" } end,
    "bad argument #2 to 'occurrences' (:limit: the set is unbounded (an RRULE has neither COUNT nor UNTIL): give limit or before)")
  t:error(function() return rs:occurrences{ zone_id = "UTC", after = I.parse("2024-06-01T00:00:00Z") } end, "the set is unbounded")
  t:eq(#rs:occurrences{ zone_id = "UTC", before = I.parse("2024-01-03T00:00:00Z") }, 2)
  local until_ = RS{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=DAILY;UNTIL=20240103T000000" }
  t:eq(#until_:occurrences{ zone_id = "UTC" }, 3)
end)

test("bad rules are refused when the set is made", function(t)
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rrule = "COUNT=3" } end,
    "bad argument #1 to 'recurrence-set' (:rrule \"COUNT=3\": FREQ is required (RFC 5545), e.g. FREQ=DAILY)")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=DAILY;COUNT=0" } end,
    ':rrule "FREQ=DAILY;COUNT=0": COUNT')
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=DAILY;INTERVAL=0" } end,
    ':rrule "FREQ=DAILY;INTERVAL=0": INTERVAL')
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=DAILY;COUNT=2;UNTIL=20240105T000000" } end,
    "COUNT and UNTIL must not both be given")
  t:error(function() return RS{ dtstart = "2024-01-10T00:00:00", rrule = "FREQ=DAILY;UNTIL=20240105T000000" } end,
    "is before DTSTART")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=MONTHLY;BYMONTHDAY=32" } end,
    ':rrule "FREQ=MONTHLY;BYMONTHDAY=32"')
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=FORTNIGHTLY" } end, "FREQ=FORTNIGHTLY: want SECONDLY")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=DAILY;COLOR=RED" } end, 'unknown part "COLOR"')
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", exrule = "COUNT=1" } end,
    ':exrule "COUNT=1": FREQ is required')
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rrule = { "FREQ=DAILY;COUNT=1", "BYHOUR=1" } } end,
    ':rrule "BYHOUR=1": FREQ is required')
end)

test("dtstart, rdate and exdate are local date-times", function(t)
  t:error(function() return RS{ rrule = "FREQ=DAILY;COUNT=1" } end,
    "bad argument #1 to 'recurrence-set' (:dtstart must be a local date-time string without offset (such as \"2024-03-09T09:00:00\"), got nil)")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00Z" } end, ":dtstart: local date-time \"2024-01-01T00:00:00Z\": a local date-time carries no offset")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00+01:00" } end, "a local date-time carries no offset")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00.5" } end, "a fraction of a second is not allowed")
  t:error(function() return RS{ dtstart = I.parse("2024-01-01T00:00:00Z") } end,
    ":dtstart must be a local date-time string without offset (such as \"2024-03-09T09:00:00\"), got Temporal.instant 2024-01-01T00:00:00Z")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rdate = "2024-01-02T00:00:00" } end,
    ":rdate must be a list of local date-time strings")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rdate = { "2024-01-02T00:00:00Z" } } end,
    ":rdate[1]: local date-time \"2024-01-02T00:00:00Z\": a local date-time carries no offset")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", exdate = { "2024-01-02T00:00:00", 5 } } end,
    ":exdate[2] must be a local date-time string (such as \"2024-03-09T09:00:00\"), got number 5")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", exdate = { when = "2024-01-02T00:00:00" } } end,
    ":exdate must be a list (keys 1..n), got key string \"when\"")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rrule = 5 } end,
    ":rrule must be a rule string (such as \"FREQ=DAILY;COUNT=3\") or a list of them, got number 5")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rrule = { 5 } } end, ":rrule[1] must be a rule string")
end)

test("the set's table is closed", function(t)
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", count = 3 } end,
    "unknown option :count (accepted: :dtstart :exdate :exrule :rdate :rrule)")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", ["zone-id"] = NY } end,
    "unknown option :zone-id; the zone is given to occurrences, not to the set")
  t:error(function() return RS{ dtstart = "2024-01-01T00:00:00", rrules = "FREQ=DAILY" } end, "use :rrule")
  t:error(function() return RS("FREQ=DAILY") end, "bad argument #1 to 'recurrence-set' (option table expected, got string \"FREQ=DAILY\")")
end)

test("occurrences options are checked", function(t)
  local rs = RS{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=DAILY;COUNT=3" }
  t:error(function() return rs:occurrences{} end,
    "bad argument #2 to 'occurrences' (:zone-id must be an IANA zone id string (such as \"America/New_York\"); there is no default zone, got nil)")
  t:error(function() return rs:occurrences{ zone_id = "" } end, ':zone-id: zone "": a zone id is required')
  t:error(function() return rs:occurrences{ zone_id = "Mars/Olympus" } end, ':zone-id: zone "Mars/Olympus": unknown IANA zone id')
  t:error(function() return rs:occurrences{ zone_id = "Local" } end, "the host's local zone is not available")
  t:error(function() return rs:occurrences{ zone = "UTC" } end, "unknown option :zone; use :zone-id")
  t:error(function() return rs:occurrences{ zone_id = "UTC", ["zone-id"] = "UTC" } end, "are one option; give one spelling")
  t:error(function() return rs:occurrences{ zone_id = "UTC", count = 1 } end,
    "unknown option :count (accepted: :after :before :disambiguation :limit :zone-id)")
  t:error(function() return rs:occurrences{ zone_id = "UTC", disambiguation = "latest" } end,
    ':disambiguation "latest": want "reject", "compatible", "earlier" or "later"')
  t:error(function() return rs:occurrences{ zone_id = "UTC", disambiguation = 1 } end, ":disambiguation must be a string, got number 1")
  t:error(function() return rs:occurrences{ zone_id = "UTC", limit = 0 } end, ":limit must be an integer >= 1, got number 0")
  t:error(function() return rs:occurrences{ zone_id = "UTC", limit = -1 } end, ":limit must be an integer >= 1, got number -1")
  t:error(function() return rs:occurrences{ zone_id = "UTC", limit = 1.5 } end, ":limit must be an integer, got number 1.5")
  t:error(function() return rs:occurrences{ zone_id = "UTC", limit = "16" } end, ':limit must be an integer, got string "16"')
  t:error(function() return rs:occurrences{ zone_id = "UTC", limit = 0 / 0 } end, ":limit must be an integer, got number NaN")
  t:error(function() return rs:occurrences{ zone_id = "UTC", limit = 1 / 0 } end, ":limit must be an integer, got number inf")
  t:eq(#rs:occurrences{ zone_id = "UTC", limit = 2 ^ 63 }, 3)   -- a huge limit is no limit
  t:eq(#rs:occurrences{ zone_id = "UTC", limit = 1e300 }, 3)
  t:error(function() return rs:occurrences{ zone_id = "UTC", after = "2024-01-01T00:00:00Z" } end,
    ':after must be a Temporal.instant, got string "2024-01-01T00:00:00Z"')
  t:error(function() return rs:occurrences{ zone_id = "UTC", before = 0 } end, ":before must be a Temporal.instant, got number 0")
  t:error(function() return rs:occurrences{ zone_id = "UTC", after = I.parse("2024-02-01T00:00:00Z"),
                                            before = I.parse("2024-01-01T00:00:00Z") } end,
    ':before "2024-01-01T00:00:00Z": is before after 2024-02-01T00:00:00Z')
  t:error(function() return rs.occurrences({ zone_id = "UTC" }) end,
    "bad argument #1 to 'occurrences' (a Temporal.recurrence-set expected (call it as rs:occurrences{...}), got table)")
  t:error(function() return rs:occurrences("UTC") end, "bad argument #2 to 'occurrences' (option table expected, got string \"UTC\")")
end)

test("tostring", function(t)
  local rs = RS{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=DAILY;COUNT=3" }
  t:eq(tostring(rs), "Temporal.recurrence-set DTSTART 2024-01-01T00:00:00")
  t:eq(getmetatable(rs), "Temporal.recurrence-set")
end)

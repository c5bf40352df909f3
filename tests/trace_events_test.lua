-- Trace entries (docs/lua-api.md, "Test-clock verbs"): s:trace() and hs:trace() record fires, cancels and drops, each
-- with its `event`; a keyed tick adds key, generation and its indices, a
-- cancelled or dropped generation its key and generation.
local Temporal = require "temporal"
local RS = require "runtime-scheduler"
local RuntimeTimers = require "runtime-timers"
local hs = require("app-host").scheduler

local T0 = Temporal.instant.parse("2000-01-01T00:00:00Z")
local function ms(n) return Temporal.duration{ milliseconds = n } end
local function nop() end

local function new() return RS.create{ clock = Temporal.clock.fixed(T0) } end

-- brief keeps what a test compares: event, kind, id and elapsed ms.
local function brief(tr)
  local out = {}
  for i, e in ipairs(tr) do
    out[i] = { e.event, e.kind, e.id, (e.at - T0):total_ms() }
  end
  return out
end

test("a fire entry says event fire", function(t)
  local s = new()
  local h = s:schedule_once{ delay = ms(5), callback = nop }
  s:trace(true)
  s:advance(ms(5))
  t:eq(s:trace(), { { event = "fire", at = T0 + ms(5), id = h.id, kind = "once" } })
end)

test("cancel records the pending job it stopped, at the time of the call", function(t)
  local s = new()
  local a = s:schedule_once{ delay = ms(10), callback = nop }
  local e = s:schedule_every{ interval = ms(4), callback = nop }
  s:trace(true)
  s:advance(ms(5))
  a:cancel()
  a:cancel()                                 -- already cancelled: nothing more
  s:advance(ms(3))
  e:cancel()
  t:eq(brief(s:trace()), {
    { "fire", "every", e.id, 4 },
    { "cancel", "once", a.id, 5 },
    { "fire", "every", e.id, 8 },
    { "cancel", "every", e.id, 8 },
  })
end)

test("a one-shot that fired cancels nothing, so nothing is recorded", function(t)
  local s = new()
  local h = s:schedule_once{ delay = ms(1), callback = nop }
  s:trace(true)
  s:advance(ms(1))
  h:cancel()
  h:drop()
  t:eq(brief(s:trace()), { { "fire", "once", h.id, 1 } })
end)

test("an interval cancelled from its own callback records the cancel", function(t)
  local s = new()
  local e
  e = s:schedule_every{ interval = ms(2), callback = function() e:cancel() end }
  s:trace(true)
  s:advance(ms(10))
  t:eq(brief(s:trace()), { { "fire", "every", e.id, 2 }, { "cancel", "every", e.id, 2 } })
end)

test("drop records a drop; clear a cancel per pending job, in due order", function(t)
  local s = new()
  local a = s:schedule_once{ delay = ms(9), callback = nop }
  local b = s:schedule_once{ delay = ms(3), callback = nop }
  local c = s:schedule_every{ interval = ms(3), callback = nop }
  local d = s:schedule_once{ delay = ms(20), callback = nop }
  s:trace(true)
  d:drop()
  s:clear()
  t:eq(brief(s:trace()), {
    { "drop", "once", d.id, 0 },
    { "cancel", "once", b.id, 0 },
    { "cancel", "every", c.id, 0 },
    { "cancel", "once", a.id, 0 },
  })
end)

test("dropping the scheduler records a drop per pending job", function(t)
  local s = new()
  local got
  local h = s:schedule_once{ delay = ms(1), callback = nop }
  -- The trace dies with the scheduler; an outer scheduler's callback
  -- reads it just before.
  s:trace(true)
  local e = s:schedule_every{ interval = ms(1), callback = function() got = s:trace() end }
  s:advance(ms(1))
  t:eq(brief(got), { { "fire", "once", h.id, 1 }, { "fire", "every", e.id, 1 } })
  s:drop()
  t:error(function() s:trace() end, "dropped")
end)

test("keyed timers: ticks carry key, generation and indices; cancels key and generation", function(t)
  local s = new()
  local tm = s:register_timer{ key = "regen", interval = ms(10), callback = nop }
  s:trace(true)
  s:jump(ms(35))                             -- skip-late-ticks: tick 3 with 2 skipped
  local tm2 = s:register_timer{ key = "regen", interval = ms(10), callback = nop }
  s:advance(ms(10))
  tm2:drop()
  local tr = s:trace()
  t:eq(#tr, 4)
  t:eq({ tr[1].event, tr[1].key, tr[1].generation, tr[1]["delivery-index"], tr[1]["scheduled-index"], tr[1]["skipped-ticks"] },
    { "fire", "regen", 1, 1, 3, 2 })
  t:eq(tr[1].delivery_index, 1)
  t:eq({ tr[2].event, tr[2].id, tr[2].kind, tr[2].key, tr[2].generation, tr[2]["delivery-index"] },
    { "cancel", tm.id, "timer", "regen", 1, nil })
  t:eq({ tr[3].event, tr[3].id, tr[3].generation, tr[3]["delivery-index"] }, { "fire", tm2.id, 2, 1 })
  t:eq({ tr[4].event, tr[4].id, tr[4].key, tr[4].generation }, { "drop", tm2.id, "regen", 2 })
  t:eq(tr[4]["skipped-ticks"], nil)
end)

test("hs:trace records cancels on the whole host timeline", function(t)
  hs:trace(true)
  local h = hs:schedule_once{ delay = ms(5), callback = nop }
  local to = RuntimeTimers.Timeout{ ["delay-ms"] = 7, callback = nop }
  hs:update(5)
  to:cancel()
  local tr = hs:trace()
  t:eq({ tr[1].event, tr[1].id, tr[2].event, tr[2].id, tr[2].kind, #tr }, { "fire", h.id, "cancel", to.id, "once", 2 })
  RuntimeTimers.Interval{ ["interval-ms"] = 3, callback = nop }
  RuntimeTimers.clear()
  t:eq(hs:trace()[3].event, "cancel")
end)

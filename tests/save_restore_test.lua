-- Save and restore: a run restored from a snapshot goes on exactly as the
-- uninterrupted run does (the same callbacks, instants, arguments, tick
-- indices and trace); refusals name the job and change nothing; misfire
-- policies after downtime.
local Temporal = require "temporal"
local RS = require "runtime-scheduler"

local T0 = Temporal.instant.parse("2000-01-01T00:00:00Z")
local function ms(n) return Temporal.duration{ milliseconds = n } end
local function new(at) return RS.create{ clock = Temporal.clock.fixed(at or T0) } end

-- handlers returns the callbacks of every label, each writing log.
local function handlers(s, log)
  local function note(text) log[#log + 1] = tostring(s:now()) .. " " .. text end
  return {
    bomb = function() note("bomb") end,
    regen = function() note("regen") end,
    tie = function() note("tie") end,
    spawner = function()
      note("spawner")
      s:schedule_once{ delay = ms(7), label = "bomb", callback = function() note("bomb") end }
    end,
    daily = function(p) note(string.format("daily %s #%d", tostring(p["scheduled-at"]), p["occurrence-index"])) end,
    poison = function(tick)
      note(string.format("poison %d/%d/%d gen %d", tick["delivery-index"], tick["scheduled-index"],
        tick["skipped-ticks"], tick.generation))
    end,
    slow = function(tick)
      note("slow " .. tick["delivery-index"])
      tick:wait(ms(3))
      note("slow end " .. tick["delivery-index"])
    end,
  }
end

-- workload schedules one of each kind on s, labelled as handlers names them.
local function workload(s, h)
  s:schedule_once{ delay = ms(4500), label = "bomb", callback = h.bomb }
  s:schedule_every{ interval = ms(1000), count = 5, label = "regen", callback = h.regen }
  s:schedule_once{ delay = ms(3000), label = "tie", callback = h.tie }   -- ties with regen's third fire
  s:schedule_every{ interval = ms(2500), label = "spawner", callback = h.spawner }
  s:register_timer{ key = "poison", interval = ms(700), callback = h.poison }
  s:register_timer{ key = "slow", interval = ms(1100), overrun = "catch-up-bounded",
                    ["max-catch-up-ticks"] = 2, callback = h.slow }
end

-- traced returns s's trace records as text.
local function traced(s)
  local out = {}
  for _, r in ipairs(s:trace()) do
    out[#out + 1] = string.format("%s %s %s #%d %s %s/%s", r.event, tostring(r.at), r.kind, r.id,
      tostring(r.label), tostring(r["scheduled-index"]), tostring(r["delivery-index"]))
  end
  return out
end

-- compare runs steps on an uninterrupted scheduler and on one restored
-- from its snapshot after `before`, and checks both continuations match.
local function compare(t, setup, before, steps, via_text)
  local log1 = {}
  local s1 = new()
  local h1 = handlers(s1, log1)
  setup(s1, h1)
  for _, d in ipairs(before) do s1:advance(d) end
  local snap = s1:snapshot()
  if via_text then snap = RS.encode(snap) end
  local n0 = #log1
  local snap_now = tostring(s1:now())
  s1:trace(true)
  for _, d in ipairs(steps) do s1:advance(d) end

  local log2 = {}
  local s2 = new()
  t:eq(s2:restore(snap, { handlers = handlers(s2, log2) }), true)
  t:eq(tostring(s2:now()), snap_now)
  s2:trace(true)
  for _, d in ipairs(steps) do s2:advance(d) end
  local after = {}
  for i = n0 + 1, #log1 do after[#after + 1] = log1[i] end
  t:ok(#after > 0, "the uninterrupted run fires after the snapshot")
  t:eq(log2, after)
  t:eq(traced(s2), traced(s1))
  t:eq(s2:count(), s1:count())
end

test("once, every with a count, keyed timers: the restored run goes on as the uninterrupted one", function(t)
  compare(t, workload, { ms(1200), ms(900) }, { ms(400), ms(1000), ms(2600), ms(3000) })
end)

test("a snapshot taken mid-tie and through JSON text restores the same order", function(t)
  compare(t, workload, { ms(2999) }, { ms(1), ms(5000) }, true)
end)

test("a DST-crossing recurrence keeps its occurrence index and local time", function(t)
  local start = Temporal.instant.parse("2024-03-08T12:00:00Z")
  local rs = Temporal["recurrence-set"]{ dtstart = "2024-03-08T09:00:00", rrule = "FREQ=DAILY" }
  local hour = Temporal.duration{ hours = 1 }
  local function setup(s, h)
    s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "America/New_York", label = "daily",
                           limit = 5, callback = h.daily }
  end
  local log1, log2 = {}, {}
  local s1 = new(start)
  setup(s1, handlers(s1, log1))
  s1:advance(hour * 24)                -- one occurrence, then the snapshot before the DST change
  local snap = RS.decode(RS.encode(s1:snapshot()))
  t:eq(snap.jobs[1]["limit-left"], 4)
  t:eq(snap.jobs[1].index, 2)
  local n0 = #log1
  s1:advance(hour * 24 * 7)
  local s2 = new(start)
  s2:restore(snap, { handlers = handlers(s2, log2) })
  s2:advance(hour * 24 * 7)
  local after = {}
  for i = n0 + 1, #log1 do after[#after + 1] = log1[i] end
  t:eq(#after, 4)
  t:eq(log2, after)
  t:eq(log2[2], "2024-03-10T13:00:00Z daily 2024-03-10T13:00:00Z #3")   -- 09:00 EDT
end)

test("the snapshot is a plain table; encode is stable JSON text; decode reads it back", function(t)
  local s = new()
  workload(s, handlers(s, {}))
  s:advance(ms(1500))
  local snap = s:snapshot()
  local function plain(v)
    local ty = type(v)
    if ty == "table" then
      for k, x in pairs(v) do
        if not plain(k) or not plain(x) then return false end
      end
      return true
    end
    return ty == "string" or ty == "number" or ty == "boolean"
  end
  t:ok(plain(snap))
  t:eq(snap.version, 1)
  t:eq(snap.now, "2000-01-01T00:00:01.5Z")
  local text = RS.encode(snap)
  t:eq(type(text), "string")
  t:eq(RS.encode(RS.decode(text)), text)
  t:eq(RS.decode(text), snap)
  t:eq(s:snapshot(), snap)          -- snapshot changes nothing
  local kinds = {}
  for _, j in ipairs(snap.jobs) do kinds[#kinds + 1] = j.kind .. ":" .. j.label end
  t:eq(kinds, { "every:regen", "timer:poison", "timer:slow", "every:spawner", "once:tie", "once:bomb" })
end)

-- Refusals

test("a job without a label and a waiting spawn refuse the snapshot, naming each", function(t)
  local s = new()
  s:schedule_once{ delay = ms(10), callback = function() end }
  s:schedule_once{ delay = ms(20), label = "bomb", callback = function() end }
  s:spawn(function() s:wait(ms(5)) end)
  t:error(function() s:snapshot() end, "snapshot: 2 jobs cannot be saved or restored (leave them out with { skip = true }): once #1 scheduled at")
  t:error(function() s:snapshot() end, "no label to bind its callback to again")
  t:error(function() s:snapshot() end, "spawn #3")
  local snap, left = s:snapshot{ skip = true }
  t:eq(#snap.jobs, 1)
  t:eq(snap.jobs[1].label, "bomb")
  t:eq(#left, 2)
  t:eq(left[1].kind, "once")
  t:eq(left[1].id, 1)
  t:ok(left[1].where:find("save_restore_test.lua", 1, true))
  t:eq(left[2].kind, "spawn")
  t:eq(s:count(), 3)
end)

test("restore refuses a missing handler and a busy scheduler, and changes nothing", function(t)
  local s = new()
  workload(s, handlers(s, {}))
  s:advance(ms(100))
  local snap = s:snapshot()
  local s2 = new()
  local hs = handlers(s2, {})
  hs.bomb = nil
  t:error(function() s2:restore(snap, { handlers = hs }) end,
    "restore: 1 job cannot be saved or restored (leave them out with { skip = true }): once #1 'bomb' scheduled at")
  t:error(function() s2:restore(snap, { handlers = hs }) end, "no handler for its label \"bomb\"")
  t:eq(s2:count(), 0)
  t:eq(tostring(s2:now()), tostring(T0))
  local ok, left = s2:restore(snap, { handlers = hs, skip = true })
  t:eq(ok, true)
  t:eq(#left, 1)
  t:eq(left[1].label, "bomb")
  t:eq(s2:count(), s:count() - 1)
  -- s2 now has work pending: a second restore is refused.
  t:error(function() s2:restore(snap, { handlers = handlers(s2, {}) }) end, "pending in the scheduler restored into")
end)

test("bad input: clear errors naming restore, the option and what it wants", function(t)
  local s = new()
  local snap = s:snapshot()
  t:error(function() s:restore(42, { handlers = {} }) end, "bad argument #2 to 'restore'")
  t:error(function() s:restore(snap) end, "bad argument #3 to 'restore' (option table expected, got nil)")
  t:error(function() s:restore(snap, {}) end, ":handlers must be a table of label = function")
  t:error(function() s:restore(snap, { handlers = {}, misfire = "later" }) end,
    ':misfire must be "fire-once", "fire-all" or "skip"')
  t:error(function() s:restore(snap, { handlers = { x = 1 } }) end, ':handlers["x"] must be a function')
  t:error(function() s:restore(snap, { handlers = {}, skip = "yes" }) end, ":skip must be a boolean")
  t:error(function() s:restore(snap, { handlers = {}, frobnicate = 1 }) end, "unknown option :frobnicate")
  t:error(function() s:restore("{", { handlers = {} }) end, "restore: not a snapshot's JSON text")
  t:error(function() RS.decode('{"version": 99, "now": "2000-01-01T00:00:00Z", "seq": 0, "jobs": []}') end,
    "decode: snapshot field version: want a snapshot version from 1 to 1")
  t:error(function() RS.decode('{"version": 1, "now": "2000-01-01T00:00:00Z", "seq": 0, "jobs": [], "extra": 1}') end,
    'decode: not a snapshot\'s JSON text: unknown field "extra"')
  t:error(function() RS.decode('{"version": "one"}') end,
    "decode: not a snapshot's JSON text: field version: want an integer, got a JSON string")
  t:error(function() RS.encode({ version = "one" }) end,
    "encode: not a snapshot's table: field version: want an integer, got a JSON string")
  t:error(function() RS.encode({ version = 1, now = "2000-01-01T00:00:00Z", jobs = { { kind = "once", f = print } } }) end,
    "snapshot.jobs[1].f: a string, number, boolean or table expected, got function")
  t:error(function() RS.decode(5) end, "bad argument #1 to 'decode' (snapshot text (a string) expected, got number")
  t:error(function() s:snapshot{ skip = 1 } end, ":skip must be a boolean")
  t:eq(s:count(), 0)
end)

-- Misfire after downtime: the restoring scheduler's now is later.

local function misfired(policy)
  local s = new()
  local h = handlers(s, {})
  s:schedule_once{ delay = ms(500), label = "bomb", callback = h.bomb }
  s:schedule_every{ interval = ms(100), label = "regen", callback = h.regen }
  s:register_timer{ key = "poison", interval = ms(200), callback = h.poison }
  s:advance(ms(50))
  local snap = s:snapshot()
  local log = {}
  local s2 = new(T0 + ms(1050))       -- down for one second
  s2:restore(snap, { handlers = handlers(s2, log), misfire = policy })
  s2:advance(ms(0))
  return log, s2
end

test("misfire fire-once (the default): each missed job fires once at restore, then keeps its grid", function(t)
  local log = misfired()
  t:eq(log, {   -- due together at restore: in creation order
    "2000-01-01T00:00:01.05Z bomb",
    "2000-01-01T00:00:01.05Z regen",
    "2000-01-01T00:00:01.05Z poison 1/5/4 gen 1",
  })
  t:eq(misfired("fire-once"), log)
end)

test("misfire fire-all: every missed run, in order, at restore", function(t)
  local log = misfired("fire-all")
  local regen = 0
  for _, l in ipairs(log) do if l:find("regen") then regen = regen + 1 end end
  t:eq(regen, 10)                     -- 100, 200, ..., 1000
  t:eq(log[1], "2000-01-01T00:00:01.05Z bomb")
end)

test("misfire skip: missed runs are dropped; a keyed timer counts them", function(t)
  local log, s2 = misfired("skip")
  t:eq(log, {})
  s2:advance(ms(200))
  t:eq(log, {
    "2000-01-01T00:00:01.1Z regen",
    "2000-01-01T00:00:01.2Z regen",
    "2000-01-01T00:00:01.2Z poison 1/6/5 gen 1",
  })
end)

test("hs:snapshot keeps the host's pause state and its jobs; hs:restore puts them back", function(t)
  local services = require "app-host.services"
  local hs = services["make-scheduler"]{ clock = Temporal.clock.fixed(T0) }
  local log1, log2 = {}, {}
  local function hands(h, log)
    return {
      bomb = function() log[#log + 1] = tostring(h:now()) .. " bomb" end,
      poison = function(tick) log[#log + 1] = tostring(h:now()) .. " poison " .. tick["delivery-index"] end,
    }
  end
  local h1 = hands(hs, log1)
  hs:schedule_once{ delay = ms(30), label = "bomb", callback = h1.bomb }
  hs:register_timer{ key = "poison", interval = ms(20), callback = h1.poison }
  hs:step(25)
  hs:set_paused(true)
  local snap = hs:snapshot()
  t:eq(snap.paused, true)
  hs:step(50)
  local hs2 = services["make-scheduler"]{ clock = Temporal.clock.fixed(T0) }
  t:eq(hs2:restore(RS.encode(snap), { handlers = hands(hs2, log2) }), true)
  t:eq(hs2["paused?"](hs2), true)
  hs2:update(50)                      -- paused: nothing moves
  t:eq(log2, {})
  hs2:step(50)
  t:eq(log2, { log1[2], log1[3], log1[4] })
end)

test("debouncer keys: wake-ups, force ceilings, floors and arguments restore exactly", function(t)
  local function make(s, log)
    return s:debouncer{ label = "save", timeout = ms(130), ["busy-timeout"] = ms(200), ["force-min"] = ms(150),
      ["force-max"] = ms(300), throttle = ms(50), seed = 7,
      callback = function(key, a, b)
        log[#log + 1] = string.format("%s %s %s %s", tostring(s:now()), tostring(key), tostring(a),
          type(b) == "table" and tostring(b.hp) or tostring(b))
      end }
  end
  -- touch runs touches from to upto on either scheduler, 60 ms apart.
  local function touch(s, d, from, upto)
    local steps = {
      function() d:debounce("a", 1, { hp = 3 }) end,
      function() d:debounce(2, "x") end,
      function() d:debounce("a", 2, { hp = 4 }) end,
      function() d:debounce(true) end,
      function() d:debounce("a", 3, {}) end,       -- the snapshot is taken after this one
      function() d:debounce(2, "y") end,
      function() d:debounce("a", 4) end,
      function() d:debounce("b", 5) end,
      function() d:debounce("a", 6) end,
    }
    for i = from, upto do
      steps[i]()
      s:advance(ms(60))
    end
  end
  local function script(s, d) touch(s, d, 6, 9); s:advance(ms(1000)) end
  local log1, log2 = {}, {}
  local s1 = new()
  local d1 = make(s1, log1)
  touch(s1, d1, 1, 5)
  local snap = s1:snapshot()
  t:eq(#snap.debounce, 1)
  t:eq(snap.debounce[1].label, "save")
  local n0 = #log1
  s1:trace(true)
  script(s1, d1)

  local s2 = new()
  local d2 = make(s2, log2)
  s2:restore(RS.encode(snap), { handlers = {} })
  t:eq(d2["pending?"](d2, "a"), true)
  s2:trace(true)
  script(s2, d2)
  local after = {}
  for i = n0 + 1, #log1 do after[#after + 1] = log1[i] end
  t:ok(#after >= 3)
  t:eq(log2, after)
  t:eq(traced(s2), traced(s1))
end)

test("debouncers: one without a label is refused; restore needs the labelled one", function(t)
  local s = new()
  local d = s:debouncer{ timeout = ms(10), callback = function() end }
  d:debounce("k")
  t:error(function() s:snapshot() end, "a key of a debouncer without a label (give s:debouncer a :label to save it)")
  local s3 = new()
  local d3 = s3:debouncer{ label = "L", timeout = ms(10), callback = function() end }
  d3:debounce({})
  t:error(function() s3:snapshot() end, "that is not a string, number or boolean")
  local s4 = new()
  local d4 = s4:debouncer{ label = "L", timeout = ms(10), callback = function() end }
  d4:debounce("k", print)
  t:error(function() s4:snapshot() end, "argument 1: a string, number, boolean or table expected, got function")
  d4:debounce("k", "plain")
  local snap = s4:snapshot()
  local s5 = new()
  t:error(function() s5:restore(snap, { handlers = {} }) end,
    'restore: no debouncer labelled "L" on the scheduler restored into (make it, with the same options, before restore)')
  local ok, left = s5:restore(snap, { handlers = {}, skip = true })
  t:eq(ok, true)
  t:eq(#left, 1)
  t:eq(s5:count(), 0)
end)

test("a keyed timer's on-cancel is bound with { callback, on-cancel }", function(t)
  local s = new()
  s:register_timer{ key = "door", interval = ms(10), ["on-cancel"] = function() end, callback = function() end }
  s:advance(ms(15))
  local snap = s:snapshot()
  t:eq(snap.jobs[1]["on-cancel"], true)
  local s2 = new()
  t:error(function() s2:restore(snap, { handlers = { door = function() end } }) end,
    'give :handlers["door"] as { callback = f, ["on-cancel"] = g }')
  local ticks, cleaned = {}, 0
  s2:restore(snap, { handlers = { door = { callback = function(tick) ticks[#ticks + 1] = tick["delivery-index"] end,
                                           ["on-cancel"] = function() cleaned = cleaned + 1 end } } })
  s2:advance(ms(10))
  t:eq(ticks, { 2 })
  t:eq(s2:snapshot().jobs[1]["on-cancel"], true) -- saved again with it
  s2:register_timer{ key = "plain", interval = ms(10), callback = function() end }
  t:eq(s2:snapshot().jobs[2]["on-cancel"], nil)
  s2:clear()
  t:eq(cleaned, 1)
end)

test("an owner's timers are saved by its id and bound again with :owners", function(t)
  local log1, log2 = {}, {}
  local s1 = new()
  local o1 = s1:owner{ id = "w1", lease = ms(2500) }
  o1:register_timer{ key = "poison", interval = ms(700), callback = handlers(s1, log1).poison }
  s1:advance(ms(1500))
  local snap = s1:snapshot()
  t:eq(snap.owners[1].id, "w1")
  t:eq(snap.owners[1].deadline, "PT1S")
  t:eq(snap.jobs[1].owner, "w1")
  local s2 = new()
  t:error(function() s2:restore(snap, { handlers = handlers(s2, log2) }) end, 'its owner "w1" is not in opts.Owners')
  local o2 = s2:owner{ id = "w1", lease = ms(10) }
  t:eq(s2:restore(snap, { handlers = handlers(s2, log2), owners = { w1 = o2 } }), true)
  local n0 = #log1
  for _, step in ipairs{ function(s, o) s:advance(ms(1500)) end, function(s, o) o:renew() end,
                         function(s, o) s:advance(ms(1000)) end } do
    step(s1, o1)
    step(s2, o2)
  end
  local after = {}
  for i = n0 + 1, #log1 do after[#after + 1] = log1[i] end
  -- 2.1 s under the lease; 2.8 s past it; renewed at 3 s (with the saved
  -- lease, 2.5 s), it goes on at 3.5 s and counts the tick it skipped.
  t:eq(after, { "2000-01-01T00:00:02.1Z poison 3/3/0 gen 1", "2000-01-01T00:00:03.5Z poison 4/5/1 gen 1" })
  t:eq(log2, after)
end)

test("restore returns the restored once and every jobs' handles by id", function(t)
  local s = new()
  local fired = {}
  local hands = { bomb = function() fired[#fired + 1] = "bomb" end, regen = function() fired[#fired + 1] = "regen" end }
  local bomb = s:schedule_once{ delay = ms(50), label = "bomb", callback = hands.bomb }
  s:schedule_every{ interval = ms(20), label = "regen", callback = hands.regen }
  s:advance(ms(10))
  local s2 = new()
  local ok, left, handles = s2:restore(s:snapshot(), { handlers = hands })
  t:eq(ok, true)
  t:eq(#left, 0)
  local h = handles[bomb.id]
  t:eq(h.id, bomb.id)
  t:eq(h:is_active(), true)
  t:eq(tostring(h:due()), "2000-01-01T00:00:00.05Z")
  t:eq(h:cancel(), true)
  s2:advance(ms(100))
  t:eq(fired, { "regen", "regen", "regen", "regen", "regen" })
  t:error(function() h:reset() end, "reset")
end)

-- Random workloads: every kind of job, a snapshot at a random point, the
-- same random steps on both continuations.
test("random workloads: the restored continuation is the uninterrupted one", function(t)
  local policies = { "skip-late-ticks", "catch-up-bounded", "delay-next-tick" }
  for round = 1, 40 do
    local plan = {}
    for i = 1, math.random(1, 8) do
      plan[i] = { kind = math.random(1, 5), a = math.random(0, 60), b = math.random(1, 25), c = math.random(1, 4) }
    end
    local before, steps = {}, {}
    for i = 1, math.random(0, 5) do before[i] = ms(math.random(0, 40)) end
    for i = 1, math.random(1, 8) do steps[i] = ms(math.random(0, 50)) end
    local function build(s, log)
      local function note(text) log[#log + 1] = tostring(s:now()) .. " " .. text end
      local d = s:debouncer{ label = "deb", timeout = ms(7), ["force-min"] = ms(9), ["force-max"] = ms(20), seed = round,
        callback = function(key, v) note("deb " .. tostring(key) .. " " .. tostring(v)) end }
      local h = {
        once = function() note("once") end,
        every = function() note("every") end,
        touch = function()
          local ms_now = math.floor((s:now() - T0)["total-ms"](s:now() - T0))
          d:debounce("k" .. ms_now % 3, ms_now)
        end,
        tick = function(tick)
          note(string.format("tick %s %d/%d/%d", tick.key, tick["delivery-index"], tick["scheduled-index"], tick["skipped-ticks"]))
          if tick["delivery-index"] % 3 == 0 then tick:wait(ms(tick["delivery-index"] % 7)) end
        end,
      }
      return h
    end
    local function setup(s, h)
      for i, p in ipairs(plan) do
        if p.kind == 1 then
          s:schedule_once{ delay = ms(p.a), label = "once", callback = h.once }
        elseif p.kind == 2 then
          s:schedule_every{ interval = ms(p.b), count = p.c * 2, label = "every", callback = h.every }
        elseif p.kind == 3 then
          s:register_timer{ key = "t" .. i, label = "tick", interval = ms(p.b + 2), overrun = policies[p.c % 3 + 1],
                            ["max-catch-up-ticks"] = 2, callback = h.tick }
        else
          s:schedule_every{ interval = ms(p.b), count = 10, label = "touch", callback = h.touch }
        end
      end
    end
    local log1, log2 = {}, {}
    local s1 = new()
    local h1 = build(s1, log1)
    setup(s1, h1)
    for _, d in ipairs(before) do s1:advance(d) end
    local snap, left = s1:snapshot{ skip = true }
    if #left == 0 then
      local n0 = #log1
      s1:trace(true)
      for _, d in ipairs(steps) do s1:advance(d) end
      local s2 = new()
      local h2 = build(s2, log2)
      s2:restore(RS.encode(snap), { handlers = h2 })
      s2:trace(true)
      for _, d in ipairs(steps) do s2:advance(d) end
      local after = {}
      for i = n0 + 1, #log1 do after[#after + 1] = log1[i] end
      t:eq(log2, after, "round " .. round)
      t:eq(traced(s2), traced(s1), "round " .. round)
    end
  end
end)

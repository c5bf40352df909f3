-- Conformance tests for the app-host error policy, hs:on_error (docs/lua-api.md:
-- under it a failing interval
-- keeps repeating). Go twins in hostservices/policy_test.go.
local Temporal = require "temporal"
local services = require "app-host.services"
local D = Temporal.duration
local epoch = Temporal.instant.parse("2000-01-01T00:00:00Z")

local function ms(n) return D["from-ms"](n) end

-- rig: a fresh host on a fixed clock and a log of what ran, "name@ms"; its
-- handler notes "error(<first line>, <what failed>)@ms" and goes on.
local function rig()
  local r = { hs = services["make-scheduler"]{ clock = Temporal.clock.fixed(epoch) }, log = {}, errors = {} }
  function r.at() return (r.hs:now() - epoch):total_ms() end
  function r.note(s) r.log[#r.log + 1] = s end
  function r.cb(name) return function() r.note(name .. "@" .. r.at()) end end
  function r.bad(name) return function() r.note(name .. "@" .. r.at()); error("boom") end end
  function r.facet(name) return function(dt) r.note(name .. "(" .. dt .. ")@" .. r.at()) end end
  function r.take() local l = r.log; r.log = {}; return l end
  function r.once(name, d, cb) return r.hs:schedule_once{ delay = ms(d), callback = cb or r.cb(name) } end
  function r.handler(msg, info)
    r.errors[#r.errors + 1] = { msg = msg, info = info }
    local what = info.kind == "job" and info.job:match("^%a+ #%d+") or info.facet
    r.note("error(" .. msg:match("[^\n]*"):gsub("^.-: ", "") .. ", " .. info.kind .. " " .. what .. ")@" .. r.at())
  end
  return r
end

test("a failing job among three: the others and the facets run, time reaches the frame's end", function(t)
  for _, step in ipairs{ false, true } do
    local r = rig()
    t:eq(r.hs:on_error(r.handler), true)
    r.hs:register("f", r.facet("f"))
    r.once("a", 5)
    r.once("bad", 5, r.bad("bad"))
    r.once("c", 5)
    if step then
      r.hs:set_paused(true)
      t:eq(r.hs:step(16), true)
    else
      t:eq(r.hs:update(16), true)
    end
    t:eq(r.take(), { "a@5", "bad@5", "error(boom, job once #2)@5", "c@5", "f(16)@16" })
    t:eq(r.hs:now(), epoch + ms(16))
  end
end)

test("the handler gets the message update would raise and what failed", function(t)
  local r = rig()
  r.hs:on_error(r.handler)
  r.hs:schedule_every{ interval = ms(10), callback = function() error("where") end }
  r.hs:update(10)
  local e = r.errors[1]
  t:ok(e.msg:find("^[^\n]*app_host_errors_test%.lua:%d+: where\n") ~= nil, e.msg)
  -- one traceback, whose last line names the job
  local _, tracebacks = e.msg:gsub("stack traceback:", "")
  t:eq(tracebacks, 1)
  t:ok(e.msg:find("\n\t%[job%] every #1 scheduled at [^\n]*app_host_errors_test%.lua:%d+$") ~= nil, e.msg)
  t:eq(e.info.kind, "job")
  t:ok(e.info.job:find("^every #1 scheduled at .*app_host_errors_test%.lua:%d+$") ~= nil, e.info.job)
  t:eq(e.info.facet, nil)
  -- the same message, without a handler, out of update
  r.hs:on_error(nil)
  local ok, msg = pcall(r.hs.update, r.hs, 10)
  t:eq(ok, false)
  t:eq(msg, e.msg)
  -- an error object reaches the handler as it is
  local obj = { code = 7 }
  local r2 = rig()
  r2.hs:on_error(function(v, info) r2.got = v; r2.info = info end)
  r2.hs:register("obj", function() error(obj) end)
  r2.hs:update(1)
  t:ok(r2.got == obj)
  t:eq(r2.info, { kind = "facet", facet = "obj" })
end)

test("a failing interval keeps repeating and the handler sees each failure", function(t)
  local r = rig()
  r.hs:on_error(r.handler)
  local iv = r.hs:schedule_every{ interval = ms(10), callback = r.bad("iv") }
  r.hs:update(35)
  t:eq(r.take(), {
    "iv@10", "error(boom, job every #1)@10",
    "iv@20", "error(boom, job every #1)@20",
    "iv@30", "error(boom, job every #1)@30",
  })
  r.hs:update(5)
  t:eq(r.take(), { "iv@40", "error(boom, job every #1)@40" })
  t:eq(#r.errors, 4)
  t:ok(iv:is_active())
end)

test("a failing facet among three: the next facets still run", function(t)
  local r = rig()
  r.hs:on_error(r.handler)
  r.hs:register("a", r.facet("a"))
  r.hs:register("bad", function(dt) r.note("bad(" .. dt .. ")@" .. r.at()); error("kaput") end)
  r.hs:register("c", r.facet("c"))
  r.hs:update(1)
  r.hs:update(2)
  t:eq(r.take(), {
    "a(1)@1", "bad(1)@1", "error(kaput, facet bad)@1", "c(1)@1",
    "a(2)@3", "bad(2)@3", "error(kaput, facet bad)@3", "c(2)@3",
  })
  t:ok(r.errors[1].msg:find('\n\t[facet] "bad"', 1, true), r.errors[1].msg)
  -- a table facet whose update went away: a message without a traceback
  local obj = { update = function() end }
  r.hs:register("obj", obj)
  obj.update = nil
  r.hs:update(1)
  t:eq(r.errors[#r.errors].msg, 'facet "obj": update must be a function, got nil')
end)

test("the default policy is unchanged, and on_error(nil) restores it", function(t)
  for _, set in ipairs{ false, true } do
    local r = rig()
    if set then
      r.hs:on_error(r.handler)
      t:eq(r.hs:on_error(nil), true)
    end
    r.hs:register("f", r.facet("f"))
    r.once("bad", 5, r.bad("bad"))
    r.once("c", 5)
    t:error(function() r.hs:update(16) end, "boom")
    t:eq(r.take(), { "bad@5" })
    t:eq(r.hs:now(), epoch + ms(5))
    r.hs:update(11)
    t:eq(r.take(), { "c@5", "f(11)@16" })
  end
end)

test("the handler's error stops the frame; raising what it got keeps the default", function(t)
  local r = rig()
  r.hs:on_error(function(msg) error("handler failed") end)
  r.hs:register("f", r.facet("f"))
  r.once("bad", 5, r.bad("bad"))
  r.once("c", 5)
  local ok, msg = pcall(r.hs.update, r.hs, 16)
  t:eq(ok, false)
  t:ok(msg:find("^[^\n]*app_host_errors_test%.lua:%d+: handler failed\n") ~= nil, msg)
  local _, tracebacks = msg:gsub("stack traceback:", "")
  t:eq(tracebacks, 1)
  t:ok(msg:find("\n\t%[on%-error%] handler set at [^\n]*app_host_errors_test%.lua:%d+$") ~= nil, msg)
  t:eq(r.take(), { "bad@5" })
  t:eq(r.hs:now(), epoch + ms(5))
  -- error(msg, 0): the job's own error, as without a handler
  r.hs:on_error(function(m) error(m, 0) end)
  r.once("bad2", 0, r.bad("bad2"))
  local ok2, msg2 = pcall(r.hs.update, r.hs, 11)
  t:eq(ok2, false)
  t:ok(msg2:find("\n\t%[job%] once #%d+ scheduled at [^\n]*$") ~= nil, msg2)
  t:eq(r.take(), { "c@5", "bad2@5" })
end)

test("the handler runs under a callback's rules", function(t)
  local r = rig()
  local inner
  r.hs:on_error(function()
    inner = select(2, pcall(r.hs.update, r.hs, 1))
    r.once("scheduled", 0)
    r.note("handler@" .. r.at())
  end)
  r.once("bad", 5, r.bad("bad"))
  r.hs:update(10)
  t:eq(r.take(), { "bad@5", "handler@5", "scheduled@5" })
  t:ok(inner:find("update: ", 1, true), inner)
  -- set from inside a frame, a handler takes effect in the next one
  local r2 = rig()
  r2.hs:register("set", function() r2.hs:on_error(r2.handler) end)
  r2.hs:register("bad", function() error("kaput") end)
  t:error(function() r2.hs:update(1) end, "kaput")
  r2.hs:update(1)
  t:eq(r2.take(), { "error(kaput, facet bad)@2" })
end)

test("runtime-timers on the state's host follow its policy", function(t)
  local RuntimeTimers = require "runtime-timers"
  local hs = require("app-host").scheduler
  local start, log = hs:now(), {}
  local function at() return (hs:now() - start):total_ms() end
  hs:on_error(function(msg, info) log[#log + 1] = info.job:match("^%a+ #%d+") .. "@" .. at() end)
  local iv = RuntimeTimers.Interval{ ["interval-ms"] = 3, callback = function() error("interval boom") end }
  RuntimeTimers.Timeout{ ["delay-ms"] = 4, callback = function() log[#log + 1] = "timeout@" .. at() end }
  hs:update(7)
  t:eq(log, { "every #1@3", "timeout@4", "every #1@6" })
  t:ok(iv:is_active())
  t:eq(at(), 7)
  iv:cancel()
  hs:on_error(nil)
end)

test("on_error refuses anything but a function or nil", function(t)
  local r = rig()
  t:error(function() r.hs:on_error() end, "bad argument #2 to 'on-error' (handler must be a function or nil, got no value)")
  t:error(function() r.hs:on_error(5) end, "bad argument #2 to 'on-error' (handler must be a function or nil, got number 5)")
  t:error(function() r.hs:on_error({}) end, "bad argument #2 to 'on-error' (handler must be a function or nil, got table)")
  t:error(function() r.hs.on_error(print) end, "bad argument #1 to 'on-error' (app-host scheduler expected, got function (call methods with ':'))")
  t:eq(r.hs["on-error"](r.hs, nil), true) -- the kebab spelling
  -- a refused call changes nothing: errors still stop the frame
  r.once("bad", 1, r.bad("bad"))
  t:error(function() r.hs:update(1) end, "boom")
end)

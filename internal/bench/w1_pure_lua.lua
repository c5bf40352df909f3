-- The intervals scene on a pure-Lua peer: the scene of w1.lua (N intervals, periods 1..60 s drawn by MINSTD from
-- 42, random phase, H hours of virtual time, Lua callbacks) on a textbook binary-heap
-- scheduler written in Lua, with times in integer milliseconds. It needs no module.
-- Run: metronome run w1_pure_lua.lua N H   (prints the fire count; see doc.go)
local N, H = tonumber((...)) or 1000, tonumber((select(2, ...))) or 1

-- A binary min-heap of job tables ordered by (due, seq); seq is the creation number, kept
-- across repeats, so jobs due at one instant run in creation order. An interval is re-armed
-- in place (its due moves, then it sifts down). The scene never cancels, so there is no cancel.
local Scheduler = {}
Scheduler.__index = Scheduler

function Scheduler.new() return setmetatable({ heap = {}, n = 0, now = 0, seq = 0 }, Scheduler) end

local function before(a, b) return a.due < b.due or (a.due == b.due and a.seq < b.seq) end

local function up(heap, i)
  local job = heap[i]
  while i > 1 do
    local p = math.floor(i / 2)
    local parent = heap[p]
    if not before(job, parent) then break end
    heap[i] = parent
    i = p
  end
  heap[i] = job
end

local function down(heap, n, i)
  local job = heap[i]
  while true do
    local c = 2 * i
    if c > n then break end
    if c < n and before(heap[c + 1], heap[c]) then c = c + 1 end
    if not before(heap[c], job) then break end
    heap[i] = heap[c]
    i = c
  end
  heap[i] = job
end

function Scheduler:push(job)
  self.seq = self.seq + 1
  job.seq = self.seq
  self.n = self.n + 1
  self.heap[self.n] = job
  up(self.heap, self.n)
  return job
end

function Scheduler:schedule_once(delay, fn) return self:push{ due = self.now + delay, fn = fn } end

function Scheduler:schedule_every(interval, fn)
  return self:push{ due = self.now + interval, period = interval, fn = fn }
end

function Scheduler:advance(d)
  local target, heap = self.now + d, self.heap
  while self.n > 0 and heap[1].due <= target do
    local job = heap[1]
    self.now = job.due
    if job.period then
      job.due = job.due + job.period
      down(heap, self.n, 1)
    else
      local n = self.n
      heap[1] = heap[n]
      heap[n] = nil
      self.n = n - 1
      if n > 1 then down(heap, n - 1, 1) end
    end
    job.fn()
  end
  self.now = target
end

-- The scene, as in w1.lua.
local seed = 42
local function rnd() seed = (seed * 48271) % 2147483647; return seed / 2147483647 end
local s = Scheduler.new()
local fires = 0
local function cb() fires = fires + 1 end
for _ = 1, N do
  local period = 1000 + math.floor(rnd() * 59000)
  local phase = math.floor(rnd() * period)
  s:schedule_once(phase, function() cb(); s:schedule_every(period, cb) end)
end
s:advance(math.floor(H * 3600000))
print(("{\"peer\":\"pure-lua-heap\",\"N\":%d,\"hours\":%s,\"fires\":%d}"):format(N, tostring(H), fires))

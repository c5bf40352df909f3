---@meta runtime-timers
-- LuaLS definitions for Metronome's `runtime-timers` module: milliseconds,
-- on the state's app-host timeline. Functions are called with '.'.

---@class RuntimeTimers
---@field Timeout fun(opts: RuntimeTimers.TimeoutOptions): RuntimeScheduler.Handle
---@field Interval fun(opts: RuntimeTimers.IntervalOptions): RuntimeScheduler.Handle
---@field Debouncer fun(opts: RuntimeTimers.DebouncerOptions): RuntimeTimers.Debouncer
---@field clear fun(): true cancels this state's runtime-timers timers
---@field count fun(): integer this state's pending runtime-timers timers
---@field list fun(): RuntimeScheduler.JobRecord[] this state's pending runtime-timers timers, in due order

---Give each key in one spelling.
---@class RuntimeTimers.TimeoutOptions
---@field ["delay-ms"]? number >= 0
---@field delay_ms? number >= 0
---@field callback fun()
---@field label? string a name of yours: list() and errors show it

---Give each key in one spelling.
---@class RuntimeTimers.IntervalOptions
---@field ["interval-ms"]? number > 0
---@field interval_ms? number > 0
---@field callback fun()
---@field label? string a name of yours: list() and errors show it

---Give each key in one spelling.
---@class RuntimeTimers.DebouncerOptions
---@field ["delay-ms"]? number >= 0
---@field delay_ms? number >= 0
---@field callback fun(...)
---@field label? string a name of yours: list() and errors show it

---Calling it (db(...)) or db:call(...) (re)starts the delay; the callback
---gets the latest call's arguments.
---@class RuntimeTimers.Debouncer
---@overload fun(...): true
---@field call fun(self: RuntimeTimers.Debouncer, ...): true
---@field cancel fun(self: RuntimeTimers.Debouncer): boolean
---@field flush fun(self: RuntimeTimers.Debouncer): boolean
---@field ["pending?"] fun(self: RuntimeTimers.Debouncer): boolean
---@field is_pending fun(self: RuntimeTimers.Debouncer): boolean

---@type RuntimeTimers
local RuntimeTimers = {}
return RuntimeTimers

---@meta app-host.services
-- LuaLS definitions for Metronome's `app-host.services` module.

---@class AppHost.Services
---@field ["make-scheduler"] fun(opts?: RuntimeScheduler.CreateOptions): AppHost.Scheduler a host with a private typed scheduler
---@field make_scheduler fun(opts?: RuntimeScheduler.CreateOptions): AppHost.Scheduler a host with a private typed scheduler

---@type AppHost.Services
local services = {}
return services

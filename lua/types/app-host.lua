---@meta app-host
-- LuaLS definitions for Metronome's `app-host` module: the host this state
-- belongs to (docs/lua-api.md). Both spellings of every name.

---@class AppHost
---@field scheduler AppHost.Scheduler the host's scheduler
---@field quit fun(): boolean asks the host to stop (false where nothing drives it)
---@field handlers fun(handlers: table<string, function|{ callback: function, ["on-cancel"]?: function }>, opts?: RuntimeScheduler.RestoreOptions): boolean binds labels to callbacks; under metronome run --state FILE restores FILE's timers and returns true

---Called with the frame's delta in milliseconds.
---@alias AppHost.Facet fun(delta_ms: number)|{ update: fun(self: table, delta_ms: number) }

---What an error handler set with on_error receives besides the message.
---@class AppHost.ErrorInfo
---@field kind "job"|"facet" what failed
---@field job? string the job, as "every #3 scheduled at game.lua:14"
---@field facet? string the facet's name

---A host: a typed scheduler plus facets, moved by update, set_paused and step.
---@class AppHost.Scheduler
---@field ["schedule-once"] fun(self: AppHost.Scheduler, opts: RuntimeScheduler.OnceOptions): RuntimeScheduler.Handle
---@field schedule_once fun(self: AppHost.Scheduler, opts: RuntimeScheduler.OnceOptions): RuntimeScheduler.Handle
---@field ["schedule-every"] fun(self: AppHost.Scheduler, opts: RuntimeScheduler.EveryOptions): RuntimeScheduler.Handle
---@field schedule_every fun(self: AppHost.Scheduler, opts: RuntimeScheduler.EveryOptions): RuntimeScheduler.Handle
---@field ["schedule-recurrence"] fun(self: AppHost.Scheduler, opts: RuntimeScheduler.RecurrenceOptions): RuntimeScheduler.Handle
---@field schedule_recurrence fun(self: AppHost.Scheduler, opts: RuntimeScheduler.RecurrenceOptions): RuntimeScheduler.Handle
---@field jobs fun(self: AppHost.Scheduler): RuntimeScheduler.JobRecord[]
---@field clear fun(self: AppHost.Scheduler): true clears its typed jobs
---@field register fun(self: AppHost.Scheduler, name: string, facet: AppHost.Facet): true
---@field unregister fun(self: AppHost.Scheduler, name: string): boolean false for an unknown name
---@field list fun(self: AppHost.Scheduler): string[] facet names in registration order
---@field update fun(self: AppHost.Scheduler, delta_ms: number): true typed work, then facets; nothing while paused
---@field step fun(self: AppHost.Scheduler, delta_ms: number): true like update, even while paused
---@field ["set-paused"] fun(self: AppHost.Scheduler, paused: boolean): true
---@field set_paused fun(self: AppHost.Scheduler, paused: boolean): true
---@field ["paused?"] fun(self: AppHost.Scheduler): boolean
---@field is_paused fun(self: AppHost.Scheduler): boolean
---@field now fun(self: AppHost.Scheduler): Temporal.Instant
---@field count fun(self: AppHost.Scheduler): integer everything on the host's timeline
---@field next fun(self: AppHost.Scheduler): boolean test clock: jump to the earliest deadline, run what is due there
---@field ["run-all"] fun(self: AppHost.Scheduler, opts?: RuntimeScheduler.RunAllOptions): true test clock
---@field run_all fun(self: AppHost.Scheduler, opts?: RuntimeScheduler.RunAllOptions): true test clock
---@field ["run-to-last"] fun(self: AppHost.Scheduler): true test clock
---@field run_to_last fun(self: AppHost.Scheduler): true test clock
---@field jump fun(self: AppHost.Scheduler, d: Temporal.Duration): true test clock: the host was suspended for d
---@field trace fun(self: AppHost.Scheduler, start?: boolean): RuntimeScheduler.TraceRecord[]|true
---@field snapshot fun(self: AppHost.Scheduler, opts?: RuntimeScheduler.SnapshotOptions): RuntimeScheduler.Snapshot, RuntimeScheduler.LeftOut[] the host's timed work and pause state as plain data
---@field restore fun(self: AppHost.Scheduler, snap: RuntimeScheduler.Snapshot|string, opts: RuntimeScheduler.RestoreOptions): true, RuntimeScheduler.LeftOut[], table<integer, RuntimeScheduler.Handle> into a host with nothing pending
---@field ["register-timer"] fun(self: AppHost.Scheduler, opts: RuntimeScheduler.TimerOptions): RuntimeScheduler.Timer
---@field register_timer fun(self: AppHost.Scheduler, opts: RuntimeScheduler.TimerOptions): RuntimeScheduler.Timer
---@field owner fun(self: AppHost.Scheduler, opts: RuntimeScheduler.OwnerOptions): RuntimeScheduler.Owner
---@field debouncer fun(self: AppHost.Scheduler, opts: RuntimeScheduler.DebouncerOptions): RuntimeScheduler.Debouncer
---@field spawn fun(self: AppHost.Scheduler, f: fun(...), ...): RuntimeScheduler.Spawn runs f(...) at once as a coroutine on the host's timeline
---@field wait fun(self: AppHost.Scheduler, d: Temporal.Duration): Temporal.Duration inside hs:spawn's functions and the host's keyed callbacks
---@field ["on-error"] fun(self: AppHost.Scheduler, handler: (fun(msg: string, info: AppHost.ErrorInfo))|nil): true
---@field on_error fun(self: AppHost.Scheduler, handler: (fun(msg: string, info: AppHost.ErrorInfo))|nil): true

---@type AppHost
local AppHost = {}
return AppHost

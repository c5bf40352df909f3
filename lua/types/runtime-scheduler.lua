---@meta runtime-scheduler
-- LuaLS definitions for Metronome's `runtime-scheduler` module
-- (docs/lua-api.md). Both spellings of every name: ["run-all"] and run_all.

---@class RuntimeScheduler
---@field create fun(opts?: RuntimeScheduler.CreateOptions): RuntimeScheduler.Scheduler call with '.', not ':'

---@class RuntimeScheduler.CreateOptions
---@field clock? Temporal.Clock the epoch is clock:now(); default the run's virtual clock

---@class RuntimeScheduler.OnceOptions
---@field delay Temporal.Duration >= 0
---@field callback fun()

---@class RuntimeScheduler.EveryOptions
---@field interval Temporal.Duration > 0
---@field callback fun()

---Give each key in one spelling.
---@class RuntimeScheduler.RecurrenceOptions
---@field ["recurrence-set"]? Temporal.RecurrenceSet
---@field recurrence_set? Temporal.RecurrenceSet
---@field ["zone-id"]? string an IANA zone id
---@field zone_id? string an IANA zone id
---@field callback fun(payload: RuntimeScheduler.Occurrence)
---@field disambiguation? Temporal.Disambiguation default "reject"
---@field limit? integer fires at most this many (>= 1)

---What a recurrence callback receives.
---@class RuntimeScheduler.Occurrence
---@field ["scheduled-at"] Temporal.Instant
---@field scheduled_at Temporal.Instant
---@field ["occurrence-index"] integer one-based within the handle
---@field occurrence_index integer one-based within the handle

---Give each key in one spelling.
---@class RuntimeScheduler.RunAllOptions
---@field ["loop-limit"]? integer default 10,000 fires
---@field loop_limit? integer default 10,000 fires

---One pending job, as list() shows it.
---@class RuntimeScheduler.JobRecord
---@field id integer
---@field kind "once"|"every"|"recurrence"|"timer"
---@field ["due-at"] Temporal.Instant
---@field due_at Temporal.Instant
---@field ["due-in"] Temporal.Duration
---@field due_in Temporal.Duration
---@field interval? Temporal.Duration
---@field ["occurrence-index"]? integer
---@field occurrence_index? integer
---@field group? string hs:jobs() only: which part of the host's timeline it belongs to

---One fire, as trace() records it.
---@class RuntimeScheduler.TraceRecord
---@field at Temporal.Instant
---@field id integer
---@field kind string

---A typed scheduler on virtual time: exact-nanosecond deadlines, moved only
---by advance, update and the test-clock verbs.
---@class RuntimeScheduler.Scheduler
---@field ["schedule-once"] fun(self: RuntimeScheduler.Scheduler, opts: RuntimeScheduler.OnceOptions): RuntimeScheduler.Handle
---@field schedule_once fun(self: RuntimeScheduler.Scheduler, opts: RuntimeScheduler.OnceOptions): RuntimeScheduler.Handle
---@field ["schedule-every"] fun(self: RuntimeScheduler.Scheduler, opts: RuntimeScheduler.EveryOptions): RuntimeScheduler.Handle
---@field schedule_every fun(self: RuntimeScheduler.Scheduler, opts: RuntimeScheduler.EveryOptions): RuntimeScheduler.Handle
---@field ["schedule-recurrence"] fun(self: RuntimeScheduler.Scheduler, opts: RuntimeScheduler.RecurrenceOptions): RuntimeScheduler.Handle
---@field schedule_recurrence fun(self: RuntimeScheduler.Scheduler, opts: RuntimeScheduler.RecurrenceOptions): RuntimeScheduler.Handle
---@field advance fun(self: RuntimeScheduler.Scheduler, d: Temporal.Duration): true runs every job due up to now + d
---@field update fun(self: RuntimeScheduler.Scheduler, delta_ms: number): true advance by milliseconds (finite, >= 0)
---@field now fun(self: RuntimeScheduler.Scheduler): Temporal.Instant
---@field list fun(self: RuntimeScheduler.Scheduler): RuntimeScheduler.JobRecord[] active jobs in due order
---@field count fun(self: RuntimeScheduler.Scheduler): integer active jobs
---@field clear fun(self: RuntimeScheduler.Scheduler): true deactivates all pending work
---@field drop fun(self: RuntimeScheduler.Scheduler): true deactivates all pending work; later calls are errors
---@field next fun(self: RuntimeScheduler.Scheduler): boolean jump to the earliest deadline and run what is due there
---@field ["run-all"] fun(self: RuntimeScheduler.Scheduler, opts?: RuntimeScheduler.RunAllOptions): true
---@field run_all fun(self: RuntimeScheduler.Scheduler, opts?: RuntimeScheduler.RunAllOptions): true
---@field ["run-to-last"] fun(self: RuntimeScheduler.Scheduler): true
---@field run_to_last fun(self: RuntimeScheduler.Scheduler): true
---@field jump fun(self: RuntimeScheduler.Scheduler, d: Temporal.Duration): true the host was suspended for d
---@field trace fun(self: RuntimeScheduler.Scheduler, start?: boolean): RuntimeScheduler.TraceRecord[]|true
---@field ["set-loop-limit"] fun(self: RuntimeScheduler.Scheduler, n: integer): true
---@field set_loop_limit fun(self: RuntimeScheduler.Scheduler, n: integer): true
---@field ["set-max-pending"] fun(self: RuntimeScheduler.Scheduler, n: integer): true
---@field set_max_pending fun(self: RuntimeScheduler.Scheduler, n: integer): true

---A scheduled job. cancel and drop are idempotent and return true.
---@class RuntimeScheduler.Handle
---@field id integer the id list() shows
---@field cancel fun(self: RuntimeScheduler.Handle): true stops future fires
---@field drop fun(self: RuntimeScheduler.Handle): true cancels and releases the handle's resources
---@field ["active?"] fun(self: RuntimeScheduler.Handle): boolean
---@field is_active fun(self: RuntimeScheduler.Handle): boolean

---@type RuntimeScheduler
local RuntimeScheduler = {}
return RuntimeScheduler

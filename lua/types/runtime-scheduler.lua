---@meta runtime-scheduler
-- LuaLS definitions for Metronome's `runtime-scheduler` module
-- (docs/lua-api.md). Both spellings of every name: ["run-all"] and run_all.

---@class RuntimeScheduler
---@field create fun(opts?: RuntimeScheduler.CreateOptions): RuntimeScheduler.Scheduler call with '.', not ':'
---@field encode fun(snap: RuntimeScheduler.Snapshot): string a snapshot as stable JSON text; call with '.'
---@field decode fun(text: string): RuntimeScheduler.Snapshot JSON text back into a snapshot table; call with '.'

---@class RuntimeScheduler.CreateOptions
---@field clock? Temporal.Clock the epoch is clock:now(); default the run's virtual clock

---Give :delay or :at, not both.
---@class RuntimeScheduler.OnceOptions
---@field delay? Temporal.Duration >= 0
---@field at? Temporal.Instant not before now; now is due now
---@field callback fun()
---@field label? string a name of yours: list(), traces and errors show it

---@class RuntimeScheduler.EveryOptions
---@field interval Temporal.Duration > 0
---@field delay? Temporal.Duration the first fire's delay (>= 0), which anchors the grid; default interval
---@field count? integer how many fires in all (>= 1), catch-up included; then the handle is inactive
---@field callback fun()
---@field label? string a name of yours: list(), traces and errors show it

---Give each key in one spelling.
---@class RuntimeScheduler.RecurrenceOptions
---@field ["recurrence-set"]? Temporal.RecurrenceSet
---@field recurrence_set? Temporal.RecurrenceSet
---@field ["zone-id"]? string an IANA zone id
---@field zone_id? string an IANA zone id
---@field callback fun(payload: RuntimeScheduler.Occurrence)
---@field disambiguation? Temporal.Disambiguation default "reject"
---@field limit? integer fires at most this many (>= 1)
---@field label? string a name of yours: list(), traces and errors show it

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
---@field kind "once"|"every"|"recurrence"|"timer"|"debounce"|"spawn"
---@field label? string the job's label option, when given
---@field ["due-at"] Temporal.Instant
---@field due_at Temporal.Instant
---@field ["due-in"] Temporal.Duration
---@field due_in Temporal.Duration
---@field interval? Temporal.Duration
---@field ["occurrence-index"]? integer
---@field occurrence_index? integer
---@field group? string hs:jobs() only: which part of the host's timeline it belongs to
---@field key? any a keyed timer's or a debounced key
---@field generation? integer a keyed timer's generation

---One fire, cancel or drop, as trace() records it.
---@class RuntimeScheduler.TraceRecord
---@field event "fire"|"cancel"|"drop" a fire at the job's deadline; a cancel or drop when it happened
---@field at Temporal.Instant
---@field id integer
---@field kind string
---@field label? string the job's label option, when given
---@field key? string a keyed tick's key
---@field generation? integer
---@field ["delivery-index"]? integer
---@field delivery_index? integer
---@field ["scheduled-index"]? integer
---@field scheduled_index? integer
---@field ["skipped-ticks"]? integer
---@field skipped_ticks? integer

---A typed scheduler on virtual time: exact-nanosecond deadlines, moved only
---by advance, update and the test-clock verbs.
---@alias RuntimeScheduler.Snapshot table plain data (strings, numbers, booleans, tables): version, now, seq, jobs, ...

---@class RuntimeScheduler.SnapshotOptions
---@field skip? boolean leave out the jobs that cannot be saved (and list them) instead of raising

---@class RuntimeScheduler.LeftOut
---@field id integer
---@field kind string
---@field label? string
---@field where? string where it was scheduled
---@field reason string

---@class RuntimeScheduler.RestoreOptions
---@field handlers table<string, function|{ callback: function, ["on-cancel"]?: function }> label = callback
---@field misfire? "fire-once"|"fire-all"|"skip" for runs missed while down; default "fire-once"
---@field ["max-catch-up-ticks"]? integer fire-all fires at most this many per job (default 1,000)
---@field max_catch_up_ticks? integer
---@field skip? boolean leave out the jobs that cannot be restored (and list them) instead of raising
---@field owners? table<string, RuntimeScheduler.Owner> owner id = an owner with a lease of this scheduler

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
---@field snapshot fun(self: RuntimeScheduler.Scheduler, opts?: RuntimeScheduler.SnapshotOptions): RuntimeScheduler.Snapshot, RuntimeScheduler.LeftOut[] pending work as plain data; changes nothing
---@field restore fun(self: RuntimeScheduler.Scheduler, snap: RuntimeScheduler.Snapshot|string, opts: RuntimeScheduler.RestoreOptions): true, RuntimeScheduler.LeftOut[], table<integer, RuntimeScheduler.Handle> into a scheduler with nothing pending; the handles of restored once and every jobs by id
---@field ["set-loop-limit"] fun(self: RuntimeScheduler.Scheduler, n: integer): true
---@field set_loop_limit fun(self: RuntimeScheduler.Scheduler, n: integer): true
---@field ["set-max-pending"] fun(self: RuntimeScheduler.Scheduler, n: integer): true
---@field set_max_pending fun(self: RuntimeScheduler.Scheduler, n: integer): true
---@field ["register-timer"] fun(self: RuntimeScheduler.Scheduler, opts: RuntimeScheduler.TimerOptions): RuntimeScheduler.Timer keyed by the scheduler's own owner
---@field register_timer fun(self: RuntimeScheduler.Scheduler, opts: RuntimeScheduler.TimerOptions): RuntimeScheduler.Timer keyed by the scheduler's own owner
---@field owner fun(self: RuntimeScheduler.Scheduler, opts: RuntimeScheduler.OwnerOptions): RuntimeScheduler.Owner
---@field debouncer fun(self: RuntimeScheduler.Scheduler, opts: RuntimeScheduler.DebouncerOptions): RuntimeScheduler.Debouncer
---@field spawn fun(self: RuntimeScheduler.Scheduler, f: fun(...), ...): RuntimeScheduler.Spawn runs f(...) at once as a coroutine, up to its first wait
---@field wait fun(self: RuntimeScheduler.Scheduler, d: Temporal.Duration): Temporal.Duration inside a spawned function or keyed callback: suspends for d of virtual time; returns the time it took

---A scheduled job. cancel and drop are idempotent and return true.
---@class RuntimeScheduler.Handle
---@field id integer the id list() shows
---@field cancel fun(self: RuntimeScheduler.Handle): true stops future fires
---@field drop fun(self: RuntimeScheduler.Handle): true cancels and releases the handle's resources
---@field ["active?"] fun(self: RuntimeScheduler.Handle): boolean
---@field is_active fun(self: RuntimeScheduler.Handle): boolean
---@field due fun(self: RuntimeScheduler.Handle): Temporal.Instant? the next deadline (in an interval's callback, its next tick); nil when inactive
---@field remaining fun(self: RuntimeScheduler.Handle): Temporal.Duration? time to the next deadline, never negative; nil when inactive
---@field reset fun(self: RuntimeScheduler.Handle, d?: Temporal.Duration|number): true re-arms (even a fired one-shot) d from now, default the original delay; runtime-timers handles take milliseconds

---A spawned function. cancel ends it at its current wait; it cannot be reset.
---@class RuntimeScheduler.Spawn
---@field id integer the id list() shows
---@field cancel fun(self: RuntimeScheduler.Spawn): true
---@field drop fun(self: RuntimeScheduler.Spawn): true
---@field ["active?"] fun(self: RuntimeScheduler.Spawn): boolean running or waiting
---@field is_active fun(self: RuntimeScheduler.Spawn): boolean running or waiting
---@field due fun(self: RuntimeScheduler.Spawn): Temporal.Instant? when it resumes; nil unless waiting
---@field remaining fun(self: RuntimeScheduler.Spawn): Temporal.Duration? nil unless waiting
---@field reset fun(self: RuntimeScheduler.Spawn): nil always an error: spawn again

---@alias RuntimeScheduler.Overrun "skip-late-ticks"|"catch-up-bounded"|"delay-next-tick"

---A keyed repeating timer. Give each key in one spelling.
---@class RuntimeScheduler.TimerOptions
---@field key string non-empty; scoped to the owner
---@field interval Temporal.Duration > 0
---@field delay? Temporal.Duration the first tick's delay (>= 0); default interval
---@field overrun? RuntimeScheduler.Overrun default "skip-late-ticks"
---@field ["max-catch-up-ticks"]? integer 1..2^31-1, used by catch-up-bounded (default 1)
---@field max_catch_up_ticks? integer 1..2^31-1, used by catch-up-bounded (default 1)
---@field ["on-cancel"]? fun() timer-owned cleanup; its error goes into result()
---@field on_cancel? fun() timer-owned cleanup; its error goes into result()
---@field callback fun(tick: RuntimeScheduler.Tick)
---@field label? string a name of yours: list(), traces and errors show it

---What a keyed callback receives. The table is reused for the
---generation's next tick: copy a field to keep it.
---@class RuntimeScheduler.Tick
---@field ["delivery-index"] integer callbacks started in this generation, from 1
---@field delivery_index integer
---@field ["scheduled-index"] integer the nominal tick, from 1
---@field scheduled_index integer
---@field ["skipped-ticks"] integer nominal ticks since the last delivery that got no callback
---@field skipped_ticks integer
---@field generation integer
---@field fence string the owner's fencing value, decimal: under a cluster the ownership key's create revision; a local owner's counts its transfers from "0"
---@field wait fun(self: RuntimeScheduler.Tick, d: Temporal.Duration): Temporal.Duration the handler keeps running for d of virtual time

---One generation of a keyed timer.
---@class RuntimeScheduler.Timer
---@field id integer
---@field key string
---@field generation integer
---@field cancel fun(self: RuntimeScheduler.Timer): RuntimeScheduler.Completion the generation's one completion
---@field drop fun(self: RuntimeScheduler.Timer): true
---@field ["active?"] fun(self: RuntimeScheduler.Timer): boolean
---@field reset fun(self: RuntimeScheduler.Timer): nil always an error: register the key again
---@field due fun(self: RuntimeScheduler.Timer): Temporal.Instant? the next tick's deadline (now for a late one); nil once cancelled or while its lease has lapsed
---@field remaining fun(self: RuntimeScheduler.Timer): Temporal.Duration? time to due(), never negative
---@field is_active fun(self: RuntimeScheduler.Timer): boolean

---A generation's one cancel result; every caller gets the same object.
---@class RuntimeScheduler.Completion
---@field ["done?"] fun(self: RuntimeScheduler.Completion): boolean
---@field is_done fun(self: RuntimeScheduler.Completion): boolean
---@field result fun(self: RuntimeScheduler.Completion): boolean, string? true, or false and the cleanup's error; an error before done?

---@class RuntimeScheduler.OwnerOptions
---@field lease Temporal.Duration > 0
---@field id? string a non-empty label (the ownership key under a cluster)

---An owner with a lease: its timers tick only before the lease deadline.
---@class RuntimeScheduler.Owner
---@field id string|nil
---@field ["register-timer"] fun(self: RuntimeScheduler.Owner, opts: RuntimeScheduler.TimerOptions): RuntimeScheduler.Timer
---@field register_timer fun(self: RuntimeScheduler.Owner, opts: RuntimeScheduler.TimerOptions): RuntimeScheduler.Timer
---@field renew fun(self: RuntimeScheduler.Owner): true the deadline becomes now + lease
---@field transfer fun(self: RuntimeScheduler.Owner): true a new authority: pending ticks of the old one never run (under a cluster: resigns, for a standby to take over)
---@field ["owned?"] fun(self: RuntimeScheduler.Owner): boolean this process owns it now (always true outside a cluster)
---@field is_owned fun(self: RuntimeScheduler.Owner): boolean

---A per-key debouncer. Give each key in one spelling.
---@class RuntimeScheduler.DebouncerOptions
---@field timeout Temporal.Duration a fresh key fires this long after its first touch
---@field ["busy-timeout"]? Temporal.Duration later touches push the wake-up this far; default timeout
---@field busy_timeout? Temporal.Duration later touches push the wake-up this far; default timeout
---@field ["force-min"]? Temporal.Duration the ceiling after the first touch is drawn from [force-min, force-max]
---@field force_min? Temporal.Duration
---@field ["force-max"]? Temporal.Duration
---@field force_max? Temporal.Duration
---@field throttle? Temporal.Duration a floor after firing; default 0
---@field leading? boolean fire on the first touch (default false)
---@field trailing? boolean fire after the quiet time (default true)
---@field seed? integer the ceiling draws; default from the state's generator
---@field callback fun(key: any, ...) gets the key and its latest touch's arguments
---@field label? string a name of yours: list() and errors show it

---@class RuntimeScheduler.Debouncer
---@field debounce fun(self: RuntimeScheduler.Debouncer, key: any, ...): true
---@field cancel fun(self: RuntimeScheduler.Debouncer, key: any): boolean whether a call was pending
---@field flush fun(self: RuntimeScheduler.Debouncer, key: any): boolean whether the callback ran
---@field ["pending?"] fun(self: RuntimeScheduler.Debouncer, key: any): boolean
---@field is_pending fun(self: RuntimeScheduler.Debouncer, key: any): boolean

---@type RuntimeScheduler
local RuntimeScheduler = {}
return RuntimeScheduler

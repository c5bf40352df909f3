---@meta event-loop
-- LuaLS definitions for Metronome's `event-loop` module: HTML's timers,
-- tasks, microtasks and animation frames (docs/lua-api.md). Both spellings.

---@class EventLoop
---@field new fun(opts?: EventLoop.Options): EventLoop.Loop call with '.', not ':'

---Give each key in one spelling.
---@class EventLoop.Options
---@field clock? "virtual"|"real" default "virtual" (starts at 0 ms)
---@field now? number a virtual clock's start in ms, where reset puts it back; default 0
---@field ["loop-limit"]? integer default 10,000: callbacks per run-all, run-to-last or run-microtasks, and per instant in the other verbs
---@field loop_limit? integer default 10,000: callbacks per run-all, run-to-last or run-microtasks, and per instant in the other verbs

---Give each key in one spelling.
---@class EventLoop.RunAllOptions
---@field ["loop-limit"]? integer default new's loop-limit (10,000 tasks and microtasks)
---@field loop_limit? integer default new's loop-limit (10,000 tasks and microtasks)

---A pull source: ready says whether it has work, run does one piece of it.
---@class EventLoop.Source
---@field name string unique within the loop
---@field class "turn"|"batch"|"settle"|"rendering"
---@field ready fun(): boolean
---@field run fun()
---@field deadline? fun(): number|nil loop time in ms of its next work

---One agent's event loop. Times and delays are milliseconds (numbers).
---@class EventLoop.Loop
---@field ["set-timeout"] fun(self: EventLoop.Loop, f: function, delay_ms?: number, ...): integer
---@field set_timeout fun(self: EventLoop.Loop, f: function, delay_ms?: number, ...): integer
---@field ["set-interval"] fun(self: EventLoop.Loop, f: function, delay_ms?: number, ...): integer
---@field set_interval fun(self: EventLoop.Loop, f: function, delay_ms?: number, ...): integer
---@field ["clear-timeout"] fun(self: EventLoop.Loop, id: integer) an unknown id is a no-op
---@field clear_timeout fun(self: EventLoop.Loop, id: integer) an unknown id is a no-op
---@field ["clear-interval"] fun(self: EventLoop.Loop, id: integer) one id space with clear-timeout
---@field clear_interval fun(self: EventLoop.Loop, id: integer) one id space with clear-timeout
---@field ["queue-task"] fun(self: EventLoop.Loop, f: function)
---@field queue_task fun(self: EventLoop.Loop, f: function)
---@field ["queue-microtask"] fun(self: EventLoop.Loop, f: function)
---@field queue_microtask fun(self: EventLoop.Loop, f: function)
---@field ["request-animation-frame"] fun(self: EventLoop.Loop, f: fun(frame_ms: number)): integer
---@field request_animation_frame fun(self: EventLoop.Loop, f: fun(frame_ms: number)): integer
---@field ["cancel-animation-frame"] fun(self: EventLoop.Loop, id: integer)
---@field cancel_animation_frame fun(self: EventLoop.Loop, id: integer)
---@field ["register-source"] fun(self: EventLoop.Loop, source: EventLoop.Source)
---@field register_source fun(self: EventLoop.Loop, source: EventLoop.Source)
---@field ["set-task-hook"] fun(self: EventLoop.Loop, hook: function|nil) runs once after every task
---@field set_task_hook fun(self: EventLoop.Loop, hook: function|nil) runs once after every task
---@field ["on-error"] fun(self: EventLoop.Loop, handler: (fun(msg: string))|nil)
---@field on_error fun(self: EventLoop.Loop, handler: (fun(msg: string))|nil)
---@field run fun(self: EventLoop.Loop, until_ms: number) runs up to an absolute loop time
---@field advance fun(self: EventLoop.Loop, ms?: number): number runs everything due up to now + ms (default 0); returns now
---@field next fun(self: EventLoop.Loop): number runs the next task, timer or frame and the microtasks after it; returns now
---@field jump fun(self: EventLoop.Loop, ms: number): number moves time first; each timer due on the way fires once, late; returns now
---@field ["run-microtasks"] fun(self: EventLoop.Loop) the microtask checkpoint alone
---@field run_microtasks fun(self: EventLoop.Loop) the microtask checkpoint alone
---@field ["run-to-frame"] fun(self: EventLoop.Loop): number to the next animation frame time, that frame included; returns now
---@field run_to_frame fun(self: EventLoop.Loop): number to the next animation frame time, that frame included; returns now
---@field ["run-all"] fun(self: EventLoop.Loop, opts?: EventLoop.RunAllOptions): number returns now
---@field run_all fun(self: EventLoop.Loop, opts?: EventLoop.RunAllOptions): number returns now
---@field ["run-to-last"] fun(self: EventLoop.Loop, opts?: EventLoop.RunAllOptions): number returns now
---@field run_to_last fun(self: EventLoop.Loop, opts?: EventLoop.RunAllOptions): number returns now
---@field count fun(self: EventLoop.Loop): integer timers, queued tasks, microtasks and frame callbacks
---@field reset fun(self: EventLoop.Loop) drops everything pending; a virtual clock goes back to its start
---@field now fun(self: EventLoop.Loop): number ms
---@field ["next-timer"] fun(self: EventLoop.Loop): number ms; math.huge when nothing is scheduled
---@field next_timer fun(self: EventLoop.Loop): number ms; math.huge when nothing is scheduled
---@field ["needs-frame"] fun(self: EventLoop.Loop): boolean
---@field needs_frame fun(self: EventLoop.Loop): boolean

---@type EventLoop
local EventLoop = {}
return EventLoop

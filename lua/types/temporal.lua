---@meta temporal
-- LuaLS definitions for Metronome's `temporal` module (docs/lua-api.md).
-- Every name has its kebab-case spelling (["total-ms"]) and its snake_case
-- one (total_ms); both mean the same.

---Exact time: durations and instants in integer nanoseconds, clocks, and
---RFC 5545 recurrence sets expanded in an explicit IANA zone.
---@class Temporal
---@field duration Temporal.DurationModule
---@field instant Temporal.InstantModule
---@field clock Temporal.ClockModule
---@field ["recurrence-set"] fun(opts: Temporal.RecurrenceSetOptions): Temporal.RecurrenceSet
---@field recurrence_set fun(opts: Temporal.RecurrenceSetOptions): Temporal.RecurrenceSet

---The fields of a duration; their sum is the duration. Integer-valued, any sign.
---@class Temporal.DurationFields
---@field hours? integer
---@field minutes? integer
---@field seconds? integer
---@field milliseconds? integer
---@field microseconds? integer
---@field nanoseconds? integer

---`Temporal.duration{ seconds = 1 }` makes a duration.
---@class Temporal.DurationModule
---@overload fun(fields: Temporal.DurationFields): Temporal.Duration
---@field parse fun(text: string): Temporal.Duration ISO 8601, time units only ("PT0.25S"), or the short form of --until ("90s", "1h30m")
---@field ["from-ms"] fun(ms: number): Temporal.Duration rounds to the nearest nanosecond
---@field from_ms fun(ms: number): Temporal.Duration rounds to the nearest nanosecond

---An exact span of time in nanoseconds. `+ - == < <=`, unary `-`, `*` and `/`
---by a number (exact: a fraction of a nanosecond is an error); tostring
---gives ISO 8601 (`PT1H30M`).
---@class Temporal.Duration
---@operator add(Temporal.Duration): Temporal.Duration
---@operator sub(Temporal.Duration): Temporal.Duration
---@operator mul(number): Temporal.Duration
---@operator div(number): Temporal.Duration
---@operator unm: Temporal.Duration
---@field round fun(self: Temporal.Duration, unit: Temporal.Duration): Temporal.Duration the multiple of unit nearest, halfway away from zero
---@field floor fun(self: Temporal.Duration, unit: Temporal.Duration): Temporal.Duration the greatest multiple of unit at or below
---@field ["total-ms"] fun(self: Temporal.Duration): number milliseconds, a float
---@field total_ms fun(self: Temporal.Duration): number milliseconds, a float
---@field ["total-ns"] fun(self: Temporal.Duration): integer nanoseconds; an error past 2^53
---@field total_ns fun(self: Temporal.Duration): integer nanoseconds; an error past 2^53

---@alias Temporal.Disambiguation "reject"|"compatible"|"earlier"|"later"

---@class Temporal.InstantModule
---@field parse fun(rfc3339: string): Temporal.Instant an offset or Z is required
---@field ["from-epoch-ms"] fun(ms: integer): Temporal.Instant
---@field from_epoch_ms fun(ms: integer): Temporal.Instant
---@field ["from-epoch-ns"] fun(ns: string|integer): Temporal.Instant a decimal string, or an integer up to 2^53
---@field from_epoch_ns fun(ns: string|integer): Temporal.Instant a decimal string, or an integer up to 2^53
---@field ["from-local"] fun(local_date_time: string, zone_id: string, disambiguation?: Temporal.Disambiguation): Temporal.Instant
---@field from_local fun(local_date_time: string, zone_id: string, disambiguation?: Temporal.Disambiguation): Temporal.Instant

---A point on the time line, exact to the nanosecond. `instant ± duration`,
---`instant - instant` (a duration), comparisons; tostring is RFC 3339 in UTC.
---@class Temporal.Instant
---@operator add(Temporal.Duration): Temporal.Instant
---@operator sub(Temporal.Duration): Temporal.Instant
---@field ["epoch-ms"] fun(self: Temporal.Instant): integer floor
---@field epoch_ms fun(self: Temporal.Instant): integer floor
---@field ["epoch-ns"] fun(self: Temporal.Instant): string a decimal string
---@field epoch_ns fun(self: Temporal.Instant): string a decimal string
---@field ["to-zoned-string"] fun(self: Temporal.Instant, zone_id: string): string "2024-03-10T03:00:00-04:00[America/New_York]"
---@field to_zoned_string fun(self: Temporal.Instant, zone_id: string): string "2024-03-10T03:00:00-04:00[America/New_York]"
---@field fields fun(self: Temporal.Instant, zone_id: string): Temporal.Fields

---An instant's calendar fields in a zone.
---@class Temporal.Fields
---@field year integer
---@field month integer
---@field day integer
---@field hour integer
---@field minute integer
---@field second integer
---@field nanosecond integer
---@field weekday integer ISO: 1 is Monday, 7 is Sunday
---@field ["day-of-year"] integer
---@field day_of_year integer
---@field offset string "+02:00"

---@class Temporal.ClockModule
---@field fixed fun(at: Temporal.Instant): Temporal.Clock a clock that always reads at
---@field system fun(): Temporal.Clock the wall clock; refused on a virtual clock without --allow-wallclock

---@class Temporal.Clock
---@field now fun(self: Temporal.Clock): Temporal.Instant

---An RFC 5545 recurrence set in local wall time. Give each key in one spelling.
---@class Temporal.RecurrenceSetOptions
---@field dtstart string a local date-time without offset: "2024-03-09T02:30:00"
---@field rrule? string|string[]
---@field rdate? string[]
---@field exdate? string[]
---@field exrule? string|string[]

---@class Temporal.RecurrenceSet
---@field occurrences fun(self: Temporal.RecurrenceSet, opts: Temporal.OccurrencesOptions): Temporal.Instant[]

---Give each key in one spelling.
---@class Temporal.OccurrencesOptions
---@field ["zone-id"]? string
---@field zone_id? string
---@field disambiguation? Temporal.Disambiguation default "reject"
---@field limit? integer >= 1
---@field after? Temporal.Instant inclusive
---@field before? Temporal.Instant exclusive

---@type Temporal
local Temporal = {}
return Temporal

// Package temporal holds Metronome's time values: exact durations, instants,
// clocks, IANA zones and RFC 5545 recurrence sets.
//
// # Exactness
//
// Durations and instants are int64 nanoseconds. Arithmetic is checked: a
// result out of range is ErrOverflow, never a wrapped value. Floats enter
// through DurationFromMillis, which rounds the float's exact value to the
// nearest nanosecond and refuses NaN and infinities, and as the factor of
// Scale and the divisor of Div, which round nothing: a result that is not a
// whole number of nanoseconds is ErrInexact. Floor and Round move a duration
// to a multiple of a unit.
//
// # Zones
//
// Zones are IANA ids loaded from one database embedded in the binary
// (TZDataVersion), so every machine gives the same answers. There is no host
// zone: "", "Local" and unknown ids are errors.
//
// # Wall time
//
// A LocalDateTime names a wall-clock reading, not an instant. A zone resolves
// it with a Disambiguation, as TC39 Temporal does for gaps and overlaps.
//
// # Concurrency
//
// Values are immutable and safe to share; nothing here starts goroutines.
package temporal

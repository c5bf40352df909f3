// Package keyed holds keyed repeating timers: generations, one cancel result
// per generation, tick information and overrun policies.
//
// # Ticks
//
// Cadence is the tick arithmetic every keyed timer shares, in real time
// and in virtual time: given a grid (first deadline, interval) and a
// Policy, it says which nominal tick a free handler receives now, with its
// Tick (DeliveryIndex, ScheduledIndex, SkippedTicks). It keeps no history,
// so a timer that ran a million ticks is as small as one that ran ten.
package keyed

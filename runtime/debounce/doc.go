// Package debounce collapses bursts of calls per key: a key touched many
// times fires once, with the arguments of its latest touch.
//
// # Timing
//
// A touch of an idle key starts a burst whose wake-up is Timeout away.
// With a force window (ForceMin, ForceMax) the burst also gets a ceiling,
// now plus a uniform draw from [ForceMin, ForceMax] (nanoseconds, both
// ends included). A later touch in the burst sets the wake-up to
// min(now + BusyTimeout, ceiling) when that is later than the current
// wake-up, and otherwise leaves it: a key touched
// forever still fires by its ceiling, and the random ceilings spread keys
// touched together. The ceiling bounds pushes only; a ceiling before
// now + Timeout does not bring the first wake-up forward. Moving the
// wake-up stops the key's timer and schedules a new one.
//
// At the wake-up the burst ends. With Trailing, if a touch is waiting, fn
// runs with the latest touch's arguments. With Leading, the touch that
// starts a burst runs fn at once, inside Debounce; later touches of the
// burst wait for the trailing edge, so with both edges one touch fires
// once and two fire twice (lodash's debounce).
//
// After fn runs, a Throttle > 0 sets a floor: no edge of the key fires
// before the run's instant plus Throttle. A touch that starts a burst
// during the floor fires no leading edge, and its wake-up is at least the
// floor; a leading run's own burst lasts until the floor too.
//
//	Timeout 100ms, BusyTimeout 50ms, force window [300ms, 300ms], Trailing:
//	touch at 0      wake-up 100, ceiling 300
//	touch at 30     min(80, 300) = 80 is not later: stays 100
//	touch at 70     wake-up 120
//	touch at 80     wake-up 130
//	touches at 100, 140, 180, 220: wake-up 150, 190, 230, 270
//	touch at 260    wake-up min(310, 300) = 300
//	touch at 290    min(340, 300) = 300 is not later: stays 300
//	at 300          fn(key, args of the touch at 290)
//
//	Throttle 500ms, Timeout 100ms, Trailing:
//	touch at 0    -> fires at 100, floor until 600
//	touch at 150  -> wake-up max(250, 600) = 600: fires at 600, floor to 1100
//	touch at 1200 -> a fresh burst: fires at 1300
//
// # Keys
//
// A key's state is kept while it has a burst or a floor, and forgotten
// after: memory follows the keys in play. Cancel forgets a key, floor
// included; Flush ends its burst now; Pending reports a burst (not a
// floor).
//
// # Random source
//
// Ceilings come from Config.Source, or a PCG seeded with Config.Seed: a
// seed gives the same draws every run. Nothing here reads the wall clock
// but RealTime.
//
// # Timers
//
// A Debouncer runs on Timers: a temporal.Clock, and AfterFunc with a Timer
// to Stop. RealTime puts the wake-ups on time.AfterFunc, a runtime timer and
// a goroutine per firing. Any AfterFunc-style service stands in as well:
// the Lua binding puts them on the typed scheduler (runtime/sched) in
// virtual time, as one-shot jobs moved by the scheduler's Advance, whose
// error comes out of it (see the example); a runtime/driver.Service runs
// them as wheel entries, inline or on its pool.
//
// # Tracing
//
// Config.Logger receives the decisions at debug level (a burst with its
// wake-up and ceiling, a push, a wake-up and whether it fires, a cancel);
// nil, the default, costs one comparison per decision.
//
// # Errors
//
// New refuses a bad Config with a *temporal.OptionError naming New and the
// field ("debounce.New: Timeout: want a duration > 0, got PT0S"): Timeout
// <= 0, a negative BusyTimeout or Throttle, ForceMin or ForceMax alone or
// negative, ForceMin > ForceMax, no edge, a nil fn or Timers. A touch the
// Timers refuse (a dropped scheduler, a full one) returns their error and
// changes nothing, the random sequence included.
//
// # Concurrency
//
// A Debouncer is safe for concurrent use when its Timers are (RealTime's
// are; a virtual-time scheduler belongs to its goroutine). fn
// runs without the Debouncer's lock held, so it may touch keys; in real
// time it runs on timer goroutines, so fn of different keys can run at
// once, and of one key too when a leading edge races a trailing one
// without a floor. The Timers' AfterFunc and a timer's Stop are called
// without the lock too: they may run a callback inside AfterFunc, or
// wait in Stop for one that is running. Each move of a key's wake-up takes
// a new generation under the lock, and a timer whose generation has moved
// on fires nothing, so a touch racing its key's timer is delivered once.
package debounce

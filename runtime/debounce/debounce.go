package debounce

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/metronome-rt/metronome/temporal"
)

// pcgStream is the PCG's second seed word: Config.Seed picks the sequence.
const pcgStream = 0x6465_626f_756e_6365 // "debounce"

// noCeiling is the ceiling of a debouncer without a force window.
const noCeiling = math.MaxInt64

// Config holds a Debouncer's timing. Durations are exact; see the package
// doc for the model.
type Config struct {
	// Timeout is how long after the first touch of an idle key it fires;
	// > 0, required.
	Timeout temporal.Duration
	// BusyTimeout is how far a later touch pushes the wake-up; >= 0, where
	// 0 means Timeout.
	BusyTimeout temporal.Duration
	// ForceMin and ForceMax bound the ceiling drawn at a burst's first
	// touch: 0 < ForceMin <= ForceMax, or both 0 for no ceiling.
	ForceMin, ForceMax temporal.Duration
	// Throttle is the floor after a key fires: no edge of the key fires
	// before the firing's instant plus Throttle. >= 0; 0 means none.
	Throttle temporal.Duration
	// Leading fires at a burst's first touch; Trailing fires at its
	// wake-up if a touch is waiting. At least one must be set.
	Leading, Trailing bool
	// Seed seeds the PCG that draws ceilings, when Source is nil.
	Seed uint64
	// Source draws the ceilings instead of a PCG seeded with Seed. The
	// Debouncer calls it under its lock.
	Source rand.Source
	// Logger, when non-nil, receives the debouncer's decisions at debug
	// level: a burst's start with its wake-up and ceiling, a push, each
	// firing with its edge, a flush and a cancel. Nil (the default) costs
	// one comparison per decision.
	Logger *slog.Logger
}

// Func is a debouncer's callback: the key and the arguments of its latest
// touch. Its error is returned by the call that ran it (Debounce for a
// leading edge, Flush) or, for a trailing edge, handed to the Timers.
type Func[K comparable, A any] func(key K, args A) error

// Debouncer debounces calls per key. The zero value is not usable; call
// New. It is safe for concurrent use when its Timers are.
type Debouncer[K comparable, A any] struct {
	mu       sync.Mutex
	clock    Timers
	tagger   tagger // clock, when it describes keys
	fn       Func[K, A]
	src      rand.Source // rnd's source: State saves it when it can
	rnd      *rand.Rand
	timeout  int64
	busy     int64
	forceMin int64
	forceMax int64
	throttle int64
	leading  bool
	trailing bool

	log    *slog.Logger
	keys   map[K]*entry[K, A]
	floors []floorAt[K] // throttle floors in the order they end
	head   int          // floors[head:] are live
	free   []*entry[K, A]
	spare  int64 // a ceiling draw a refused touch gave back, when spared
	spared bool
}

// entry is a key's state: a burst and its throttle floor.
//
// The clock is called without d's lock, so a burst's timer is set after
// the burst: each change of the wake-up (a burst, a push) takes the next
// generation under the lock, and a timer acts only while its generation
// is the entry's. Whoever sets a timer that is no longer current on its
// return stops it; whoever replaces or ends a burst stops its timer if one
// was set.
type entry[K comparable, A any] struct {
	key   K      // the key whose tag is cached
	timer Timer  // the burst's timer; nil until its AfterFunc returns
	gen   uint64 // the burst's generation: a stale callback finds it moved
	burst bool   // false: no burst; the entry only holds a floor
	wake  int64  // the burst's wake-up on the clock
	ceil  int64  // the burst's ceiling
	floor int64  // no edge fires before it; 0 when none has been set
	args  A
	tag   any  // the key as AfterFunc gets it, made once per entry
	due   bool // a touch waits for the trailing edge
}

type floorAt[K comparable] struct {
	at  int64
	key K
}

// New returns a debouncer that calls fn on clock with the timing of c.
// A bad argument is a *temporal.OptionError naming debounce.New and the
// option.
func New[K comparable, A any](clock Timers, c Config, fn Func[K, A]) (*Debouncer[K, A], error) {
	if err := c.check(clock, fn == nil); err != nil {
		return nil, err
	}
	src := c.Source
	if src == nil {
		src = rand.NewPCG(c.Seed, pcgStream)
	}
	d := &Debouncer[K, A]{
		clock: clock, fn: fn, src: src, rnd: rand.New(src),
		timeout: int64(c.Timeout), busy: int64(c.BusyTimeout),
		forceMin: int64(c.ForceMin), forceMax: int64(c.ForceMax),
		throttle: int64(c.Throttle), leading: c.Leading, trailing: c.Trailing,
		keys: map[K]*entry[K, A]{}, log: c.Logger,
	}
	d.tagger, _ = clock.(tagger)
	if d.busy == 0 {
		d.busy = d.timeout
	}
	return d, nil
}

func (c *Config) check(clock Timers, nilFn bool) error {
	bad := func(opt, want string, got any) error {
		return &temporal.OptionError{Method: "debounce.New", Param: opt, Want: want, Got: got}
	}
	switch {
	case clock == nil:
		return bad("clock", "Timers", "nil")
	case nilFn:
		return bad("fn", "a function", "nil")
	case c.Timeout <= 0:
		return bad("Timeout", "a duration > 0", c.Timeout)
	case c.BusyTimeout < 0:
		return bad("BusyTimeout", "a duration >= 0 (0: Timeout)", c.BusyTimeout)
	case c.ForceMin < 0 || (c.ForceMin == 0 && c.ForceMax != 0):
		return bad("ForceMin", "a duration > 0 given with ForceMax (or both 0: no ceiling)", c.ForceMin)
	case c.ForceMax < 0 || (c.ForceMax == 0 && c.ForceMin != 0):
		return bad("ForceMax", "a duration > 0 given with ForceMin (or both 0: no ceiling)", c.ForceMax)
	case c.ForceMin > c.ForceMax:
		return bad("ForceMax", "a duration >= ForceMin ("+c.ForceMin.String()+")", c.ForceMax)
	case c.Throttle < 0:
		return bad("Throttle", "a duration >= 0 (0: none)", c.Throttle)
	case !c.Leading && !c.Trailing:
		return bad("Trailing", "true when Leading is false (one edge at least)", false)
	}
	return nil
}

// Debounce touches key with args. An idle key starts a burst: with
// Leading (and no throttle floor) fn runs now, inside Debounce, and its
// error is returned; the burst's wake-up is Timeout away (at least the
// floor). A touch of a key in a burst moves its wake-up to min(now +
// BusyTimeout, ceiling) when that is later. At the wake-up fn runs with the
// latest touch's arguments if one is waiting (Trailing). An error of the
// Timers (a dropped scheduler, say) means nothing changed.
func (d *Debouncer[K, A]) Debounce(key K, args A) error {
	d.mu.Lock()
	now := d.clock.Now().UnixNano()
	d.sweep(now)
	e := d.keys[key]
	if e != nil && e.burst && e.timer != nil && !live(e.timer) {
		e.burst, e.timer = false, nil // cancelled behind our back: the burst is over
	}
	if e != nil && e.burst {
		return d.push(key, e, now, args)
	}
	floor := int64(0)
	if e != nil {
		floor = e.floor
	}
	lead := d.leading && floor <= now
	wake := addSat(now, d.timeout)
	if lead && d.throttle > 0 {
		floor = addSat(now, d.throttle)
	}
	wake = max(wake, floor)
	fresh := e == nil
	if fresh {
		e = d.newEntry(key)
		d.keys[key] = e
	}
	// The burst is in place before the clock is called, which may run
	// its callback before AfterFunc returns.
	oldFloor, draw := e.floor, int64(-1)
	e.gen++
	gen := e.gen
	e.burst, e.timer, e.wake, e.ceil = true, nil, wake, noCeiling
	if d.forceMax > 0 {
		draw = d.draw()
		e.ceil = addSat(now, d.forceMin+draw)
	}
	if !lead {
		e.args, e.due = args, true
	} else if floor > e.floor {
		e.floor = floor
		d.floors = append(d.floors, floorAt[K]{floor, key})
	}
	if d.log != nil {
		d.trace("debounce: burst", key, slog.Int64("now", now), slog.Int64("wake", wake), slog.Int64("ceiling", e.ceil), slog.Bool("leading", lead))
	}
	tag := d.tagOf(key, e)
	d.mu.Unlock()

	t, err := d.schedule(tag, key, e, gen, wake-now)

	d.mu.Lock()
	current := d.current(key, e, gen)
	if err != nil {
		if current { // refused: undo the burst, and keep the draw for the next
			var zero A
			e.burst, e.args, e.due, e.floor = false, zero, false, oldFloor
			if draw >= 0 {
				d.spare, d.spared = draw, true
			}
			if fresh || e.floor <= now {
				delete(d.keys, key)
				d.release(e)
			}
		}
		d.mu.Unlock()
		return err
	}
	if current {
		e.timer, t = t, nil
	}
	d.mu.Unlock()
	if t != nil {
		t.Stop() // the burst moved on (pushed, ended) while the clock ran
	}
	if lead {
		return d.fn(key, args)
	}
	return nil
}

// current reports whether e is still key's entry in the burst of
// generation gen.
func (d *Debouncer[K, A]) current(key K, e *entry[K, A], gen uint64) bool {
	return d.keys[key] == e && e.gen == gen && e.burst
}

// draw returns the next ceiling offset: a draw a refused touch gave back,
// or a new one.
func (d *Debouncer[K, A]) draw() int64 {
	if d.spared {
		d.spared = false
		return d.spare
	}
	return d.rnd.Int64N(d.forceMax - d.forceMin + 1)
}

// push is a touch of key in a burst; it unlocks d.
func (d *Debouncer[K, A]) push(key K, e *entry[K, A], now int64, args A) error {
	wake := max(min(addSat(now, d.busy), e.ceil), e.floor)
	if wake <= e.wake {
		e.args, e.due = args, true
		d.mu.Unlock()
		return nil
	}
	old, oldWake, oldArgs, oldDue := e.timer, e.wake, e.args, e.due
	e.gen++
	gen := e.gen
	e.timer, e.wake, e.args, e.due = nil, wake, args, true
	if d.log != nil {
		d.trace("debounce: push", key, slog.Int64("now", now), slog.Int64("wake", wake))
	}
	tag := d.tagOf(key, e)
	d.mu.Unlock()

	t, err := d.schedule(tag, key, e, gen, wake-now)
	if err != nil && old != nil {
		// A scheduler at its pending cap has room for the new job only
		// once the old one is gone: try again without it.
		old.Stop()
		old = nil
		t, err = d.schedule(tag, key, e, gen, wake-now)
	}
	if err != nil {
		// Put the burst back at its old wake-up, with its old arguments.
		back, berr := d.schedule(tag, key, e, gen, max(oldWake-now, 0))
		d.mu.Lock()
		if d.current(key, e, gen) {
			if berr == nil {
				e.timer, e.wake, e.args, e.due = back, oldWake, oldArgs, oldDue
				back = nil
			} else {
				d.drop(key, e, now) // the burst is lost; err says why
			}
		}
		d.mu.Unlock()
		if back != nil {
			back.Stop()
		}
		return err
	}
	d.mu.Lock()
	if d.current(key, e, gen) {
		e.timer, t = t, nil
	}
	d.mu.Unlock()
	if t != nil {
		t.Stop()
	}
	if old != nil {
		old.Stop()
	}
	return nil
}

// tagOf returns key as AfterFunc gets it, made once per entry.
func (d *Debouncer[K, A]) tagOf(key K, e *entry[K, A]) any {
	if e.tag == nil {
		if d.tagger != nil {
			e.tag = d.tagger.Tag(key)
		} else {
			e.tag = key
		}
	}
	return e.tag
}

// schedule asks the clock for e's wake-up of generation gen, dt from now.
// It is called without d's lock.
func (d *Debouncer[K, A]) schedule(tag any, key K, e *entry[K, A], gen uint64, dt int64) (Timer, error) {
	return d.clock.AfterFunc(temporal.Duration(dt), tag, func() error { return d.wake(key, e, gen) })
}

// wake is the timer of e, generation gen.
func (d *Debouncer[K, A]) wake(key K, e *entry[K, A], gen uint64) error {
	d.mu.Lock()
	if !d.current(key, e, gen) {
		d.mu.Unlock() // replaced, cancelled or flushed after it started
		return nil
	}
	fire, args := d.end(key, e, d.clock.Now().UnixNano())
	d.mu.Unlock()
	if fire {
		return d.fn(key, args)
	}
	return nil
}

// end closes e's burst at now and reports whether fn is to run, with
// which arguments.
func (d *Debouncer[K, A]) end(key K, e *entry[K, A], now int64) (fire bool, args A) {
	fire = e.due && d.trailing
	args = e.args
	if fire && d.throttle > 0 {
		e.floor = addSat(now, d.throttle)
		d.floors = append(d.floors, floorAt[K]{e.floor, key})
	}
	if d.log != nil {
		d.trace("debounce: wake-up", key, slog.Int64("now", now), slog.Bool("fires", fire), slog.Int64("floor", e.floor))
	}
	d.drop(key, e, now)
	return fire, args
}

// trace logs one decision about key.
func (d *Debouncer[K, A]) trace(msg string, key K, attrs ...slog.Attr) {
	d.log.LogAttrs(context.Background(), slog.LevelDebug, msg, append(attrs, slog.Any("key", key))...)
}

// Flush ends key's burst now: with Trailing and a touch waiting, fn runs
// inside Flush, even during a throttle floor, and its error is returned;
// a run sets a new floor. ran reports whether fn ran. Without a burst it
// does nothing.
func (d *Debouncer[K, A]) Flush(key K) (ran bool, err error) {
	d.mu.Lock()
	now := d.clock.Now().UnixNano()
	d.sweep(now)
	e := d.keys[key]
	if e == nil || !e.burst {
		d.mu.Unlock()
		return false, nil
	}
	t := e.timer
	if t != nil && !live(t) {
		e.due = false // cancelled behind our back: nothing is pending
	}
	ran, args := d.end(key, e, now)
	d.mu.Unlock()
	if t != nil {
		t.Stop()
	}
	if ran {
		return true, d.fn(key, args)
	}
	return false, nil
}

// Cancel forgets key: its burst, its arguments and its throttle floor. It
// reports whether the key had a burst pending.
func (d *Debouncer[K, A]) Cancel(key K) bool {
	d.mu.Lock()
	d.sweep(d.clock.Now().UnixNano())
	e := d.keys[key]
	if e == nil {
		d.mu.Unlock()
		return false
	}
	t := e.timer
	was := e.burst && (t == nil || live(t))
	delete(d.keys, key)
	d.release(e)
	if d.log != nil {
		d.trace("debounce: cancel", key, slog.Bool("was-pending", was))
	}
	d.mu.Unlock()
	if t != nil {
		t.Stop()
	}
	return was
}

// Pending reports whether key has a burst pending: its wake-up is
// scheduled. A key held only by a throttle floor is not pending.
func (d *Debouncer[K, A]) Pending(key K) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	e := d.keys[key]
	return e != nil && e.pending()
}

// Len returns the number of pending keys.
func (d *Debouncer[K, A]) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, e := range d.keys {
		if e.pending() {
			n++
		}
	}
	return n
}

// pending reports whether e has a burst whose timer is pending (or on
// its way: a touch is still in the clock's AfterFunc).
func (e *entry[K, A]) pending() bool {
	return e.burst && (e.timer == nil || live(e.timer))
}

// drop ends e's burst, keeping the entry only while its floor holds.
func (d *Debouncer[K, A]) drop(key K, e *entry[K, A], now int64) {
	var zero A
	e.timer, e.burst, e.args, e.due = nil, false, zero, false
	if e.floor <= now {
		delete(d.keys, key)
		d.release(e)
	}
}

// live reports whether t is pending, when it can tell.
func live(t Timer) bool {
	if a, ok := t.(activeTimer); ok {
		return a.Active()
	}
	return true
}

// sweep forgets keys whose floor ended by now and that have no burst: the
// floors end in the order they were set, so this is a queue.
func (d *Debouncer[K, A]) sweep(now int64) {
	for d.head < len(d.floors) && d.floors[d.head].at <= now {
		f := d.floors[d.head]
		d.floors[d.head] = floorAt[K]{}
		d.head++
		if e := d.keys[f.key]; e != nil && !e.burst && e.floor <= now {
			delete(d.keys, f.key)
			d.release(e)
		}
	}
	if d.head > 32 && d.head*2 > len(d.floors) {
		n := copy(d.floors, d.floors[d.head:])
		clear(d.floors[n:])
		d.floors, d.head = d.floors[:n], 0
	}
}

func (d *Debouncer[K, A]) newEntry(key K) *entry[K, A] {
	if n := len(d.free); n > 0 {
		e := d.free[n-1]
		d.free = d.free[:n-1]
		if e.key != key {
			e.key, e.tag = key, nil
		}
		return e
	}
	return &entry[K, A]{key: key}
}

// release makes e reusable. Its generation goes on counting, so a stale
// callback of e's last use finds it moved on; its key's tag stays, for a
// key that comes back at once.
func (d *Debouncer[K, A]) release(e *entry[K, A]) {
	*e = entry[K, A]{gen: e.gen + 1, key: e.key, tag: e.tag}
	if len(d.free) < 64 {
		d.free = append(d.free, e)
	}
}

// addSat is a+b for b >= 0, saturating at MaxInt64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

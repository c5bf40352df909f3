package temporal

import (
	"errors"
	"fmt"
	"math"

	"github.com/metronome-rt/metronome/internal/clip"
)

// Disambiguation chooses the instant for a local time that a zone skips (a
// gap, as when clocks spring forward) or repeats (an overlap, as when they
// fall back), with TC39 Temporal's meaning:
//
//	America/New_York, 2024-03-10, 02:00 EST → 03:00 EDT (gap of 1 h)
//	  02:30 Reject      error: does not exist
//	  02:30 Compatible  03:30 EDT (07:30Z)   as Later
//	  02:30 Earlier     01:30 EST (06:30Z)   shifted back by the gap
//	  02:30 Later       03:30 EDT (07:30Z)   shifted forward by the gap
//	America/New_York, 2024-11-03, 02:00 EDT → 01:00 EST (overlap of 1 h)
//	  01:30 Reject      error: ambiguous
//	  01:30 Compatible  01:30 EDT (05:30Z)   as Earlier
//	  01:30 Earlier     01:30 EDT (05:30Z)
//	  01:30 Later       01:30 EST (06:30Z)
//
// The zero value is Reject. The gap length is the offset a day after the
// local time (read as UTC) minus the offset a day before, as Temporal's
// DisambiguatePossibleEpochNanoseconds takes it.
type Disambiguation int

// The disambiguations.
const (
	Reject Disambiguation = iota
	Compatible
	Earlier
	Later
)

var disambiguationNames = [...]string{"reject", "compatible", "earlier", "later"}

// ParseDisambiguation parses "reject", "compatible", "earlier" or "later".
func ParseDisambiguation(s string) (Disambiguation, error) {
	for i, n := range disambiguationNames {
		if s == n {
			return Disambiguation(i), nil
		}
	}
	return 0, fmt.Errorf(`disambiguation %s: want "reject", "compatible", "earlier" or "later"`, clip.Quote(s))
}

// String returns the name ParseDisambiguation accepts.
func (d Disambiguation) String() string {
	if d.valid() {
		return disambiguationNames[d]
	}
	return fmt.Sprintf("Disambiguation(%d)", int(d))
}

func (d Disambiguation) valid() bool { return d >= Reject && d <= Later }

// Sentinels wrapped by *ResolveError, by Kind.
var (
	ErrGap     = errors.New("local time skipped by the zone")
	ErrOverlap = errors.New("local time repeated by the zone")
)

// ResolveError reports a local time that a zone cannot turn into one
// instant under Reject (Kind "gap" or "overlap"), or whose instant falls
// outside the Instant range (Kind "range", wrapping ErrOverflow).
type ResolveError struct {
	Local LocalDateTime
	Zone  string
	Kind  string
	// DST tells whether the transition starts or ends daylight saving time;
	// otherwise the zone changed its standard offset.
	DST bool
}

func (e *ResolveError) Error() string {
	cause := "an offset change"
	if e.DST {
		cause = "a DST " + e.Kind
	}
	switch e.Kind {
	case "gap":
		return fmt.Sprintf("local time %s does not exist in %s (skipped by %s)", e.Local, e.Zone, cause)
	case "overlap":
		return fmt.Sprintf("local time %s is ambiguous in %s (repeated by %s)", e.Local, e.Zone, cause)
	}
	return fmt.Sprintf("local time %s in %s is outside the Instant range (1677-09-21 to 2262-04-11)", e.Local, e.Zone)
}

// Unwrap returns ErrGap, ErrOverlap or ErrOverflow, by Kind.
func (e *ResolveError) Unwrap() error {
	switch e.Kind {
	case "gap":
		return ErrGap
	case "overlap":
		return ErrOverlap
	}
	return ErrOverflow
}

// Resolve returns the instant at which the zone's clocks read l. A local
// time in a gap or an overlap is resolved by d (see Disambiguation); under
// Reject it is a *ResolveError naming l, the zone and the kind. An invalid l
// (February 30) is an error, never normalised.
//
// Consecutive calls within one offset period cost a comparison and a
// subtraction: the period is memoised.
func (z *Zone) Resolve(l LocalDateTime, d Disambiguation) (Instant, error) {
	if err := l.Validate(); err != nil {
		return Instant{}, err
	}
	if !d.valid() {
		return Instant{}, fmt.Errorf("disambiguation %d: want Reject, Compatible, Earlier or Later", int(d))
	}
	w := l.wall()
	var s int64
	if p := z.last.Load(); p != nil && w >= p.lo && w < p.hi {
		s = w - p.off
	} else {
		r := z.resolveSlow(w, d)
		if r.kind != kindOK {
			return Instant{}, z.resolveError(w, l.Nanosecond, r)
		}
		s = r.inst
		if r.unique {
			z.last.Store(z.cachedPeriodAt(s, false))
		}
	}
	ns, ok := secondsToNanos(s, l.Nanosecond)
	if !ok {
		return Instant{}, &ResolveError{Local: l, Zone: z.id, Kind: "range"}
	}
	return Instant{ns}, nil
}

// secondsToNanos returns s seconds plus ns nanoseconds as int64
// nanoseconds, or false when that overflows.
func secondsToNanos(s int64, ns int) (int64, bool) {
	n := int64(ns)
	if s >= 0 {
		if s > (math.MaxInt64-n)/1e9 {
			return 0, false
		}
		return s*1e9 + n, true
	}
	// s*1e9 alone may overflow where the sum does not.
	if s+1 < (math.MinInt64+(1e9-n))/1e9 {
		return 0, false
	}
	return (s+1)*1e9 - (1e9 - n), true
}

const (
	kindOK uint8 = iota
	kindGap
	kindOverlap
)

// wallInfo is what the zone says of one wall time (Unix seconds of the wall
// clock read as UTC): Temporal's GetPossibleEpochNanoseconds, exactly.
type wallInfo struct {
	n     int   // number of instants whose wall clock reads w
	first int64 // the earliest of them
	last  int64 // the latest of them
	gapT  int64 // n == 0: the transition that skips w
	dst   bool  // the transition changes isDST
}

// span covers every instant a wall time can map to: offsets stay within
// ±26 h.
const span = 27 * 3600

func (z *Zone) wallInfo(w int64) wallInfo {
	var wi wallInfo
	var prev period
	firstDST, gapFound := false, false
	for p := z.periodAt(w - span); ; p = z.periodAt(p.end) {
		if c := w - p.off; c >= p.start && c < p.end {
			if wi.n == 0 {
				wi.first, firstDST = c, p.dst
			}
			wi.last = c
			wi.n++
			wi.dst = firstDST != p.dst
		}
		// The first period whose wall clock starts after w ends the gap
		// that w is in, if it is in one. (The first period scanned starts
		// more than a day before w and never qualifies.)
		if wi.n == 0 && !gapFound && p.start+p.off > w {
			wi.gapT, wi.dst, gapFound = p.start, prev.dst != p.dst, true
		}
		if p.end >= w+span || p.end >= farFuture {
			return wi
		}
		prev = p
	}
}

type slowResult struct {
	inst   int64 // the chosen instant (kind == kindOK)
	kind   uint8 // kindOK, or kindGap / kindOverlap under Reject
	unique bool  // w maps to exactly one instant
	gap    bool  // w is in a gap (whatever kind says)
	wi     wallInfo
}

// resolveSlow applies Temporal's DisambiguatePossibleEpochNanoseconds.
func (z *Zone) resolveSlow(w int64, d Disambiguation) slowResult {
	wi := z.wallInfo(w)
	r := slowResult{wi: wi}
	switch {
	case wi.n == 1:
		r.inst, r.unique = wi.first, true
	case wi.n > 1:
		switch d {
		case Reject:
			r.kind = kindOverlap
		case Later:
			r.inst = wi.last
		default:
			r.inst = wi.first
		}
	default:
		r.gap = true
		if d == Reject {
			r.kind = kindGap
			break
		}
		g := z.periodAt(w+86400).off - z.periodAt(w-86400).off
		if d == Earlier {
			r.inst = wi.gapT // only if tzdata broke Temporal's assertion
			if e := z.wallInfo(w - g); e.n > 0 {
				r.inst = e.first
			}
		} else {
			r.inst = wi.gapT
			if l := z.wallInfo(w + g); l.n > 0 {
				r.inst = l.last
			}
		}
	}
	return r
}

func (z *Zone) resolveError(w int64, ns int, r slowResult) *ResolveError {
	kind := "gap"
	if r.kind == kindOverlap {
		kind = "overlap"
	}
	return &ResolveError{Local: localFromWall(w, ns), Zone: z.id, Kind: kind, DST: r.wi.dst}
}

// gapFloor is the earliest instant that Earlier gives a wall time in the gap
// at transition t from offset before to offset after.
func (z *Zone) gapFloor(t, before, after int64) int64 {
	f := t - (after - before)
	f = min(f, z.resolveSlow(t+before, Earlier).inst)
	return min(f, z.resolveSlow(t+after-1, Earlier).inst)
}

// floorFrom is the least gapFloor of the gaps at transitions in
// [t0, t0+window], or farFuture.
func (z *Zone) floorFrom(t0 int64) int64 {
	f := int64(farFuture)
	if t0 >= farFuture {
		return f
	}
	for q := z.periodAt(t0 - 1); q.end < farFuture && q.end <= t0+window; {
		next := z.periodAt(q.end)
		if next.off > q.off {
			f = min(f, z.gapFloor(next.start, q.off, next.off))
		}
		q = next
	}
	return f
}

// resolver resolves wall seconds for one iterator (one goroutine): it keeps
// the current period so that most calls cost two comparisons and a
// subtraction.
type resolver struct {
	z       *Zone
	p       *period
	earlier bool // keep the Earlier floors: d is Earlier
}

func newResolver(z *Zone, d Disambiguation) *resolver {
	return &resolver{z: z, p: &period{lo: 1, hi: 0}, earlier: d == Earlier}
}

// resolve returns w's instant (the sort key of a rejected w: the instant
// where its gap ends, or its earlier instant), its kind, and lb, a lower
// bound on the instant of every wall time from w on. lb is below key only
// when a wall time after w can resolve before w: with Earlier before a gap,
// or with any other choice inside one.
func (r *resolver) resolve(w int64, d Disambiguation) (key, lb int64, kind uint8) {
	if p := r.p; w >= p.lo && w < p.hi {
		key = w - p.off
		if d == Earlier && p.floor < key {
			return key, p.floor, kindOK
		}
		return key, key, kindOK
	}
	s := r.z.resolveSlow(w, d)
	switch {
	case s.unique:
		r.p = r.z.cachedPeriodAt(s.inst, r.earlier)
		key, lb = s.inst, s.inst
		if d == Earlier {
			lb = min(lb, r.p.floor)
		}
	case s.gap && d == Earlier:
		key, lb = s.inst, min(s.inst, r.z.floorFrom(s.wi.gapT+1))
	case s.gap && d == Reject:
		key, lb = s.wi.gapT, s.wi.gapT
	case s.gap:
		key, lb = s.inst, s.wi.gapT
	case d == Reject: // overlap
		key, lb = s.wi.first, s.wi.first
	default: // overlap
		key, lb = s.inst, s.inst
		if d == Earlier {
			lb = min(lb, r.z.floorFrom(s.inst+1))
		}
	}
	return key, lb, s.kind
}

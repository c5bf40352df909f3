package temporal

import (
	"math"
	"sort"
	"time"

	"github.com/teambition/rrule-go"
)

// RecurrenceIterator walks a set's occurrences lazily, in instant order, for
// schedulers. It belongs to one goroutine. Each step costs the rule's next
// wall time plus, within one offset period, a subtraction; simple rules
// (FREQ and INTERVAL, no BY* part) are exact arithmetic and never call
// rrule-go.
//
// With Earlier, a local time in a gap can resolve before the local time
// preceding it; the iterator holds back the few occurrences that such a gap
// could precede (at most the gap's length of them) so that output stays
// sorted.
type RecurrenceIterator struct {
	res     *resolver
	d       Disambiguation
	zone    string
	incl    merger // RDATEs (with DTSTART) and RRULEs
	excl    merger // EXDATEs and EXRULEs
	buf     []item // min-heap on (key, wall)
	lb      int64  // no wall from the last one pulled resolves below lb
	drained bool   // incl is exhausted
	done    bool   // nothing more, not even errors
	seek    int64  // drop keys below this (Unix seconds)
	last    int64  // key of the last instant returned
	hasLast bool
	pending error // a set that cannot be expanded in this zone
	halt    halt
}

// halt is an expansion's way out: rrule-go may step through many
// candidates that do not match (every second of a day, for a SECONDLY rule
// with BYHOUR) before it yields one, so its source asks between yields
// whether to go on. Once stop says no, the sources end and the expansion
// reports ErrStopped.
type halt struct {
	stop    func() bool // nil: never stop
	n       int         // checks since stop was last called
	stopped bool
}

// haltEvery is how many checks pass between two calls of stop: a call may
// cost more than a cheap step.
const haltEvery = 8

// check reports whether the expansion must stop.
func (h *halt) check() bool {
	if h.stop == nil || h.stopped {
		return h.stopped
	}
	if h.n++; h.n < haltEvery {
		return false
	}
	h.n = 0
	h.stopped = h.stop()
	return h.stopped
}

// item is one included wall time and its resolution.
type item struct {
	key  int64 // the instant (Unix seconds); for a rejected wall, its place
	wall int64
	kind uint8
}

// Iterator returns a lazy iterator over the set's occurrences in zone z (not
// nil) with disambiguation d. Unlike Occurrences it needs no bound: it
// simply goes on.
func (rs *RecurrenceSet) Iterator(z *Zone, d Disambiguation) *RecurrenceIterator {
	it := &RecurrenceIterator{res: newResolver(z, d), d: d, zone: z.id, seek: math.MinInt64, lb: math.MinInt64}
	if !d.valid() {
		it.pending = &RecurrenceError{Op: "occurrences", Field: "disambiguation", Value: d.String(), Reason: "want Reject, Compatible, Earlier or Later"}
	}
	// A UTC UNTIL compares instants; Reject has none for a skipped or
	// repeated wall, so such walls are placed as Compatible would.
	untilD := d
	if untilD == Reject {
		untilD = Compatible
	}
	var start int64
	if len(rs.rules) > 0 {
		start, _, _ = it.res.resolve(rs.start, untilD)
	}
	it.incl.add(&sliceSource{walls: rs.rdates})
	for _, r := range rs.rules {
		if r.until.utc && r.until.secs < start {
			it.pending = &RecurrenceError{Op: "occurrences", Field: "rrule", Value: r.text,
				Reason: "UNTIL " + r.until.text + " is before DTSTART " + rs.dtstart.String() + " in " + z.id + ": the rule would add no occurrence"}
		}
		it.incl.add(rs.source(r, true, it.res, untilD, &it.halt))
	}
	it.excl.add(&sliceSource{walls: rs.exdates})
	for _, r := range rs.exrules {
		it.excl.add(rs.source(r, false, it.res, untilD, &it.halt))
	}
	return it
}

// Seek skips the occurrences before t. Local times skipped this way are
// never resolved as errors. Seeking backwards does nothing.
func (it *RecurrenceIterator) Seek(t Instant) {
	s, ns := floorDiv(t.ns, 1e9)
	if ns > 0 {
		s++
	}
	if s <= it.seek {
		return
	}
	it.seek = s
	// Every wall below s + (the least offset around s) resolves before s,
	// so those are skipped unresolved.
	wb := s + it.minOffsetNear(s)
	it.incl.skipTo(wb)
	it.excl.skipTo(wb)
}

// seekWindow bounds where an instant near s takes its offset from: a gap
// moves a wall time by less than 52 h.
const seekWindow = 120 * 3600

func (it *RecurrenceIterator) minOffsetNear(s int64) int64 {
	z := it.res.z
	p := z.periodAt(s - seekWindow)
	least := p.off
	for p.end < farFuture && p.end <= s+seekWindow {
		p = z.periodAt(p.end)
		least = min(least, p.off)
	}
	return least
}

// Next returns the next occurrence. ok is false once the set is exhausted.
// A local time rejected under Reject gives err, a *ResolveError, with ok
// true: the iterator has moved past it, and Next goes on with the next
// occurrence. An occurrence beyond the Instant range (after 2262) is a
// *ResolveError of Kind "range" and ends the iteration.
func (it *RecurrenceIterator) Next() (at Instant, ok bool, err error) {
	x, ok, err := it.nextItem()
	if err != nil || !ok {
		return Instant{}, err != nil, err
	}
	at, err = it.emit(x)
	return at, true, err
}

// emit turns an item into its instant or its error.
func (it *RecurrenceIterator) emit(x item) (Instant, error) {
	if x.kind != kindOK {
		r := it.res.z.resolveSlow(x.wall, Reject)
		return Instant{}, it.res.z.resolveError(x.wall, 0, r)
	}
	ns, ok := secondsToNanos(x.key, 0)
	if !ok {
		if x.key > 0 {
			it.done = true // keys only grow: all later ones are out of range too
		}
		return Instant{}, &ResolveError{Local: localFromWall(x.wall, 0), Zone: it.zone, Kind: "range"}
	}
	return Instant{ns}, nil
}

// nextItem returns the next item in (key, wall) order that survives Seek
// and the merging of equal instants.
func (it *RecurrenceIterator) nextItem() (item, bool, error) {
	if it.pending != nil {
		err := it.pending
		it.pending, it.done = nil, true
		return item{}, false, err
	}
	for !it.done {
		if len(it.buf) > 0 && (it.drained || it.buf[0].key <= it.lb) {
			if x := it.pop(); it.keep(x) {
				return x, true, nil
			}
			continue
		}
		if it.drained {
			break
		}
		w, ok := it.incl.next()
		for ok && it.excl.contains(w) {
			w, ok = it.incl.next()
		}
		if !ok {
			it.drained = true
			continue
		}
		key, lb, kind := it.res.resolve(w, it.d)
		it.lb = lb
		x := item{key: key, wall: w, kind: kind}
		if len(it.buf) == 0 && key <= lb {
			if it.keep(x) {
				return x, true, nil
			}
			continue
		}
		it.push(x)
	}
	it.done = true
	return item{}, false, nil
}

func (it *RecurrenceIterator) keep(x item) bool {
	if x.key < it.seek {
		return false
	}
	if x.kind == kindOK {
		if it.hasLast && x.key == it.last {
			return false // two local times, one instant: one occurrence
		}
		it.last, it.hasLast = x.key, true
	}
	return true
}

func (a item) less(b item) bool { return a.key < b.key || a.key == b.key && a.wall < b.wall }

func (it *RecurrenceIterator) push(x item) {
	h := append(it.buf, x)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	it.buf = h
}

func (it *RecurrenceIterator) pop() item {
	h := it.buf
	x := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].less(h[c]) {
			c++
		}
		if !h[c].less(h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	it.buf = h
	return x
}

// wallSource yields strictly increasing wall seconds.
type wallSource interface {
	next() (int64, bool)
	// skipTo lets next skip walls below w where it can do so cheaply; the
	// merger discards any it still returns.
	skipTo(w int64)
}

// exhausted marks a finished head: no wall reaches it.
const exhausted = math.MaxInt64

// merger is a k-way merge of wall sources (k is small: a linear scan beats
// a heap), yielding each wall once.
type merger struct {
	srcs  []wallSource
	heads []int64
}

func (m *merger) add(s wallSource) {
	m.srcs = append(m.srcs, s)
	m.heads = append(m.heads, pull(s))
}

func pull(s wallSource) int64 {
	if w, ok := s.next(); ok {
		return w
	}
	return exhausted
}

func (m *merger) next() (int64, bool) {
	if len(m.heads) == 1 { // the common case: one rule left
		w := m.heads[0]
		if w == exhausted {
			return 0, false
		}
		m.heads[0] = pull(m.srcs[0])
		return w, true
	}
	least := int64(exhausted)
	for _, h := range m.heads {
		least = min(least, h)
	}
	if least == exhausted {
		return 0, false
	}
	for i := 0; i < len(m.heads); i++ {
		if m.heads[i] == least {
			if m.heads[i] = pull(m.srcs[i]); m.heads[i] == exhausted && len(m.heads) > 1 {
				m.drop(i)
				i--
			}
		}
	}
	return least, true
}

// drop removes finished source i, so that later steps do not scan it.
func (m *merger) drop(i int) {
	n := len(m.heads) - 1
	m.heads[i], m.srcs[i] = m.heads[n], m.srcs[n]
	m.heads, m.srcs = m.heads[:n], m.srcs[:n]
}

func (m *merger) skipTo(w int64) {
	for i := range m.heads {
		if m.heads[i] < w {
			m.srcs[i].skipTo(w)
			for m.heads[i] < w {
				m.heads[i] = pull(m.srcs[i])
			}
		}
	}
}

// contains reports whether some source yields w; walls must be asked in
// increasing order.
func (m *merger) contains(w int64) bool {
	found := false
	for i := 0; i < len(m.heads); i++ {
		for m.heads[i] < w {
			m.heads[i] = pull(m.srcs[i])
		}
		if m.heads[i] == exhausted {
			m.drop(i)
			i--
			continue
		}
		found = found || m.heads[i] == w
	}
	return found
}

type sliceSource struct {
	walls []int64
	i     int
}

func (s *sliceSource) next() (int64, bool) {
	if s.i >= len(s.walls) {
		return 0, false
	}
	s.i++
	return s.walls[s.i-1], true
}

func (s *sliceSource) skipTo(w int64) {
	s.i = max(s.i, sort.Search(len(s.walls), func(i int) bool { return s.walls[i] >= w }))
}

// ruleEnd applies a rule's COUNT and UNTIL to its walls.
type ruleEnd struct {
	counted bool
	left    int64 // occurrences the rule may still give, if counted (COUNT)
	until   untilSpec
	res     *resolver
	d       Disambiguation
}

// admit reports whether w is an occurrence (counting it) and whether the
// rule has ended.
func (e *ruleEnd) admit(w int64) (ok, stop bool) {
	if e.counted && e.left <= 0 {
		return false, true
	}
	if e.until.set {
		if !e.until.utc {
			if w > e.until.secs {
				return false, true
			}
		} else {
			// Instants are within ±26 h of walls: far beyond, stop; near, resolve.
			if w > e.until.secs+window {
				return false, true
			}
			if key, _, _ := e.res.resolve(w, e.d); key > e.until.secs {
				return false, false
			}
		}
	}
	e.left--
	return true, false
}

// source builds the wall source of one rule. forced: DTSTART is the rule's
// first occurrence (RRULE), and the source yields the walls after it;
// otherwise (EXRULE) it yields the rule's matches only, DTSTART included if
// it matches. h is the iterator's halt, which an rrule-go source asks.
func (rs *RecurrenceSet) source(r *rule, forced bool, res *resolver, d Disambiguation, h *halt) wallSource {
	end := ruleEnd{counted: r.count > 0, left: int64(r.count), until: r.until, res: res, d: d}
	first := int64(0)
	if forced {
		end.left-- // DTSTART was the first, yielded by the RDATE source
		first = 1
	}
	if r.simple {
		switch r.freq {
		case rrule.MONTHLY, rrule.YEARLY:
			step := int64(r.interval)
			if r.freq == rrule.YEARLY {
				step *= 12
			}
			ds := rs.dtstart
			return &calSource{end: end, month0: int64(ds.Year)*12 + int64(ds.Month) - 1, step: step,
				k: first, day: ds.Day, tod: rs.start - daysFromCivil(int64(ds.Year), int(ds.Month), ds.Day)*86400}
		default:
			unit := [...]int64{rrule.WEEKLY: 7 * 86400, rrule.DAILY: 86400, rrule.HOURLY: 3600, rrule.MINUTELY: 60, rrule.SECONDLY: 1}[r.freq]
			return &stepSource{end: end, start: rs.start, step: unit * int64(r.interval), k: first}
		}
	}
	after := rs.start - 1 // rrule-go yields nothing before DTSTART
	if forced {
		after = rs.start
	}
	if s := newSubDailySource(r, rs.start, end, after, h); s != nil {
		return s
	}
	opt := r.opt
	ds := rs.dtstart
	opt.Dtstart = time.Date(ds.Year, ds.Month, ds.Day, ds.Hour, ds.Minute, ds.Second, 0, time.UTC)
	rr, err := rrule.NewRRule(opt)
	if err != nil {
		// parseRule checked every bound rrule-go checks.
		panic("temporal: rrule-go refused a validated rule: " + err.Error())
	}
	src := &rruleSource{end: end, gen: rr.Iterator(), halt: h}
	if forced {
		src.after = rs.start
	} else {
		src.after = math.MinInt64
	}
	return src
}

// stepSource yields start + k·step: the exact walls of a FREQ of fixed
// length (SECONDLY to WEEKLY) without BY* parts.
type stepSource struct {
	end         ruleEnd
	start, step int64
	k           int64
}

func (s *stepSource) next() (int64, bool) {
	for {
		w := s.start + s.k*s.step
		ok, stop := s.end.admit(w)
		if stop {
			return 0, false
		}
		s.k++
		if ok {
			return w, true
		}
	}
}

func (s *stepSource) skipTo(w int64) {
	k := (w - s.start + s.step - 1) / s.step
	if k <= s.k {
		return
	}
	s.end.left -= k - s.k // the skipped walls count toward COUNT
	s.k = k
}

// calSource yields DTSTART's day and time every step months, skipping months
// without that day (RFC 5545: invalid dates are ignored, not counted): a
// MONTHLY or YEARLY rule without BY* parts.
type calSource struct {
	end    ruleEnd
	month0 int64 // DTSTART's year*12 + month-1
	step   int64
	k      int64
	day    int
	tod    int64 // seconds into the day
}

func (s *calSource) next() (int64, bool) {
	for {
		y, m := floorDiv(s.month0+s.k*s.step, 12)
		if y > 9999 {
			return 0, false
		}
		s.k++
		if s.day > daysIn(int(y), time.Month(m+1)) {
			continue
		}
		w := daysFromCivil(y, int(m+1), s.day)*86400 + s.tod
		ok, stop := s.end.admit(w)
		if stop {
			return 0, false
		}
		if ok {
			return w, true
		}
	}
}

func (s *calSource) skipTo(w int64) {
	// Only when every step is an occurrence (or nothing is counted) can
	// steps be skipped without counting them one by one.
	if s.day > 28 && s.end.counted {
		return
	}
	days, _ := floorDiv(w, 86400)
	y, m, _ := civilFromDays(days)
	k, _ := floorDiv(y*12+int64(m)-1-s.month0, s.step)
	if k <= s.k {
		return
	}
	s.end.left -= k - s.k
	s.k = k
}

// rruleSource yields rrule-go's walls (it runs in UTC as if the wall clock
// were UTC), from its lazy Iterator: After and Between would re-expand
// from DTSTART on every call.
type rruleSource struct {
	end   ruleEnd
	gen   rrule.Next
	after int64 // yield only walls after this (DTSTART, when forced; then the last one)
	halt  *halt
}

func (s *rruleSource) next() (int64, bool) {
	for {
		if s.halt.check() {
			return 0, false
		}
		t, ok := s.gen()
		if !ok {
			return 0, false
		}
		w := t.Unix()
		if w <= s.after {
			continue
		}
		s.after = w // strictly increasing, whatever rrule-go yields
		ok, stop := s.end.admit(w)
		if stop {
			return 0, false
		}
		if ok {
			return w, true
		}
	}
}

func (s *rruleSource) skipTo(int64) {}

package temporal

import (
	"archive/zip"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metronome-rt/metronome/internal/clip"
	"github.com/metronome-rt/metronome/internal/nearest"
)

//go:generate sh ../scripts/update-tzdata.sh

// TZDataVersion is the IANA tz release embedded in the binary
// (tzdata/zoneinfo.zip, copied from the Go toolchain by
// scripts/update-tzdata.sh).
const TZDataVersion = "2025c"

// The toolchain's zoneinfo.zip, stored uncompressed. Zones are read from it
// with time.LoadLocationFromTZData: time.LoadLocation would consult
// $ZONEINFO and /usr/share/zoneinfo first, and answers would depend on the
// machine.
//
//go:embed tzdata/zoneinfo.zip
var zoneinfoZip string

// ErrUnknownZone is wrapped by every *ZoneError.
var ErrUnknownZone = errors.New("unknown zone")

// ZoneError reports a zone id that names no zone of the embedded database.
type ZoneError struct {
	ID     string
	Reason string
}

func (e *ZoneError) Error() string { return fmt.Sprintf("zone %s: %s", clip.Quote(e.ID), e.Reason) }

// Unwrap returns ErrUnknownZone.
func (e *ZoneError) Unwrap() error { return ErrUnknownZone }

// Zone is an IANA time zone from the embedded database. It is immutable and
// safe for concurrent use.
type Zone struct {
	id  string
	loc *time.Location
	// last is the period Resolve last hit, and periods every period looked
	// up so far (sorted, disjoint): read-mostly memos that change no answer.
	last    atomic.Pointer[period]
	periods atomic.Pointer[[]period]
	mu      sync.Mutex // serialises writers of periods
}

type tzIndex struct {
	files  map[string]*zip.File
	folded map[string]string // lower-case id → id, for suggestions
}

var tzdb = sync.OnceValue(func() tzIndex {
	r, err := zip.NewReader(strings.NewReader(zoneinfoZip), int64(len(zoneinfoZip)))
	if err != nil {
		// The zip is embedded at build time: it cannot fail at run time.
		panic("temporal: embedded zoneinfo.zip: " + err.Error())
	}
	idx := tzIndex{files: make(map[string]*zip.File, len(r.File)), folded: make(map[string]string, len(r.File))}
	for _, f := range r.File {
		idx.files[f.Name] = f
		idx.folded[strings.ToLower(f.Name)] = f.Name
	}
	return idx
})

// ids returns the database's zone ids, sorted.
func (idx tzIndex) ids() []string {
	ids := make([]string, 0, len(idx.files))
	for id := range idx.files {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// zones memoises LoadZone: at most one *Zone per id of the database.
var zones sync.Map

// LoadZone returns the zone named by the IANA id, such as "Europe/Paris",
// "UTC" or "Etc/GMT+5". "" and "Local" are refused: there is no host zone.
// Ids are case-sensitive. Loaded zones are cached.
func LoadZone(id string) (*Zone, error) {
	switch id {
	case "":
		return nil, &ZoneError{ID: id, Reason: `a zone id is required, an IANA name such as "Europe/Paris"; there is no host-local default`}
	case "Local":
		return nil, &ZoneError{ID: id, Reason: `the host's local zone is not available; name an IANA zone such as "Europe/Paris"`}
	}
	if z, ok := zones.Load(id); ok {
		return z.(*Zone), nil
	}
	idx := tzdb()
	f, ok := idx.files[id]
	if !ok {
		reason := "unknown IANA zone id (tzdata " + TZDataVersion + ")"
		if alt, ok := idx.folded[strings.ToLower(id)]; ok {
			reason += fmt.Sprintf("; ids are case-sensitive: did you mean %q?", alt)
		} else if near := nearest.Names(id, idx.ids(), 3); len(near) > 0 {
			q := make([]string, len(near))
			for i, n := range near {
				q[i] = strconv.Quote(n)
			}
			reason += "; did you mean " + strings.Join(q, " or ") + "?"
		}
		return nil, &ZoneError{ID: id, Reason: reason}
	}
	data, err := readZipFile(f)
	if err != nil {
		return nil, &ZoneError{ID: id, Reason: "reading the embedded database: " + err.Error()}
	}
	loc, err := time.LoadLocationFromTZData(id, data)
	if err != nil {
		return nil, &ZoneError{ID: id, Reason: "reading the embedded database: " + err.Error()}
	}
	z, _ := zones.LoadOrStore(id, &Zone{id: id, loc: loc})
	return z.(*Zone), nil
}

func readZipFile(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// ID returns the IANA id the zone was loaded by.
func (z *Zone) ID() string { return z.id }

// String returns the zone's id.
func (z *Zone) String() string { return z.id }

// Location returns the zone as a *time.Location (built from the embedded
// database, never from the machine's).
func (z *Zone) Location() *time.Location { return z.loc }

// OffsetAt returns the zone's UTC offset in seconds at t (east positive).
func (z *Zone) OffsetAt(t Instant) (offsetSeconds int) {
	s, _ := floorDiv(t.ns, 1e9)
	if p := z.last.Load(); p != nil && s >= p.start && s < p.end {
		return int(p.off)
	}
	return int(z.periodAt(s).off)
}

// LocalOf returns the wall-clock reading of t in the zone.
func (z *Zone) LocalOf(t Instant) LocalDateTime {
	s, ns := floorDiv(t.ns, 1e9)
	return localFromWall(s+int64(z.OffsetAt(t)), int(ns))
}

// Bounds of the time.Location lookups, in Unix seconds: far beyond any wall
// time of years 1..9999, yet safe to add offsets to.
const (
	farPast   = math.MinInt64 / 4
	farFuture = math.MaxInt64 / 4
	// window bounds how far from a transition its effects reach: offsets
	// stay within ±26 h (RFC 8536), so a gap or overlap moves a wall time by
	// less than 52 h.
	window = 60 * 3600
)

// period is a stretch [start, end) of Unix seconds with one UTC offset.
type period struct {
	start, end int64
	off        int64
	dst        bool
	// Only the cached periods fill these: walls in [lo, hi) resolve to this
	// period alone (w - off), and floor is the earliest instant that a wall
	// in a gap starting within window after end resolves to with Earlier.
	lo, hi int64
	floor  int64
}

// periodAt returns the period holding Unix second s: the longest stretch
// around s with one offset and one isDST.
//
// time.Time.ZoneBounds is only a hint here. Past a zone's last listed
// transition Go computes periods from the TZ rule one year at a time: it
// reports year boundaries that are no transition and, in leap years, ends
// the year a day early (a lookup at that "end" lands in the same period).
// Neighbours with the same offset are therefore merged, and a bound that
// does not move is pushed on by a day.
func (z *Zone) periodAt(s int64) period {
	if ps := z.periods.Load(); ps != nil {
		if i := periodIndex(*ps, s); i < len(*ps) && (*ps)[i].start <= s {
			return (*ps)[i]
		}
	}
	p := z.computePeriod(s)
	if s < math.MinInt64/int64(1e9) || s > math.MaxInt64/int64(1e9) {
		return p // beyond the Instant range: not worth keeping
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	var ps []period
	if old := z.periods.Load(); old != nil {
		ps = *old
	}
	i := periodIndex(ps, s)
	if i < len(ps) && ps[i].start <= s {
		return ps[i] // another goroutine got there first
	}
	ps = slices.Insert(slices.Clip(ps), i, p)
	z.periods.Store(&ps)
	return p
}

// periodIndex returns the index of the first period of ps ending after s.
func periodIndex(ps []period, s int64) int {
	lo, hi := 0, len(ps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ps[m].end > s {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

func (z *Zone) computePeriod(s int64) period {
	p := z.rawPeriod(s)
	end := max(p.end, s+1)
	for end < farFuture {
		q := z.rawPeriod(end)
		if q.off != p.off || q.dst != p.dst {
			break
		}
		end = max(q.end, end+86400)
	}
	start := p.start
	for start > farPast {
		q := z.rawPeriod(start - 1)
		if q.off != p.off || q.dst != p.dst {
			break
		}
		start = min(q.start, start-86400)
	}
	p.start, p.end = start, min(end, farFuture)
	return p
}

// rawPeriod is Go's own answer for Unix second s.
func (z *Zone) rawPeriod(s int64) period {
	t := time.Unix(s, 0).In(z.loc)
	_, off := t.Zone()
	st, en := t.ZoneBounds()
	p := period{start: farPast, end: farFuture, off: int64(off), dst: t.IsDST()}
	if !st.IsZero() {
		p.start = st.Unix()
	}
	if !en.IsZero() {
		p.end = en.Unix()
	}
	return p
}

// cachedPeriodAt returns the period holding instant s with the wall range
// that maps to it alone and, if floor, the Earlier floor of the next gaps
// (otherwise farFuture).
func (z *Zone) cachedPeriodAt(s int64, floor bool) *period {
	p := z.periodAt(s)
	p.lo, p.hi = p.start+p.off, p.end+p.off
	// Walls of neighbouring periods within the window may reach into ours
	// (an overlap); none further away can.
	for q := p; q.start > farPast && q.start > p.start-window; {
		q = z.periodAt(q.start - 1)
		p.lo = max(p.lo, q.end+q.off)
	}
	for q := p; q.end < farFuture && q.end < p.end+window; {
		q = z.periodAt(q.end)
		p.hi = min(p.hi, q.start+q.off)
	}
	p.floor = farFuture
	if floor {
		p.floor = z.floorFrom(p.end)
	}
	return &p
}

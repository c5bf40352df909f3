package temporal

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestParseDisambiguation(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Disambiguation
	}{{"reject", Reject}, {"compatible", Compatible}, {"earlier", Earlier}, {"later", Later}} {
		got, err := ParseDisambiguation(c.in)
		if err != nil || got != c.want || got.String() != c.in {
			t.Errorf("ParseDisambiguation(%q) = %v, %v", c.in, got, err)
		}
	}
	var zero Disambiguation
	if zero != Reject {
		t.Errorf("zero value is %v, want reject", zero)
	}
	for _, bad := range []string{"", "Reject", "LATER", "nearest"} {
		_, err := ParseDisambiguation(bad)
		want := fmt.Sprintf(`disambiguation %q: want "reject", "compatible", "earlier" or "later"`, bad)
		if err == nil || err.Error() != want {
			t.Errorf("ParseDisambiguation(%q) error = %v, want %s", bad, err, want)
		}
	}
	if s := Disambiguation(7).String(); s != "Disambiguation(7)" {
		t.Errorf("String of 7 = %q", s)
	}
}

// resolveStep resolves one local time in one zone; want is the instant in
// RFC 3339, or wantErr the error text.
type resolveStep struct {
	zone, local string
	d           Disambiguation
	want        string
	wantErr     string
}

// four expands one local time to a step per disambiguation.
func four(zone, local, reject, compatible, earlier, later string) []resolveStep {
	return []resolveStep{
		{zone: zone, local: local, d: Reject, wantErr: reject},
		{zone: zone, local: local, d: Compatible, want: compatible},
		{zone: zone, local: local, d: Earlier, want: earlier},
		{zone: zone, local: local, d: Later, want: later},
	}
}

func TestResolveGapsAndOverlaps(t *testing.T) {
	steps := slices.Concat(
		// America/New_York: 2024-03-10 02:00 EST → 03:00 EDT; 2024-11-03 02:00 EDT → 01:00 EST.
		four("America/New_York", "2024-03-10T02:30:00",
			"local time 2024-03-10T02:30:00 does not exist in America/New_York (skipped by a DST gap)",
			"2024-03-10T07:30:00Z", "2024-03-10T06:30:00Z", "2024-03-10T07:30:00Z"),
		four("America/New_York", "2024-11-03T01:30:00",
			"local time 2024-11-03T01:30:00 is ambiguous in America/New_York (repeated by a DST overlap)",
			"2024-11-03T05:30:00Z", "2024-11-03T05:30:00Z", "2024-11-03T06:30:00Z"),
		// Europe/Paris: 2024-03-31 02:00 CET → 03:00 CEST; 2024-10-27 03:00 CEST → 02:00 CET.
		four("Europe/Paris", "2024-03-31T02:30:00",
			"local time 2024-03-31T02:30:00 does not exist in Europe/Paris (skipped by a DST gap)",
			"2024-03-31T01:30:00Z", "2024-03-31T00:30:00Z", "2024-03-31T01:30:00Z"),
		four("Europe/Paris", "2024-10-27T02:30:00",
			"local time 2024-10-27T02:30:00 is ambiguous in Europe/Paris (repeated by a DST overlap)",
			"2024-10-27T00:30:00Z", "2024-10-27T00:30:00Z", "2024-10-27T01:30:00Z"),
		// America/Sao_Paulo (southern hemisphere, transitions at midnight):
		// 2018-11-04 00:00 −03 → 01:00 −02; 2019-02-17 00:00 −02 → 2019-02-16 23:00 −03.
		four("America/Sao_Paulo", "2018-11-04T00:30:00",
			"local time 2018-11-04T00:30:00 does not exist in America/Sao_Paulo (skipped by a DST gap)",
			"2018-11-04T03:30:00Z", "2018-11-04T02:30:00Z", "2018-11-04T03:30:00Z"),
		four("America/Sao_Paulo", "2019-02-16T23:30:00",
			"local time 2019-02-16T23:30:00 is ambiguous in America/Sao_Paulo (repeated by a DST overlap)",
			"2019-02-17T01:30:00Z", "2019-02-17T01:30:00Z", "2019-02-17T02:30:00Z"),
		// Australia/Sydney: 2024-10-06 02:00 +10 → 03:00 +11; 2024-04-07 03:00 +11 → 02:00 +10.
		four("Australia/Sydney", "2024-10-06T02:30:00",
			"local time 2024-10-06T02:30:00 does not exist in Australia/Sydney (skipped by a DST gap)",
			"2024-10-05T16:30:00Z", "2024-10-05T15:30:00Z", "2024-10-05T16:30:00Z"),
		four("Australia/Sydney", "2024-04-07T02:30:00",
			"local time 2024-04-07T02:30:00 is ambiguous in Australia/Sydney (repeated by a DST overlap)",
			"2024-04-06T15:30:00Z", "2024-04-06T15:30:00Z", "2024-04-06T16:30:00Z"),
		// Australia/Lord_Howe moves by 30 minutes: 2024-10-06 02:00 +10:30 → 02:30 +11;
		// 2024-04-07 02:00 +11 → 01:30 +10:30.
		four("Australia/Lord_Howe", "2024-10-06T02:15:00",
			"local time 2024-10-06T02:15:00 does not exist in Australia/Lord_Howe (skipped by a DST gap)",
			"2024-10-05T15:45:00Z", "2024-10-05T15:15:00Z", "2024-10-05T15:45:00Z"),
		four("Australia/Lord_Howe", "2024-04-07T01:45:00",
			"local time 2024-04-07T01:45:00 is ambiguous in Australia/Lord_Howe (repeated by a DST overlap)",
			"2024-04-06T14:45:00Z", "2024-04-06T14:45:00Z", "2024-04-06T15:15:00Z"),
		// Pacific/Apia skipped 2011-12-30 whole: 2011-12-29 24:00 −10 → 2011-12-31 00:00 +14.
		// The gap is 24 h, so Earlier lands a day back and Later a day on.
		four("Pacific/Apia", "2011-12-30T12:00:00",
			"local time 2011-12-30T12:00:00 does not exist in Pacific/Apia (skipped by an offset change)",
			"2011-12-30T22:00:00Z", "2011-12-29T22:00:00Z", "2011-12-30T22:00:00Z"),
		four("Pacific/Apia", "2011-12-30T00:00:00",
			"local time 2011-12-30T00:00:00 does not exist in Pacific/Apia (skipped by an offset change)",
			"2011-12-30T10:00:00Z", "2011-12-29T10:00:00Z", "2011-12-30T10:00:00Z"),
		// Apia's first DST ended 2012-04-01 04:00 +14 → 03:00 +13.
		four("Pacific/Apia", "2012-04-01T03:30:00",
			"local time 2012-04-01T03:30:00 is ambiguous in Pacific/Apia (repeated by a DST overlap)",
			"2012-03-31T13:30:00Z", "2012-03-31T13:30:00Z", "2012-03-31T14:30:00Z"),
		[]resolveStep{
			// The edges of the New York gap and overlap, to the nanosecond.
			{zone: "America/New_York", local: "2024-03-10T01:59:59.999999999", want: "2024-03-10T06:59:59.999999999Z"},
			{zone: "America/New_York", local: "2024-03-10T02:00:00", wantErr: "local time 2024-03-10T02:00:00 does not exist in America/New_York (skipped by a DST gap)"},
			{zone: "America/New_York", local: "2024-03-10T02:59:59.999999999", wantErr: "local time 2024-03-10T02:59:59.999999999 does not exist in America/New_York (skipped by a DST gap)"},
			{zone: "America/New_York", local: "2024-03-10T02:59:59.999999999", d: Compatible, want: "2024-03-10T07:59:59.999999999Z"},
			{zone: "America/New_York", local: "2024-03-10T03:00:00", want: "2024-03-10T07:00:00Z"},
			{zone: "America/New_York", local: "2024-11-03T00:59:59.999999999", want: "2024-11-03T04:59:59.999999999Z"},
			{zone: "America/New_York", local: "2024-11-03T01:00:00", wantErr: "local time 2024-11-03T01:00:00 is ambiguous in America/New_York (repeated by a DST overlap)"},
			{zone: "America/New_York", local: "2024-11-03T01:59:59.999999999", d: Later, want: "2024-11-03T06:59:59.999999999Z"},
			{zone: "America/New_York", local: "2024-11-03T02:00:00", want: "2024-11-03T07:00:00Z"},
			// Apia: the last second before the skipped day and the first after.
			{zone: "Pacific/Apia", local: "2011-12-29T23:59:59", want: "2011-12-30T09:59:59Z"},
			{zone: "Pacific/Apia", local: "2011-12-31T00:00:00", want: "2011-12-30T10:00:00Z"},
			// Zones without transitions.
			{zone: "UTC", local: "2024-03-10T02:30:00", want: "2024-03-10T02:30:00Z"},
			{zone: "Etc/GMT+5", local: "2024-03-10T02:30:00", want: "2024-03-10T07:30:00Z"},
			// Far past the zone file's last listed transition (Go's TZ-rule region).
			{zone: "America/New_York", local: "2200-03-09T02:30:00", wantErr: "local time 2200-03-09T02:30:00 does not exist in America/New_York (skipped by a DST gap)"},
			{zone: "America/New_York", local: "2200-03-09T02:30:00", d: Earlier, want: "2200-03-09T06:30:00Z"},
			{zone: "America/New_York", local: "2200-12-31T12:00:00", want: "2200-12-31T17:00:00Z"},
			// Outside the Instant range.
			{zone: "UTC", local: "2262-04-12T00:00:00", wantErr: "local time 2262-04-12T00:00:00 in UTC is outside the Instant range (1677-09-21 to 2262-04-11)"},
			{zone: "UTC", local: "1677-09-21T00:12:43.145224192", want: "1677-09-21T00:12:43.145224192Z"},
			{zone: "UTC", local: "1677-09-21T00:12:43.145224191", wantErr: "local time 1677-09-21T00:12:43.145224191 in UTC is outside the Instant range (1677-09-21 to 2262-04-11)"},
			{zone: "UTC", local: "2262-04-11T23:47:16.854775807", want: "2262-04-11T23:47:16.854775807Z"},
		},
	)
	for _, s := range steps {
		z, err := LoadZone(s.zone)
		if err != nil {
			t.Fatal(err)
		}
		got, err := z.Resolve(mustLocal(t, s.local), s.d)
		name := fmt.Sprintf("%s %s %v", s.zone, s.local, s.d)
		switch {
		case s.wantErr != "":
			if err == nil || err.Error() != s.wantErr {
				t.Errorf("%s: got %v, %v; want error %s", name, got, err, s.wantErr)
			}
		case err != nil:
			t.Errorf("%s: error %v, want %s", name, err, s.want)
		case got.String() != s.want:
			t.Errorf("%s: got %s, want %s", name, got, s.want)
		}
	}
}

func TestResolveErrorTypes(t *testing.T) {
	ny, _ := LoadZone("America/New_York")
	_, err := ny.Resolve(mustLocal(t, "2024-03-10T02:30:00"), Reject)
	var re *ResolveError
	if !errors.As(err, &re) || re.Kind != "gap" || re.Zone != "America/New_York" || !re.DST || !errors.Is(err, ErrGap) {
		t.Errorf("gap error %#v", err)
	}
	_, err = ny.Resolve(mustLocal(t, "2024-11-03T01:30:00"), Reject)
	if !errors.As(err, &re) || re.Kind != "overlap" || !errors.Is(err, ErrOverlap) {
		t.Errorf("overlap error %#v", err)
	}
	utc, _ := LoadZone("UTC")
	_, err = utc.Resolve(mustLocal(t, "9999-12-31T23:59:59"), Compatible)
	if !errors.As(err, &re) || re.Kind != "range" || !errors.Is(err, ErrOverflow) {
		t.Errorf("range error %#v", err)
	}
	_, err = ny.Resolve(LocalDateTime{Year: 2023, Month: 2, Day: 29}, Compatible)
	if want := "local date-time 2023-02-29T00:00:00: day 29 is out of range 1..28 for February 2023"; err == nil || err.Error() != want {
		t.Errorf("Feb 29 2023: %v, want %s", err, want)
	}
	_, err = ny.Resolve(mustLocal(t, "2024-01-01T00:00:00"), Disambiguation(9))
	if want := "disambiguation 9: want Reject, Compatible, Earlier or Later"; err == nil || err.Error() != want {
		t.Errorf("bad disambiguation: %v", err)
	}
}

// possibleBrute is Temporal's GetPossibleEpochNanoseconds computed from Go's
// offset lookups alone: every offset in use within ±27 h, kept if the zone
// really has it at w - offset.
func possibleBrute(z *Zone, w int64) []int64 {
	var out []int64
	seen := map[int64]bool{}
	for k := int64(-27 * 4); k <= 27*4; k++ {
		off := offsetRaw(z, w+k*900)
		if seen[off] {
			continue
		}
		seen[off] = true
		if offsetRaw(z, w-off) == off {
			out = append(out, w-off)
		}
	}
	slices.Sort(out)
	return out
}

// offsetRaw asks Go's time package directly, with no memo.
func offsetRaw(z *Zone, s int64) int64 { return z.rawPeriod(s).off }

// resolveBrute applies DisambiguatePossibleEpochNanoseconds to possibleBrute.
func resolveBrute(z *Zone, w int64, d Disambiguation) (int64, bool) {
	c := possibleBrute(z, w)
	switch {
	case len(c) == 1:
		return c[0], true
	case len(c) > 1 && d == Reject:
		return 0, false
	case len(c) > 1 && d == Later:
		return c[len(c)-1], true
	case len(c) > 1:
		return c[0], true
	case d == Reject:
		return 0, false
	}
	g := offsetRaw(z, w+86400) - offsetRaw(z, w-86400)
	if d == Earlier {
		return possibleBrute(z, w-g)[0], true
	}
	c = possibleBrute(z, w+g)
	return c[len(c)-1], true
}

// Resolve, with its memos, agrees with the brute force everywhere,
// including within a few minutes of every transition.
func TestResolveMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	zones := []string{"America/New_York", "Europe/Paris", "America/Sao_Paulo", "Australia/Sydney",
		"Australia/Lord_Howe", "Pacific/Apia", "Asia/Kathmandu", "America/St_Johns", "Europe/Dublin",
		"Africa/Casablanca", "Pacific/Chatham", "Antarctica/Troll", "America/Caracas", "Asia/Pyongyang"}
	n := 4000
	if testing.Short() {
		n = 500
	}
	for i := 0; i < n; i++ {
		z, _ := LoadZone(zones[rng.IntN(len(zones))])
		var w int64
		if i%2 == 0 {
			// Near a transition: land on one, then wander a little.
			s := rng.Int64N(400*365*86400) - 130*365*86400
			p := z.periodAt(s)
			w = p.end + p.off + rng.Int64N(7200) - 3600
			if p.end >= farFuture {
				w = s
			}
		} else {
			w = rng.Int64N(400*365*86400) - 130*365*86400
		}
		l := localFromWall(w, 0)
		for d := Reject; d <= Later; d++ {
			want, ok := resolveBrute(z, w, d)
			got, err := z.Resolve(l, d)
			if !ok {
				if err == nil {
					t.Fatalf("%s %s %v: got %v, want an error", z.ID(), l, d, got)
				}
				continue
			}
			if err != nil || got.UnixNano() != want*1e9 {
				t.Fatalf("%s %s %v: got %v %v, want %v", z.ID(), l, d, got, err, FromUnixNano(want*1e9))
			}
		}
	}
}

// The iterator's resolver (period memo, lower bounds) agrees with Resolve.
func TestResolverMatchesResolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, id := range []string{"America/New_York", "Pacific/Apia", "Australia/Lord_Howe", "Europe/Paris"} {
		z, _ := LoadZone(id)
		for d := Reject; d <= Later; d++ {
			r := newResolver(z, d)
			w := int64(1262304000) // 2010-01-01
			for w < 1420070400 {   // 2015-01-01
				w += rng.Int64N(6 * 3600)
				key, lb, kind := r.resolve(w, d)
				if lb > key {
					t.Fatalf("%s %v %s: lb %d above key %d", id, d, localFromWall(w, 0), lb, key)
				}
				want, err := z.Resolve(localFromWall(w, 0), d)
				if (err != nil) != (kind != kindOK) || err == nil && want.UnixNano() != key*1e9 {
					t.Fatalf("%s %v %s: resolver %d kind %d, Resolve %v %v", id, d, localFromWall(w, 0), key, kind, want, err)
				}
			}
		}
	}
}

func TestSecondsToNanos(t *testing.T) {
	for _, c := range []struct {
		s    int64
		ns   int
		want int64
		ok   bool
	}{
		{0, 0, 0, true},
		{-1, 999_999_999, -1, true},
		{9223372036, 854775807, 9223372036854775807, true},
		{9223372036, 854775808, 0, false},
		{9223372037, 0, 0, false},
		{-9223372037, 145224192, -9223372036854775808, true},
		{-9223372037, 145224191, 0, false},
		{-9223372038, 999_999_999, 0, false},
	} {
		got, ok := secondsToNanos(c.s, c.ns)
		if got != c.want || ok != c.ok {
			t.Errorf("secondsToNanos(%d, %d) = %d, %v; want %d, %v", c.s, c.ns, got, ok, c.want, c.ok)
		}
	}
}

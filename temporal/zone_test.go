package temporal

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTZDataVersion(t *testing.T) {
	b, err := os.ReadFile("tzdata/VERSION")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != TZDataVersion {
		t.Errorf("tzdata/VERSION is %q but TZDataVersion is %q: run scripts/update-tzdata.sh and update the constant", got, TZDataVersion)
	}
}

func TestLoadZone(t *testing.T) {
	for _, c := range []struct {
		id     string
		at     string
		offset int
	}{
		{"UTC", "2024-07-01T00:00:00Z", 0},
		{"Etc/UTC", "2024-07-01T00:00:00Z", 0},
		{"Etc/GMT+5", "2024-07-01T00:00:00Z", -5 * 3600}, // POSIX sign: GMT+5 is UTC−5
		{"America/New_York", "2024-07-01T00:00:00Z", -4 * 3600},
		{"America/New_York", "2024-01-01T00:00:00Z", -5 * 3600},
		{"Asia/Kathmandu", "2024-01-01T00:00:00Z", 5*3600 + 45*60},
		{"Australia/Lord_Howe", "2024-01-01T00:00:00Z", 11 * 3600},
		{"Australia/Lord_Howe", "2024-07-01T00:00:00Z", 10*3600 + 30*60},
		{"Pacific/Apia", "2011-12-30T09:59:59Z", -10 * 3600},
		{"Pacific/Apia", "2011-12-30T10:00:00Z", 14 * 3600},
	} {
		z, err := LoadZone(c.id)
		if err != nil {
			t.Fatal(err)
		}
		if z.ID() != c.id || z.String() != c.id || z.Location().String() != c.id {
			t.Errorf("%s: ID %q String %q Location %q", c.id, z.ID(), z.String(), z.Location())
		}
		if got := z.OffsetAt(mustInstant(t, c.at)); got != c.offset {
			t.Errorf("%s at %s: offset %d, want %d", c.id, c.at, got, c.offset)
		}
	}
	a, _ := LoadZone("Europe/Paris")
	b, _ := LoadZone("Europe/Paris")
	if a != b {
		t.Error("LoadZone does not reuse loaded zones")
	}
}

func TestLoadZoneErrors(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{"", `zone "": a zone id is required, an IANA name such as "Europe/Paris"; there is no host-local default`},
		{"Local", `zone "Local": the host's local zone is not available; name an IANA zone such as "Europe/Paris"`},
		{"Mars/Olympus", `zone "Mars/Olympus": unknown IANA zone id (tzdata 2025c)`},
		{"america/new_york", `zone "america/new_york": unknown IANA zone id (tzdata 2025c); ids are case-sensitive: did you mean "America/New_York"?`},
		{"Europe/Pariss", `zone "Europe/Pariss": unknown IANA zone id (tzdata 2025c); did you mean "Europe/Paris"?`},
		{"America/NewYork", `zone "America/NewYork": unknown IANA zone id (tzdata 2025c); did you mean "America/New_York"?`},
		{"../../etc/passwd", `zone "../../etc/passwd": unknown IANA zone id (tzdata 2025c)`},
		{"/usr/share/zoneinfo/UTC", `zone "/usr/share/zoneinfo/UTC": unknown IANA zone id (tzdata 2025c)`},
	} {
		z, err := LoadZone(c.id)
		if err == nil || err.Error() != c.want {
			t.Errorf("LoadZone(%q) = %v, %v; want error %s", c.id, z, err, c.want)
			continue
		}
		var ze *ZoneError
		if !errors.As(err, &ze) || ze.ID != c.id || !errors.Is(err, ErrUnknownZone) {
			t.Errorf("LoadZone(%q): error %#v is not a *ZoneError wrapping ErrUnknownZone", c.id, err)
		}
	}
}

// The machine's zone database is never read: a broken $ZONEINFO and TZ
// change nothing.
func TestZoneIgnoresHostDatabase(t *testing.T) {
	t.Setenv("ZONEINFO", "/nonexistent/zoneinfo.zip")
	t.Setenv("TZ", "Pacific/Kiritimati")
	z, err := LoadZone("America/Argentina/Ushuaia") // loaded nowhere else
	if err != nil {
		t.Fatal(err)
	}
	if got := z.OffsetAt(mustInstant(t, "2024-01-01T00:00:00Z")); got != -3*3600 {
		t.Errorf("offset %d", got)
	}
}

func TestLoadZoneConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	got := make([]*Zone, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			z, err := LoadZone("Asia/Tokyo")
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = z
			// Resolve and OffsetAt share the zone's memos.
			for d := 0; d < 400; d++ {
				l := LocalDateTime{Year: 2000 + d%50, Month: time.Month(1 + d%12), Day: 1 + d%28, Hour: d % 24}
				if _, err := z.Resolve(l, Compatible); err != nil {
					t.Error(err)
				}
				z.OffsetAt(FromUnixNano(int64(d) * 86400 * 1e9 * 37))
			}
		}()
	}
	wg.Wait()
	for _, z := range got[1:] {
		if z != got[0] {
			t.Fatal("concurrent LoadZone returned different zones")
		}
	}
}

func TestZoneLocalOf(t *testing.T) {
	for _, c := range []struct{ zone, at, want string }{
		{"America/New_York", "2024-03-10T06:59:59.5Z", "2024-03-10T01:59:59.5"},
		{"America/New_York", "2024-03-10T07:00:00Z", "2024-03-10T03:00:00"},
		{"America/New_York", "2024-11-03T05:30:00Z", "2024-11-03T01:30:00"},
		{"America/New_York", "2024-11-03T06:30:00Z", "2024-11-03T01:30:00"},
		{"Pacific/Apia", "2011-12-30T10:00:00Z", "2011-12-31T00:00:00"},
		{"UTC", "1969-12-31T23:59:59.999999999Z", "1969-12-31T23:59:59.999999999"},
		{"Asia/Kathmandu", "2024-01-01T00:00:00Z", "2024-01-01T05:45:00"},
	} {
		z, _ := LoadZone(c.zone)
		if got := z.LocalOf(mustInstant(t, c.at)).String(); got != c.want {
			t.Errorf("%s LocalOf(%s) = %s, want %s", c.zone, c.at, got, c.want)
		}
	}
}

// Past a zone's last listed transition Go computes periods from the TZ rule
// and its ZoneBounds reports year ends (a day early in leap years). Periods
// must still be the real ones.
func TestZonePeriodsPastLastTransition(t *testing.T) {
	for _, id := range []string{"America/New_York", "Australia/Sydney", "Europe/Paris", "UTC"} {
		z, _ := LoadZone(id)
		s := mustInstant(t, "2023-06-01T00:00:00Z").UnixNano() / 1e9
		for range 30 {
			p := z.periodAt(s)
			if p.start > s || p.end <= s {
				t.Fatalf("%s: period %d..%d does not hold %d", id, p.start, p.end, s)
			}
			if p.end >= farFuture {
				break
			}
			// A real transition: the offset (or isDST) changes at end.
			next := z.rawPeriod(p.end)
			if before := z.rawPeriod(p.end - 1); next.off == before.off && next.dst == before.dst {
				t.Errorf("%s: %s is no transition", id, FromUnixNano(p.end*1e9))
			}
			if q := z.periodAt(p.end); q.start != p.end {
				t.Errorf("%s: the period after %s starts at %s", id, FromUnixNano(p.end*1e9), FromUnixNano(q.start*1e9))
			}
			s = p.end
		}
	}
	// New York in 2024 (a leap year): standard time runs from November to March.
	ny, _ := LoadZone("America/New_York")
	p := ny.periodAt(mustInstant(t, "2024-12-31T12:00:00Z").UnixNano() / 1e9)
	if got := FromUnixNano(p.end * 1e9).String(); got != "2025-03-09T07:00:00Z" {
		t.Errorf("period end %s, want 2025-03-09T07:00:00Z", got)
	}
}

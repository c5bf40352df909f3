package temporal

import "testing"

func TestInstantFields(t *testing.T) {
	for _, tc := range []struct {
		at, zone string
		want     Fields
		offset   string
	}{
		// The first instant after New York's spring-forward gap.
		{"2024-03-10T07:00:00.5Z", "America/New_York", Fields{2024, 3, 10, 3, 0, 0, 500_000_000, 7, 70, -4 * 3600}, "-04:00"},
		{"2024-12-31T23:30:00Z", "Europe/Paris", Fields{2025, 1, 1, 0, 30, 0, 0, 3, 1, 3600}, "+01:00"},
		{"2024-12-31T12:00:00Z", "UTC", Fields{2024, 12, 31, 12, 0, 0, 0, 2, 366, 0}, "+00:00"},
		{"2024-06-01T00:00:00Z", "Asia/Kolkata", Fields{2024, 6, 1, 5, 30, 0, 0, 6, 153, 19800}, "+05:30"},
		// Local mean time before 1911 had seconds in its offset.
		{"1900-01-01T00:00:00Z", "Europe/Paris", Fields{1900, 1, 1, 0, 9, 21, 0, 1, 1, 561}, "+00:09:21"},
	} {
		got, err := mustInstant(t, tc.at).Fields(tc.zone)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want || got.OffsetString() != tc.offset {
			t.Errorf("%s in %s: %+v %s, want %+v %s", tc.at, tc.zone, got, got.OffsetString(), tc.want, tc.offset)
		}
	}
	if _, err := mustInstant(t, "2024-01-01T00:00:00Z").Fields("Local"); err == nil {
		t.Error("Fields accepted Local")
	}
}

package nearest

import (
	"slices"
	"testing"
)

func TestNames(t *testing.T) {
	methods := []string{"cancel", "drop", "active?", "is_active", "due", "remaining", "reset", "schedule-once", "schedule_once", "every"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"cancle", []string{"cancel"}},
		{"scheduleOnce", []string{"schedule-once", "schedule_once"}},
		{"remainig", []string{"remaining"}},
		{"isActive", []string{"is_active"}},
		{"activ", []string{"active?"}},
		{"zzzzzz", nil},
		{"d", nil},
	} {
		if got := Names(tc.name, methods, 3); !slices.Equal(got, tc.want) {
			t.Errorf("Names(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	zones := []string{"Europe/Paris", "Europe/Prague", "America/New_York"}
	if got := Names("Europe/Pariss", zones, 3); !slices.Equal(got, []string{"Europe/Paris"}) {
		t.Errorf("zone: got %q", got)
	}
	if got := Names("America/NewYork", zones, 3); !slices.Equal(got, []string{"America/New_York"}) {
		t.Errorf("zone: got %q", got)
	}
}

func TestPhrase(t *testing.T) {
	for names, want := range map[string]string{
		"":    "",
		"a":   "; did you mean 'a'?",
		"a,b": "; did you mean 'a' or 'b'?",
	} {
		var ns []string
		if names != "" {
			ns = splitComma(names)
		}
		if got := Phrase(ns); got != want {
			t.Errorf("Phrase(%q) = %q, want %q", ns, got, want)
		}
	}
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

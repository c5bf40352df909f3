package clip

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"Europe/Paris", `"Europe/Paris"`},
		{"a\nb", `"a\nb"`},
		{strings.Repeat("x", Max), `"` + strings.Repeat("x", Max) + `"`},
		{strings.Repeat("x", Max+1), `"` + strings.Repeat("x", Max) + `"…(65 bytes)`},
		{strings.Repeat("x", 10000), `"` + strings.Repeat("x", Max) + `"…(10000 bytes)`},
		// é is two bytes: the cut backs off to the start of the one at 63.
		{strings.Repeat("x", Max-1) + "éé", `"` + strings.Repeat("x", Max-1) + `"…(67 bytes)`},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%.20q...) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestText(t *testing.T) {
	if got := Text("WEEKLY"); got != "WEEKLY" {
		t.Errorf("Text(WEEKLY) = %s", got)
	}
	if got, want := Text(strings.Repeat("y", 100)), strings.Repeat("y", Max)+"…(100 bytes)"; got != want {
		t.Errorf("Text(100 y) = %s, want %s", got, want)
	}
}

func TestQuoteNTextN(t *testing.T) {
	if got, want := QuoteN(strings.Repeat("\x01", 300), 200), `"`+strings.Repeat(`\x01`, 200)+`"…(300 bytes)`; got != want {
		t.Errorf("QuoteN(300 bytes, 200) = %.40s..., want %.40s...", got, want)
	}
	if got := TextN("short", 200); got != "short" {
		t.Errorf("TextN(short, 200) = %s", got)
	}
	if got, want := TextN(strings.Repeat("z", 201), 200), strings.Repeat("z", 200)+"…(201 bytes)"; got != want {
		t.Errorf("TextN(201 z, 200) = %s, want %s", got, want)
	}
}

package snapshot

import (
	"strings"
	"testing"
)

// A malformed text is refused in the format's terms: the field by its
// JSON name and what it wants, never a Go type name.
func TestDecodeNamesTheFieldNotTheGoType(t *testing.T) {
	cases := map[string]string{
		``:                       "no JSON text",
		`{"version":1`:           "the text ends inside its JSON object",
		`{"version":1,}`:         "invalid JSON at byte 14",
		`[1]`:                    "want an object, got a JSON array",
		`{"version":"one"}`:      "field version: want an integer, got a JSON string",
		`{"jobs":[{"seq":"x"}]}`: "field jobs.seq: want an integer, got a JSON string",
		`{"colour":1}`:           `unknown field "colour"`,
	}
	for text, want := range cases {
		_, err := Decode([]byte(text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want an error containing %q", text, err, want)
		}
		if err != nil && (strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "snapshot.") || strings.Contains(err.Error(), "json:")) {
			t.Errorf("Decode(%q) = %v: names Go's types or package", text, err)
		}
	}
}

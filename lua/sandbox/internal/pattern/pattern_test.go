package pattern

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// find compiles pat (anchored as string.find anchors) and describes its
// first match in src from init: "start-end" plus the captures, "none",
// or the error.
func find(pat, src string, init int, anchor bool) string {
	p, err := Compile(pat, anchor, -1)
	if err != nil {
		return "error: " + err.Error()
	}
	m := p.Matcher(src)
	s, e, err := m.Find(init, nil)
	if err != nil {
		return "error: " + err.Error()
	}
	if s < 0 {
		return "none"
	}
	out := fmt.Sprintf("%d-%d", s, e)
	for k := 0; k < p.Captures(); k++ {
		c := m.Capture(k)
		if c.Position {
			out += fmt.Sprintf(" @%d", c.Start)
		} else {
			out += fmt.Sprintf(" %q", src[c.Start:c.End])
		}
	}
	return out
}

func TestPatternFeatures(t *testing.T) {
	cases := []struct {
		name, pat, src string
		want           string
	}{
		{"literal", "lo w", "hello world", "3-7"},
		{"no match", "xyz", "hello", "none"},
		{"empty pattern", "", "abc", "0-0"},
		{"dot", "l.o", "hello", "2-5"},
		{"%a letters", "%a+", "12ab3", "2-4"},
		{"%A complement", "%A+", "ab12c", "2-4"},
		{"%c control", "%c", "a\tb", "1-2"},
		{"%d digits", "%d+", "x123y", "1-4"},
		{"%D complement", "%D+", "12ab3", "2-4"},
		{"%l lower", "%l+", "ABcdE", "2-4"},
		{"%p punctuation", "%p+", "ab!?c", "2-4"},
		{"%s space", "%s+", "a \t\nb", "1-4"},
		{"%S complement", "%S+", "  ab ", "2-4"},
		{"%u upper", "%u+", "abCDe", "2-4"},
		{"%w alphanumeric", "%w+", "--a1--", "2-4"},
		{"%W complement", "%W+", "ab--c", "2-4"},
		{"%x hex digits", "%x+", "zz0fFg", "2-5"},
		{"%z zero byte", "%z", "a\x00b", "1-2"},
		{"%Z complement", "%Z+", "\x00ab\x00", "1-3"},
		{"escaped magic", "%.%%%(", "a.%(b", "1-4"},
		{"unknown class letter is literal", "%q", "aqb", "1-2"},
		{"set", "[abc]+", "xxbcay", "2-5"},
		{"set range", "[a-c]+", "xxbcay", "2-5"},
		{"set class", "[%d_]+", "ab1_2c", "2-5"},
		{"negated set", "[^%s]+", "  ab  ", "2-4"},
		{"] first in set", "[]]", "a]b", "1-2"},
		{"- first and last in set", "[-a]+[b-]", "x-ab", "1-4"},
		{"range with escaped end is empty", "[%a-z]", "abz", "none"},
		{"star greedy", "a*", "aaab", "0-3"},
		{"star zero", "xa*", "xb", "0-1"},
		{"plus", "a+", "baaab", "1-4"},
		{"plus needs one", "xa+", "xb", "none"},
		{"minus lazy", "<.->", "<a><b>", "0-3"},
		{"minus backtracks", "a-b", "aaab", "0-4"},
		{"question", "ab?c", "ac abc", "0-2"},
		{"question backtracks", "a?a", "a", "0-1"},
		{"anchor ^", "^b", "ab", "none"},
		{"anchor ^ at start", "^a", "ab", "0-1"},
		{"anchor $", "b$", "abab", "3-4"},
		{"$ not last is literal", "$b", "a$b", "1-3"},
		{"^ not first is literal", "a^", "a^", "0-2"},
		{"quantifier char first is literal", "*", "a*", "1-2"},
		{"capture", "(%a+)=(%d+)", "x=1 key=42", "0-3 \"x\" \"1\""},
		{"nested captures", "((a)(b))", "xab", "1-3 \"ab\" \"a\" \"b\""},
		{"position capture", "()ll()", "hello", "2-4 @2 @4"},
		{"back-reference", "(a+)b%1", "aabaa", "0-5 \"aa\""},
		{"back-reference to a position is empty", "()a%1", "ba", "1-2 @1"},
		{"balance", "%b()", "f(a(b)c)d", "1-8"},
		{"balance same bytes", "%b''", "x'a'y", "1-4"},
		{"balance unbalanced", "%b()", "(()", "1-3"},
		{"quantifier after balance is literal", "%b()*", "()*", "0-3"},
		{"final % never matches", "a%", "a%", "none"},
		{"%b without two bytes never matches", "%bx", "x", "none"},
		{"unclosed set", "[a-", "abc", "error: unexpected EOS at 2"},
		{"unclosed set ending in %", "[a%", "abc", "error: unexpected EOS at EOS"},
		{"unclosed capture", "(a", "abc", "error: unfinished capture at EOS"},
		{"stray )", "ab)", "abc", "error: invalid ')' at 1"},
		{"%0", "a%0", "abc", "error: invalid capture index at 1"},
		{"%n of an open capture, reached", "(a%1)", "abc", "error: invalid capture index"},
		{"%n of an open capture, not reached", "(x%1)", "abc", "none"},
	}
	for _, c := range cases {
		if got := find(c.pat, c.src, 0, true); got != c.want {
			t.Errorf("%s: find %q in %q = %s, want %s", c.name, c.pat, c.src, got, c.want)
		}
	}
}

// Find starts at init; a search without anchor (gmatch's) reads '^' as
// a plain byte; an anchored search tries init only.
func TestFindInitAndAnchor(t *testing.T) {
	for _, c := range []struct {
		pat, src string
		init     int
		anchor   bool
		want     string
	}{
		{"a", "aXa", 1, true, "2-3"},
		{"", "abc", 3, true, "3-3"},
		{"$", "abc", 1, true, "3-3"},
		{"^a", "aXa", 1, true, "none"},
		{"^X", "aXa", 1, true, "1-2"},
		{"^a", "^a^a", 0, false, "0-2"},
		{"^a", "^a^a", 1, false, "2-4"},
	} {
		if got := find(c.pat, c.src, c.init, c.anchor); got != c.want {
			t.Errorf("find %q in %q from %d (anchor %v) = %s, want %s", c.pat, c.src, c.init, c.anchor, got, c.want)
		}
	}
}

// Compile refuses more captures than its limit, naming how many.
func TestCompileCaptureLimit(t *testing.T) {
	_, err := Compile(strings.Repeat("()", 5000), true, 4096)
	var ce *CapturesError
	if !errors.As(err, &ce) || ce.Count != 5000 || err.Error() != "too many captures: 5000, at most 4096" {
		t.Fatalf("err %v; want too many captures: 5000, at most 4096", err)
	}
	if _, err := Compile(strings.Repeat("()", 4096), true, 4096); err != nil {
		t.Fatalf("4096 captures: %v", err)
	}
}

// The stop function ends a runaway match; it is asked every CheckEvery
// steps.
func TestStopEndsRunaway(t *testing.T) {
	p, err := Compile(strings.Repeat("a-", 5)+"b", true, -1)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	_, _, err = p.Matcher(strings.Repeat("a", 5000)).Find(0, func() bool { calls++; return calls == 3 })
	if err != ErrStopped || calls != 3 {
		t.Fatalf("err %v after %d calls; want ErrStopped after 3", err, calls)
	}
	// A short match never reaches the stop.
	_, _, err = p.Matcher("aab").Find(0, func() bool { t.Fatal("stop called"); return true })
	if err != nil {
		t.Fatal(err)
	}
}

// At most MaxDepth choices stay open, as Lua bounds its matcher's depth.
func TestTooComplex(t *testing.T) {
	for n, want := range map[int]error{MaxDepth: nil, MaxDepth + 1: ErrTooComplex} {
		p, err := Compile(strings.Repeat("a?", n)+"b", true, -1)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.Matcher(strings.Repeat("a", n)+"b").Find(0, nil); err != want {
			t.Errorf("%d optional items: err %v, want %v", n, err, want)
		}
	}
}

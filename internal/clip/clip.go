// Package clip shortens user text echoed in error messages, so a hostile
// or mistaken 10,000-byte argument gives a one-line error.
package clip

import (
	"strconv"
	"unicode/utf8"
)

// Max is how many bytes of a string Quote shows.
const Max = 64

// Quote is strconv.Quote(s) for a string of at most Max bytes. A longer one
// is quoted up to Max bytes (cut on a UTF-8 boundary) and followed by its
// length: "abc…"…(10000 bytes).
func Quote(s string) string { return QuoteN(s, Max) }

// QuoteN is Quote showing at most n bytes.
func QuoteN(s string, n int) string {
	head, tail := cut(s, n)
	return strconv.Quote(head) + tail
}

// Text is Quote without the quotes, for text shown bare (FREQ=WEEKLY):
// s itself up to Max bytes, else its first Max bytes and its length.
func Text(s string) string { return TextN(s, Max) }

// TextN is Text showing at most n bytes.
func TextN(s string, n int) string {
	head, tail := cut(s, n)
	return head + tail
}

// cut splits s into what is shown, at most limit bytes, and the
// "…(N bytes)" note, "" when s is short.
func cut(s string, limit int) (head, tail string) {
	if len(s) <= limit {
		return s, ""
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], "…(" + strconv.Itoa(len(s)) + " bytes)"
}

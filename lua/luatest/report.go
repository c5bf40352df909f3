package luatest

import (
	"fmt"
	"io"
	"strings"
)

// Summary counts results by status.
type Summary struct {
	Passed, Failed, Skipped int
}

// Summarize counts results; a file that failed to load counts as one failure.
func Summarize(results []Result) Summary {
	var s Summary
	for _, r := range results {
		switch r.Status {
		case Pass:
			s.Passed++
		case Fail:
			s.Failed++
		case Skip:
			s.Skipped++
		}
	}
	return s
}

// String is "N passed, N failed", with ", N skipped" when N > 0.
func (s Summary) String() string {
	out := fmt.Sprintf("%d passed, %d failed", s.Passed, s.Failed)
	if s.Skipped > 0 {
		out += fmt.Sprintf(", %d skipped", s.Skipped)
	}
	return out
}

// String is the result's report block: "file:line: name: message", then its
// details and logs indented by four spaces (no trailing newline).
func (r Result) String() string {
	var b strings.Builder
	b.WriteString(r.where())
	if r.Line > 0 {
		fmt.Fprintf(&b, ":%d", r.Line)
	}
	b.WriteString(": ")
	if r.Name != "" {
		b.WriteString(r.Name + ": ")
	}
	msg := r.Message
	if msg == "" {
		msg = r.Status.String()
	}
	lines := strings.Split(msg, "\n")
	b.WriteString(lines[0])
	rest := append(lines[1:len(lines):len(lines)], r.Details...)
	for _, l := range r.Logs {
		rest = append(rest, "log: "+l)
	}
	for _, l := range rest {
		b.WriteString("\n    " + l)
	}
	return b.String()
}

// Report writes the block of every failed result, then the summary line.
func Report(w io.Writer, results []Result) error {
	var b strings.Builder
	for _, r := range results {
		if r.Status == Fail {
			b.WriteString(r.String() + "\n")
		}
	}
	b.WriteString(Summarize(results).String() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

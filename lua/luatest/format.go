package luatest

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Verbose is what `metronome test -v` prints for a result as it comes: a
// line with its status, file, full name and wall time, "pass
// tests/a_test.lua: adds (1.2ms)", then, for a test that did not fail, its
// t:log lines indented ("    log: ..."; a failure's come with its report
// block). A file that failed to load shows without a name and time.
func Verbose(r Result) string {
	if r.Name == "" {
		return fmt.Sprintf("%-4s %s", r.Status, r.where())
	}
	line := fmt.Sprintf("%-4s %s: %s (%s)", r.Status, r.where(), r.Name, r.Elapsed.Std().Round(time.Microsecond))
	if r.Status != Fail {
		for _, l := range r.Logs {
			line += "\n    log: " + l
		}
	}
	return line
}

// where is the result's file, or "(run)" for a failure of the whole run
// (a filter that matches nothing).
func (r Result) where() string {
	if r.File == "" {
		return "(run)"
	}
	return r.File
}

// ReportTAP writes results as TAP version 14: one "ok" or "not ok" line per
// result (a skip carries "# SKIP reason"), a failure's message, location,
// details and logs in a YAML block under it, the plan, and the summary line
// as a comment.
func ReportTAP(w io.Writer, results []Result) error {
	var b strings.Builder
	b.WriteString("TAP version 14\n")
	for i, r := range results {
		ok := "ok"
		if r.Status == Fail {
			ok = "not ok"
		}
		desc := r.where()
		if r.Name != "" {
			desc += ": " + r.Name
		}
		fmt.Fprintf(&b, "%s %d - %s", ok, i+1, tapEscape(desc))
		if r.Status == Skip {
			b.WriteString(" # SKIP")
			if r.Message != "" {
				b.WriteString(" " + tapEscape(r.Message))
			}
		}
		b.WriteString("\n")
		if r.Status != Fail {
			continue
		}
		b.WriteString("  ---\n")
		fmt.Fprintf(&b, "  message: %s\n", strconv.Quote(r.Message))
		if r.File != "" {
			at := r.File
			if r.Line > 0 {
				at += ":" + strconv.Itoa(r.Line)
			}
			fmt.Fprintf(&b, "  at: %s\n", strconv.Quote(at))
		}
		yamlList(&b, "details", r.Details)
		yamlList(&b, "logs", r.Logs)
		b.WriteString("  ...\n")
	}
	fmt.Fprintf(&b, "1..%d\n# %s\n", len(results), Summarize(results))
	_, err := io.WriteString(w, b.String())
	return err
}

// tapEscape keeps a description on one line and its # from starting a
// directive.
func tapEscape(s string) string {
	return strings.NewReplacer("\\", `\\`, "#", `\#`, "\n", " ", "\r", " ").Replace(s)
}

func yamlList(b *strings.Builder, key string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "  %s:\n", key)
	for _, it := range items {
		fmt.Fprintf(b, "    - %s\n", strconv.Quote(it))
	}
}

// The JUnit XML that ReportJUnit writes, as CI systems read it.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Time     string      `xml:"time,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		File      string        `xml:"file,attr,omitempty"`
		Line      int           `xml:"line,attr,omitempty"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		Skipped   *junitSkipped `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr,omitempty"`
	}
)

// ReportJUnit writes results as JUnit XML: a testsuite per file (in the
// order the files ran) holding a testcase per test, named by its full name,
// with classname the file. A failed check gives a <failure> whose text is
// the report block, and an error the test raised an <error>; a file that
// failed to load, or a run whose filter matched nothing, is a testcase
// named "(load)" or "(run)" with an <error>. t:log
// lines go to the testcase's <system-out>. Times are wall seconds.
func ReportJUnit(w io.Writer, results []Result) error {
	var doc junitSuites
	for _, r := range results {
		if n := len(doc.Suites); n == 0 || doc.Suites[n-1].Name != r.where() {
			doc.Suites = append(doc.Suites, junitSuite{Name: r.where()})
		}
		s := &doc.Suites[len(doc.Suites)-1]
		c := junitCase{Name: r.Name, Classname: r.where(), File: r.File, Line: r.Line, Time: seconds(r.Elapsed.Std())}
		if len(r.Logs) > 0 {
			c.SystemOut = strings.Join(r.Logs, "\n") + "\n"
		}
		s.Tests++
		switch {
		case r.Status == Fail && r.Name == "":
			c.Name = "(load)"
			if r.File == "" {
				c.Name = "(run)"
			}
			c.Error = &junitProblem{Message: firstLine(r.Message), Type: "error", Text: r.String()}
			s.Errors++
		case r.Status == Fail && r.Errored:
			r.Logs = nil
			c.Error = &junitProblem{Message: firstLine(r.Message), Type: "error", Text: r.String()}
			s.Errors++
		case r.Status == Fail:
			r.Logs = nil
			c.Failure = &junitProblem{Message: firstLine(r.Message), Type: "failure", Text: r.String()}
			s.Failures++
		case r.Status == Skip:
			c.Skipped = &junitSkipped{Message: r.Message}
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	var total time.Duration
	for i := range doc.Suites {
		s := &doc.Suites[i]
		var d time.Duration
		for _, r := range results {
			if r.where() == s.Name {
				d += r.Elapsed.Std()
			}
		}
		s.Time = seconds(d)
		total += d
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	doc.Time = seconds(total)
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, xml.Header+string(out)+"\n")
	return err
}

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

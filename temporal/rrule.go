package temporal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/metronome-rt/metronome/internal/clip"
)

// rule is one validated RRULE or EXRULE. The text is checked here, part by
// part, before rrule-go sees it: rrule-go reads COUNT=0 as unbounded,
// INTERVAL=0 as 1, accepts COUNT with UNTIL, and loops forever on some
// unreachable BYHOUR sets.
type rule struct {
	text     string
	freq     rrule.Frequency
	interval int
	count    int // 0: none
	until    untilSpec
	// opt has neither COUNT nor UNTIL (we count and stop ourselves: DTSTART
	// counts toward COUNT, and a UTC UNTIL compares resolved instants) and
	// no DTSTART (set per iterator: an RRule is not safe to share).
	opt rrule.ROption
	// simple rules have no BY* part: their walls are exact arithmetic.
	simple bool
}

type untilSpec struct {
	set  bool
	utc  bool  // UNTIL ended in Z: compare instants
	secs int64 // Unix seconds (utc) or wall seconds
	text string
}

// untilSlack is how far (in seconds) a UTC UNTIL can sit before DTSTART's
// wall clock read as UTC and still be after DTSTART in some zone.
const untilSlack = 26 * 3600

var ruleParts = "FREQ, UNTIL, COUNT, INTERVAL, BYSECOND, BYMINUTE, BYHOUR, BYDAY, BYMONTHDAY, BYYEARDAY, BYWEEKNO, BYMONTH, BYSETPOS, WKST"

var freqNames = map[string]rrule.Frequency{
	"YEARLY": rrule.YEARLY, "MONTHLY": rrule.MONTHLY, "WEEKLY": rrule.WEEKLY, "DAILY": rrule.DAILY,
	"HOURLY": rrule.HOURLY, "MINUTELY": rrule.MINUTELY, "SECONDLY": rrule.SECONDLY,
}

var weekdays = map[string]rrule.Weekday{
	"MO": rrule.MO, "TU": rrule.TU, "WE": rrule.WE, "TH": rrule.TH, "FR": rrule.FR, "SA": rrule.SA, "SU": rrule.SU,
}

// parseRule validates text (an RRULE value, optionally prefixed by
// "RRULE:" or, for field "exrule", "EXRULE:") for a set starting at dtstart.
func parseRule(field, text string, dtstart LocalDateTime) (*rule, error) {
	fail := func(format string, args ...any) (*rule, error) {
		return nil, &RecurrenceError{Op: "recurrence set", Field: field, Value: text, Reason: fmt.Sprintf(format, args...)}
	}
	s := strings.ToUpper(strings.TrimSpace(text))
	if name, rest, ok := strings.Cut(s, ":"); ok {
		if name != strings.ToUpper(field) {
			return fail("want FREQ=...;... with an optional %s: prefix, got a %s: prefix", strings.ToUpper(field), name)
		}
		s = rest
	}
	if s == "" {
		return fail("empty rule; want FREQ=...;... such as FREQ=DAILY;COUNT=3")
	}
	r := &rule{text: text, interval: 1}
	seen := map[string]bool{}
	var byday []string
	freqSet := false
	for _, part := range strings.Split(s, ";") {
		name, value, ok := strings.Cut(part, "=")
		switch {
		case part == "":
			return fail("empty part (a stray ';')")
		case !ok || strings.Contains(value, "="):
			return fail("part %s: want NAME=VALUE", clip.Quote(part))
		case value == "":
			return fail("%s has no value", name)
		case seen[name]:
			return fail("%s is given twice", name)
		}
		seen[name] = true
		var err string
		o := &r.opt
		switch name {
		case "FREQ":
			f, ok := freqNames[value]
			if !ok {
				return fail("FREQ=%s: want SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY", clip.Text(value))
			}
			r.freq, freqSet = f, true
		case "INTERVAL":
			r.interval, err = positive(name, value)
		case "COUNT":
			r.count, err = positive(name, value)
		case "UNTIL":
			r.until, err = parseUntil(value)
		case "BYSECOND":
			o.Bysecond, err = intList(name, value, 0, 59, false)
		case "BYMINUTE":
			o.Byminute, err = intList(name, value, 0, 59, false)
		case "BYHOUR":
			o.Byhour, err = intList(name, value, 0, 23, false)
		case "BYMONTHDAY":
			o.Bymonthday, err = intList(name, value, 1, 31, true)
		case "BYYEARDAY":
			o.Byyearday, err = intList(name, value, 1, 366, true)
		case "BYWEEKNO":
			o.Byweekno, err = intList(name, value, 1, 53, true)
		case "BYMONTH":
			o.Bymonth, err = intList(name, value, 1, 12, false)
		case "BYSETPOS":
			o.Bysetpos, err = intList(name, value, 1, 366, true)
		case "BYDAY":
			byday = strings.Split(value, ",")
		case "WKST":
			wd, ok := weekdays[value]
			if !ok {
				return fail("WKST=%s: want MO, TU, WE, TH, FR, SA or SU", clip.Text(value))
			}
			o.Wkst = wd
		default:
			return fail("unknown part %s; want %s", clip.Quote(name), ruleParts)
		}
		if err != "" {
			return fail("%s", err)
		}
	}
	if !freqSet {
		return fail("FREQ is required (RFC 5545), e.g. FREQ=DAILY")
	}
	if r.count > 0 && r.until.set {
		return fail("COUNT and UNTIL must not both be given (RFC 5545)")
	}
	o := &r.opt
	o.Freq, o.Interval = r.freq, r.interval
	for _, d := range byday {
		wd, err := parseByDay(d, r.freq, len(o.Bymonth) > 0, len(o.Byweekno) > 0)
		if err != "" {
			return fail("%s", err)
		}
		if !slices.Contains(o.Byweekday, wd) {
			o.Byweekday = append(o.Byweekday, wd)
		}
	}
	switch {
	case len(o.Byweekno) > 0 && r.freq != rrule.YEARLY:
		return fail("BYWEEKNO is only allowed with FREQ=YEARLY (RFC 5545)")
	case len(o.Byyearday) > 0 && (r.freq == rrule.DAILY || r.freq == rrule.WEEKLY || r.freq == rrule.MONTHLY):
		return fail("BYYEARDAY is not allowed with FREQ=%s (RFC 5545)", r.freq)
	case len(o.Bymonthday) > 0 && r.freq == rrule.WEEKLY:
		return fail("BYMONTHDAY is not allowed with FREQ=WEEKLY (RFC 5545)")
	case len(o.Bysetpos) > 0 && !seen["BYSECOND"] && !seen["BYMINUTE"] && !seen["BYHOUR"] && !seen["BYDAY"] &&
		!seen["BYMONTHDAY"] && !seen["BYYEARDAY"] && !seen["BYWEEKNO"] && !seen["BYMONTH"]:
		return fail("BYSETPOS needs another BY* part to select from (RFC 5545)")
	}
	if msg := monthDaysPossible(o.Bymonth, o.Bymonthday); msg != "" {
		return fail("%s", msg)
	}
	if msg := timeReachable(r, dtstart); msg != "" {
		return fail("%s", msg)
	}
	if r.until.set {
		start := dtstart.wall()
		if !r.until.utc && r.until.secs < start || r.until.utc && r.until.secs < start-untilSlack {
			return fail("UNTIL %s is before DTSTART %s: the rule would add no occurrence", r.until.text, dtstart)
		}
	}
	r.simple = len(o.Bysecond)+len(o.Byminute)+len(o.Byhour)+len(o.Bymonthday)+len(o.Byyearday)+
		len(o.Byweekno)+len(o.Bymonth)+len(o.Bysetpos)+len(o.Byweekday) == 0
	return r, nil
}

func positive(name, value string) (int, string) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || strings.Trim(value, "0123456789") != "" {
		return 0, fmt.Sprintf("%s must be an integer >= 1, got %s", name, clip.Quote(value))
	}
	return n, ""
}

// intList parses a comma-separated BY* list. signed lists accept -hi..-lo
// too (counting from the end).
func intList(name, value string, lo, hi int, signed bool) ([]int, string) {
	var out []int
	for _, item := range strings.Split(value, ",") {
		digits := strings.TrimLeft(item, "+-")
		n, err := strconv.Atoi(item)
		if err != nil || digits == "" || len(item)-len(digits) > 1 || strings.Trim(digits, "0123456789") != "" {
			return nil, fmt.Sprintf("%s value %s is not an integer", name, clip.Quote(item))
		}
		if n >= lo && n <= hi || signed && n <= -lo && n >= -hi {
			if !slices.Contains(out, n) { // rrule-go would yield a repeated value twice
				out = append(out, n)
			}
			continue
		}
		if signed {
			return nil, fmt.Sprintf("%s value %d is out of range %d..%d or %d..%d", name, n, lo, hi, -hi, -lo)
		}
		return nil, fmt.Sprintf("%s value %d is out of range %d..%d", name, n, lo, hi)
	}
	return out, ""
}

// parseByDay reads one BYDAY item: an optional signed ordinal and a
// weekday.
func parseByDay(item string, freq rrule.Frequency, byMonth, byWeekNo bool) (rrule.Weekday, string) {
	if len(item) < 2 {
		return rrule.Weekday{}, fmt.Sprintf("BYDAY value %s: want a weekday such as MO, 2TU or -1FR", clip.Quote(item))
	}
	wd, ok := weekdays[item[len(item)-2:]]
	if !ok {
		return rrule.Weekday{}, fmt.Sprintf("BYDAY value %s: want a weekday such as MO, 2TU or -1FR", clip.Quote(item))
	}
	ord := item[:len(item)-2]
	if ord == "" {
		return wd, ""
	}
	digits := strings.TrimLeft(ord, "+-")
	n, err := strconv.Atoi(ord)
	if err != nil || digits == "" || len(ord)-len(digits) > 1 || strings.Trim(digits, "0123456789") != "" || n == 0 || n < -53 || n > 53 {
		return rrule.Weekday{}, fmt.Sprintf("BYDAY value %s: the ordinal must be 1..53 or -53..-1", clip.Quote(item))
	}
	switch {
	case freq != rrule.MONTHLY && freq != rrule.YEARLY:
		return rrule.Weekday{}, fmt.Sprintf("BYDAY value %s: an ordinal is only allowed with FREQ=MONTHLY or YEARLY (RFC 5545)", clip.Quote(item))
	case freq == rrule.YEARLY && byWeekNo:
		return rrule.Weekday{}, fmt.Sprintf("BYDAY value %s: an ordinal is not allowed with BYWEEKNO (RFC 5545)", clip.Quote(item))
	case (freq == rrule.MONTHLY || byMonth) && (n > 5 || n < -5):
		// Within a month there are at most five of a weekday (and rrule-go
		// indexes out of range beyond that).
		return rrule.Weekday{}, fmt.Sprintf("BYDAY value %s: within a month the ordinal must be 1..5 or -5..-1", clip.Quote(item))
	}
	return wd.Nth(n), ""
}

// parseUntil reads YYYYMMDDTHHMMSS with an optional Z. A bare date is
// refused: DTSTART is a date-time, and RFC 5545 wants UNTIL of the same
// type.
func parseUntil(v string) (untilSpec, string) {
	u := untilSpec{text: v}
	body := strings.TrimSuffix(v, "Z")
	u.utc = body != v
	bad := func() (untilSpec, string) {
		return untilSpec{}, fmt.Sprintf("UNTIL=%s: want a date-time such as 19971224T000000Z (UTC) or 19971224T000000 (local)", v)
	}
	if len(body) != 15 || body[8] != 'T' || strings.Trim(body[:8]+body[9:], "0123456789") != "" {
		return bad()
	}
	num := func(i, n int) int { x, _ := strconv.Atoi(body[i : i+n]); return x }
	l := LocalDateTime{Year: num(0, 4), Month: time.Month(num(4, 2)), Day: num(6, 2), Hour: num(9, 2), Minute: num(11, 2), Second: num(13, 2)}
	if msg := l.check(); msg != "" {
		return untilSpec{}, fmt.Sprintf("UNTIL=%s: %s", v, msg)
	}
	u.set, u.secs = true, l.wall()
	return u, ""
}

// monthDaysPossible refuses BYMONTHDAY values that no BYMONTH month has:
// rrule-go would search to the year 9999 for them.
func monthDaysPossible(months, days []int) string {
	if len(days) == 0 {
		return ""
	}
	if len(months) == 0 {
		months = []int{1, 3} // 31 days: every day number exists somewhere
	}
	for _, m := range months {
		n := daysIn(2000, time.Month(m)) // a leap year: February has 29
		for _, d := range days {
			if d <= n && d >= -n {
				return ""
			}
		}
	}
	return "no BYMONTHDAY value exists in the BYMONTH months: the rule would have no occurrence"
}

// timeReachable refuses BYHOUR/BYMINUTE/BYSECOND values that a sub-daily
// rule's grid (DTSTART + k·INTERVAL) never lands on; rrule-go would loop
// forever looking for them.
func timeReachable(r *rule, dtstart LocalDateTime) string {
	o := &r.opt
	var unit, perDay int
	switch r.freq {
	case rrule.HOURLY:
		if len(o.Byhour) == 0 {
			return ""
		}
		unit, perDay = 3600, 24
	case rrule.MINUTELY:
		if len(o.Byhour)+len(o.Byminute) == 0 {
			return ""
		}
		unit, perDay = 60, 1440
	case rrule.SECONDLY:
		if len(o.Byhour)+len(o.Byminute)+len(o.Bysecond) == 0 {
			return ""
		}
		unit, perDay = 1, 86400
	default:
		return ""
	}
	tod := (dtstart.Hour*3600 + dtstart.Minute*60 + dtstart.Second) / unit
	g := gcd(r.interval%perDay, perDay)
	in := func(list []int, v int) bool { return len(list) == 0 || slices.Contains(list, v) }
	for p := tod % g; p < perDay; p += g {
		secs := p * unit
		h, m, s := secs/3600, secs/60%60, secs%60
		if in(o.Byhour, h) && (r.freq == rrule.HOURLY || in(o.Byminute, m)) && (r.freq != rrule.SECONDLY || in(o.Bysecond, s)) {
			return ""
		}
	}
	return fmt.Sprintf("with INTERVAL=%d from DTSTART %s the %s grid never reaches the BYHOUR/BYMINUTE/BYSECOND values: the rule would have no occurrence",
		r.interval, dtstart, r.freq)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

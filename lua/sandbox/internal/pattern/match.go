package pattern

import (
	"errors"
	"strings"
)

// ErrStopped is the error of a match whose stop function said to stop.
var ErrStopped = errors.New("pattern match stopped")

// ErrCaptureIndex is the error of a match that reaches a %n whose capture
// n is not closed before it in the pattern.
var ErrCaptureIndex = errors.New("invalid capture index")

// ErrTooComplex is the error of a match that would keep more than
// MaxDepth choices open at once.
var ErrTooComplex = errors.New("pattern too complex")

// MaxDepth bounds the choices a match keeps open: one for each quantified
// item it has passed that could still match differently. Lua bounds the
// recursion of its matcher likewise (MAXCCALLS, 200).
const MaxDepth = 200

// CheckEvery is how many steps a match takes between calls of its stop
// function. A step is an item tried or a byte scanned.
const CheckEvery = 4096

// A Capture is what capture k of the last match holds: src[Start:End], or
// for a position capture the position Start (End == Start).
type Capture struct {
	Start, End int
	Position   bool
}

// A Matcher matches one pattern in one subject, match after match; it
// keeps its buffers between them. It is not safe for concurrent use.
type Matcher struct {
	p     *Pattern
	src   string
	caps  []Capture
	stack []choice
	stop  func() bool
	left  int
}

// A choice is a quantified item the match passed and may come back to.
type choice struct {
	pc int
	at int // star, plus: where the repetition starts; minus, opt: where the rest was tried
	n  int // star, plus: how many it now takes
}

// Matcher returns a matcher of p in src.
func (p *Pattern) Matcher(src string) *Matcher {
	return &Matcher{p: p, src: src, caps: make([]Capture, p.ncap), left: CheckEvery}
}

// Capture returns capture k (0-based) of the last successful match.
func (m *Matcher) Capture(k int) Capture { return m.caps[k] }

// Find returns the first match that starts at init or after (only at init
// if the pattern is anchored): the byte offsets of its start and end, or
// -1, -1 when there is none. 0 <= init <= len(src). stop, if not nil, is
// called every CheckEvery steps; when it returns true, Find ends with
// ErrStopped.
func (m *Matcher) Find(init int, stop func() bool) (start, end int, err error) {
	m.stop = stop
	p, src := m.p, m.src
	if p.literal {
		s := init
		if p.anchored {
			if !strings.HasPrefix(src[init:], p.lit) {
				return -1, -1, nil
			}
		} else if i := strings.Index(src[init:], p.lit); i >= 0 {
			s += i
		} else {
			return -1, -1, m.tick(len(src) - init)
		}
		return s, s + len(p.lit), m.tick(s + len(p.lit) - init)
	}
	var first *op
	if !p.anchored && len(p.ops) > 0 && (p.ops[0].rep == one || p.ops[0].rep == plus) && p.ops[0].kind <= kSet {
		first = &p.ops[0]
	}
	for s := init; s <= len(src); s++ {
		if first != nil {
			// Skip the starts where the first item cannot match.
			from := s
			switch first.kind {
			case kChar:
				i := strings.IndexByte(src[s:], first.c)
				if i < 0 {
					return -1, -1, m.tick(len(src) - from)
				}
				s += i
			case kSet:
				set := &p.sets[first.arg]
				for s < len(src) && !set.has(src[s]) {
					s++
				}
				if s == len(src) {
					return -1, -1, m.tick(len(src) - from)
				}
			}
			if err := m.tick(s - from); err != nil {
				return -1, -1, err
			}
		}
		e, err := m.run(s)
		if err != nil {
			return -1, -1, err
		}
		if e >= 0 {
			return s, e, nil
		}
		if p.anchored {
			break
		}
	}
	return -1, -1, nil
}

// tick counts n steps and calls the stop function when their turn comes.
func (m *Matcher) tick(n int) error {
	m.left -= n
	if m.left > 0 {
		return nil
	}
	m.left = CheckEvery
	if m.stop != nil && m.stop() {
		return ErrStopped
	}
	return nil
}

func (m *Matcher) single(o *op, c byte) bool {
	switch o.kind {
	case kChar:
		return c == o.c
	case kAny:
		return true
	}
	return m.p.sets[o.arg].has(c)
}

// count is how many bytes from src[s] single item o matches in a row.
func (m *Matcher) count(o *op, s int) int {
	src, i := m.src, s
	switch o.kind {
	case kChar:
		for i < len(src) && src[i] == o.c {
			i++
		}
	case kAny:
		i = len(src)
	default:
		set := &m.p.sets[o.arg]
		for i < len(src) && set.has(src[i]) {
			i++
		}
	}
	return i - s
}

// balance matches %bxy at src[s]: the end of the shortest balanced run
// from an x to its y, or -1.
func (m *Matcher) balance(s int, x, y byte) int {
	src := m.src
	if s >= len(src) || src[s] != x {
		return -1
	}
	depth := 1
	for i := s + 1; i < len(src); i++ {
		switch src[i] {
		case y:
			if depth--; depth == 0 {
				return i + 1
			}
		case x:
			depth++
		}
	}
	return -1
}

func (m *Matcher) push(c choice) error {
	if len(m.stack) >= MaxDepth {
		return ErrTooComplex
	}
	m.stack = append(m.stack, c)
	return nil
}

// run matches the pattern at src[s] exactly there, and returns the end of
// the match or -1. It backtracks with a stack of choices, not recursion:
// the items run in order, so a capture read again (%n) was set on the
// path being tried, and nothing needs undoing when it changes.
func (m *Matcher) run(s int) (int, error) {
	ops, src := m.p.ops, m.src
	m.stack = m.stack[:0]
	pc := 0
	for {
		if m.left--; m.left <= 0 {
			if err := m.tick(0); err != nil {
				return -1, err
			}
		}
		if pc == len(ops) {
			return s, nil
		}
		o := &ops[pc]
		last := pc == len(ops)-1 // nothing after o: its first choice stands
		ok := true
		switch o.kind {
		case kOpen:
			m.caps[o.arg] = Capture{Start: s, End: s}
		case kClose:
			m.caps[o.arg].End = s
		case kPos:
			m.caps[o.arg] = Capture{Start: s, End: s, Position: true}
		case kEnd:
			ok = s == len(src)
		case kFail:
			ok = false
		case kBadBackref:
			return -1, ErrCaptureIndex
		case kBalance:
			e := m.balance(s, o.c, o.d)
			if err := m.tick(max(e, s) - s); err != nil {
				return -1, err
			}
			ok = e >= 0
			if ok {
				s = e
			}
		case kBackref:
			c := m.caps[o.arg]
			sub := src[c.Start:c.End]
			ok = strings.HasPrefix(src[s:], sub)
			s += len(sub)
		default:
			switch o.rep {
			case one:
				ok = s < len(src) && m.single(o, src[s])
				s++
			case opt:
				if s < len(src) && m.single(o, src[s]) {
					if !last {
						if err := m.push(choice{pc: pc, at: s}); err != nil {
							return -1, err
						}
					}
					s++
				}
			case star, plus:
				n := m.count(o, s)
				if err := m.tick(n); err != nil {
					return -1, err
				}
				low := int(o.rep - star) // 0 for star, 1 for plus
				if n < low {
					ok = false
					break
				}
				if n > low && !last {
					if err := m.push(choice{pc: pc, at: s, n: n}); err != nil {
						return -1, err
					}
				}
				s += n
			case minus:
				if !last {
					if err := m.push(choice{pc: pc, at: s}); err != nil {
						return -1, err
					}
				}
			}
		}
		if ok {
			pc++
			continue
		}
		if s, pc = m.back(); pc < 0 {
			return -1, nil
		}
	}
}

// back resumes the newest choice that has an alternative left: where the
// match goes on, or pc -1 when no choice is left.
func (m *Matcher) back() (s, pc int) {
	ops, src := m.p.ops, m.src
	for len(m.stack) > 0 {
		c := &m.stack[len(m.stack)-1]
		o := &ops[c.pc]
		switch o.rep {
		case star, plus:
			low := int(o.rep - star)
			c.n--
			if next := &ops[c.pc+1]; next.kind == kChar && next.rep == one {
				// The rest starts with a literal byte: skip the counts
				// where it cannot match.
				for c.n >= low && (c.at+c.n >= len(src) || src[c.at+c.n] != next.c) {
					c.n--
				}
				if c.n < low {
					m.stack = m.stack[:len(m.stack)-1]
					continue
				}
			}
			s = c.at + c.n
			if c.n == low {
				m.stack = m.stack[:len(m.stack)-1]
			}
			return s, c.pc + 1
		case opt:
			m.stack = m.stack[:len(m.stack)-1]
			return c.at, c.pc + 1
		case minus:
			if c.at < len(src) && m.single(o, src[c.at]) {
				c.at++
				return c.at, c.pc + 1
			}
			m.stack = m.stack[:len(m.stack)-1]
		}
	}
	return 0, -1
}

package pattern

import (
	"errors"
	"fmt"
)

// An op is one item of a compiled pattern. Single-character items (a
// literal, '.', a class or a set) carry a quantifier; the others match
// what they match once, and a quantifier character after them is an item
// of its own, as in Lua.
type op struct {
	kind kind
	rep  rep
	c, d byte  // kChar: the byte; kBalance: the open and close bytes
	arg  int32 // kSet: index in Pattern.sets; captures: capture index
}

type kind uint8

const (
	kChar       kind = iota // one literal byte
	kAny                    // '.'
	kSet                    // a class (%a) or a set ([...])
	kOpen                   // '(' of a capture
	kClose                  // ')' of capture arg
	kPos                    // "()": a position capture
	kBalance                // %bxy
	kBackref                // %1-%9: capture arg again
	kEnd                    // '$' at the end of the pattern
	kFail                   // a final '%', or %b without its two bytes: never matches
	kBadBackref             // %n before capture n is closed: an error once reached
)

type rep uint8

const (
	one   rep = iota
	star      // '*': as many as possible, then fewer
	plus      // '+': one or more, as many as possible
	minus     // '-': as few as possible, then more
	opt       // '?': one if it matches, else none
)

// A Pattern is a compiled Lua pattern. It is read-only once compiled and
// may be shared between goroutines.
type Pattern struct {
	ops      []op
	sets     []bitset
	anchored bool
	ncap     int
	literal  bool // no item but literal bytes: a substring search
	lit      string
}

// Captures is the number of captures of p, position captures included.
func (p *Pattern) Captures() int { return p.ncap }

// Anchored reports whether p starts with '^' and so matches only where a
// search starts.
func (p *Pattern) Anchored() bool { return p.anchored }

// CapturesError is Compile's error for a pattern with more captures than
// its limit allows.
type CapturesError struct{ Count, Limit int }

func (e *CapturesError) Error() string {
	return fmt.Sprintf("too many captures: %d, at most %d", e.Count, e.Limit)
}

// errEOSInSet is a set whose last byte is a lone '%'.
var errEOSInSet = errors.New("unexpected EOS at EOS")

// Compile checks and compiles the Lua pattern p. With anchor, a leading
// '^' anchors the match at the start of a search (string.find, match and
// gsub); without it (string.gmatch, as in Lua 5.1) it is a plain '^'. A
// pattern with more than maxCaptures captures is refused with a
// *CapturesError naming how many it has (maxCaptures < 0: no limit).
//
// The errors, and what some malformed patterns mean, follow gopher-lua's
// string library, whose behaviour scripts already rely on: a set never
// closed is "unexpected EOS at N" (N the index of the pattern's last
// byte), a stray ')' is "invalid ')' at N" (N the index of the byte
// before it), a capture left open
// "unfinished capture at EOS" and %0 "invalid capture index at N". A %n
// for a capture not closed before it is the error ErrCaptureIndex of a
// match that reaches it. A final '%', and %b
// without two bytes after it, never match. In a set, a range with an
// escaped end, or whose end is itself a range ("[%a-z]", "[a-c-e]"),
// matches nothing (the manual leaves them undefined).
func Compile(p string, anchor bool, maxCaptures int) (*Pattern, error) {
	c := compiler{src: p, pat: &Pattern{}, max: maxCaptures}
	i := 0
	if anchor && len(p) > 0 && p[0] == '^' {
		c.pat.anchored = true
		i = 1
	}
	if err := c.items(i); err != nil {
		return nil, err
	}
	if len(c.open) > 0 {
		return nil, errors.New("unfinished capture at EOS")
	}
	if maxCaptures >= 0 && c.pat.ncap > maxCaptures {
		return nil, &CapturesError{Count: c.pat.ncap, Limit: maxCaptures}
	}
	pat := c.pat
	pat.literal = true
	lit := make([]byte, 0, len(pat.ops))
	for _, o := range pat.ops {
		if o.kind != kChar || o.rep != one {
			pat.literal = false
			break
		}
		lit = append(lit, o.c)
	}
	if pat.literal {
		pat.lit = string(lit)
	}
	return pat, nil
}

type compiler struct {
	src    string
	pat    *Pattern
	max    int
	open   []int32 // captures opened and not yet closed, innermost last
	closed []bool  // closed[k]: capture k has been closed
}

// emit appends o, unless the pattern already has more captures than
// allowed: then Compile only counts them, for the error.
func (c *compiler) emit(o op) {
	if c.max >= 0 && c.pat.ncap > c.max {
		return
	}
	c.pat.ops = append(c.pat.ops, o)
}

func (c *compiler) items(i int) error {
	p := c.src
	for i < len(p) {
		switch ch := p[i]; ch {
		case '(':
			k := int32(c.pat.ncap)
			c.pat.ncap++
			if i+1 < len(p) && p[i+1] == ')' {
				c.closed = append(c.closed, true)
				c.emit(op{kind: kPos, arg: k})
				i += 2
				continue
			}
			c.closed = append(c.closed, false)
			c.open = append(c.open, k)
			c.emit(op{kind: kOpen, arg: k})
			i++
			continue
		case ')':
			if len(c.open) == 0 {
				return fmt.Errorf("invalid ')' at %d", max(i-1, 0))
			}
			k := c.open[len(c.open)-1]
			c.open = c.open[:len(c.open)-1]
			c.closed[k] = true
			c.emit(op{kind: kClose, arg: k})
			i++
			continue
		case '$':
			if i == len(p)-1 {
				c.emit(op{kind: kEnd})
				return nil
			}
		case '%':
			if i == len(p)-1 {
				c.emit(op{kind: kFail})
				return nil
			}
			switch e := p[i+1]; {
			case e == 'b':
				if i+3 >= len(p) {
					c.emit(op{kind: kFail})
					return nil
				}
				c.emit(op{kind: kBalance, c: p[i+2], d: p[i+3]})
				i += 4
				continue
			case e == '0':
				return fmt.Errorf("invalid capture index at %d", i)
			case e >= '1' && e <= '9':
				k := int(e - '1')
				if k >= len(c.closed) || !c.closed[k] {
					// An error only if a match gets here, as in Lua.
					c.emit(op{kind: kBadBackref})
				} else {
					c.emit(op{kind: kBackref, arg: int32(k)})
				}
				i += 2
				continue
			}
		}
		o, next, err := c.single(i)
		if err != nil {
			return err
		}
		if next < len(p) {
			switch p[next] {
			case '*':
				o.rep, next = star, next+1
			case '+':
				o.rep, next = plus, next+1
			case '-':
				o.rep, next = minus, next+1
			case '?':
				o.rep, next = opt, next+1
			}
		}
		c.emit(o)
		i = next
	}
	return nil
}

// single compiles the single-character item at p[i] and returns the index
// after it.
func (c *compiler) single(i int) (op, int, error) {
	p := c.src
	switch p[i] {
	case '.':
		return op{kind: kAny}, i + 1, nil
	case '%':
		e := p[i+1]
		if cl, ok := classOf(e); ok {
			return c.set(cl), i + 2, nil
		}
		return op{kind: kChar, c: e}, i + 2, nil
	case '[':
		return c.bracket(i)
	}
	return op{kind: kChar, c: p[i]}, i + 1, nil
}

func (c *compiler) set(b bitset) op {
	c.pat.sets = append(c.pat.sets, b)
	return op{kind: kSet, arg: int32(len(c.pat.sets) - 1)}
}

// bracket compiles the set opening at p[i] == '['. A ']' right after the
// '[' (or "[^") belongs to the set. A '-' first, or before the closing
// ']' (where it drops a range left open), is itself; any other '-' (or run of them) makes a range of the
// members around it, which is empty unless both are plain bytes: "[a--e]"
// is a-e, "[%a-z]" and "[a-c-e]" are empty ranges (the manual leaves them
// undefined; this is what gopher-lua makes of them).
func (c *compiler) bracket(i int) (op, int, error) {
	p := c.src
	i++
	neg := false
	if i < len(p) && p[i] == '^' {
		neg = true
		i++
	}
	var (
		acc     bitset // the members before the last
		last    member
		any     bool // there is a last member
		pending bool // a '-' waits for the end of a range
	)
	for first := true; ; first = false {
		if i >= len(p) {
			return op{}, 0, fmt.Errorf("unexpected EOS at %d", len(p)-1)
		}
		ch := p[i]
		if ch == ']' && !first {
			i++
			break
		}
		if ch == '-' && any && i+1 < len(p) && p[i+1] != ']' {
			pending = true
			i++
			continue
		}
		var m member
		if ch == '%' {
			if i+1 >= len(p) {
				return op{}, 0, errEOSInSet
			}
			if cl, ok := classOf(p[i+1]); ok {
				m.set = cl
			} else {
				m.set.add(p[i+1])
			}
			i += 2
		} else {
			m = member{c: ch, plain: true}
			m.set.add(ch)
			i++
		}
		if pending && !(ch == '-' && i < len(p) && p[i] == ']') {
			r := member{} // empty, and no end of a range either
			if last.plain && m.plain {
				span(&r.set, last.c, m.c)
			}
			last, pending = r, false
			continue
		}
		acc.or(last.set)
		last, any, pending = m, true, false
	}
	acc.or(last.set)
	if neg {
		acc = acc.not()
	}
	return c.set(acc), i, nil
}

// member is a member of a set: a plain byte c, or a class, escape or range.
type member struct {
	set   bitset
	c     byte
	plain bool
}

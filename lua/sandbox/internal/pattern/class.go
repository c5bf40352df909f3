package pattern

// A bitset is a set of bytes.
type bitset [4]uint64

func (b *bitset) add(c byte)      { b[c>>6] |= 1 << (c & 63) }
func (b *bitset) has(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }
func (b *bitset) or(o bitset)     { b[0], b[1], b[2], b[3] = b[0]|o[0], b[1]|o[1], b[2]|o[2], b[3]|o[3] }
func (b bitset) not() bitset      { return bitset{^b[0], ^b[1], ^b[2], ^b[3]} }
func span(b *bitset, lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		b.add(byte(c))
	}
}

// classes holds the sets of the manual's classes, as in the C locale
// (ASCII only), by letter; the upper-case letter is the complement.
var classes [256]*bitset

func init() {
	var a, c, d, l, p, s, u, w, x, z bitset
	span(&l, 'a', 'z')
	span(&u, 'A', 'Z')
	span(&d, '0', '9')
	a.or(l)
	a.or(u)
	w.or(a)
	w.or(d)
	span(&c, 0, 31)
	c.add(127)
	span(&s, '\t', '\r')
	s.add(' ')
	span(&p, '!', '~')
	p = bitset{p[0] &^ w[0], p[1] &^ w[1], p[2] &^ w[2], p[3] &^ w[3]}
	x.or(d)
	span(&x, 'a', 'f')
	span(&x, 'A', 'F')
	z.add(0)
	for _, e := range []struct {
		letter byte
		set    bitset
	}{{'a', a}, {'c', c}, {'d', d}, {'l', l}, {'p', p}, {'s', s}, {'u', u}, {'w', w}, {'x', x}, {'z', z}} {
		set, comp := e.set, e.set.not()
		classes[e.letter] = &set
		classes[e.letter-'a'+'A'] = &comp
	}
}

// classOf returns the set of class %e, if e names one.
func classOf(e byte) (bitset, bool) {
	if b := classes[e]; b != nil {
		return *b, true
	}
	return bitset{}, false
}

package timerq

import "math/bits"

// divider divides uint64s by a fixed d with a multiply and shifts: a
// wheel places every entry by dividing by its level's slot width, and a
// 64-bit DIV costs tens of cycles. The method is Granlund and
// Montgomery's round-up multiplier with the 65th bit folded into the
// shift: q = (((n - hi(n*m)) >> 1) + hi(n*m)) >> s, exact for every n.
type divider struct {
	m   uint64
	s   uint8
	one bool // d == 1
}

func newDivider(d uint64) divider {
	if d == 1 {
		return divider{one: true}
	}
	l := uint(bits.Len64(d) - 1) // floor(log2 d)
	if d&(d-1) == 0 {
		return divider{m: 0, s: uint8(l - 1)}
	}
	m, rem := bits.Div64(1<<l, 0, d) // floor(2^(64+l) / d)
	m <<= 1
	twice := rem << 1
	if twice >= d || twice < rem {
		m++
	}
	return divider{m: m + 1, s: uint8(l)}
}

func (v divider) div(n uint64) uint64 {
	if v.one {
		return n
	}
	q, _ := bits.Mul64(n, v.m)
	return (((n - q) >> 1) + q) >> v.s
}

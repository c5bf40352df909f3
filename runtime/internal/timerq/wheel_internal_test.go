package timerq

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDivider(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ds := []uint64{1, 2, 3, 7, 10, 40, 50, 64, 120, 1e6, 5e7, 5e8, 18e9, 1<<63 + 1, math.MaxUint64, 1 << 63}
	for range 200 {
		ds = append(ds, r.Uint64()>>r.UintN(64)|1, r.Uint64N(1e12)+1)
	}
	for _, d := range ds {
		v := newDivider(d)
		ns := []uint64{0, 1, d - 1, d, d + 1, 2*d - 1, math.MaxUint64, math.MaxUint64 - 1, math.MaxUint64 / d * d}
		for range 2000 {
			ns = append(ns, r.Uint64(), r.Uint64()>>r.UintN(64))
		}
		for _, n := range ns {
			if got := v.div(n); got != n/d {
				t.Fatalf("%d / %d = %d, want %d", n, d, got, n/d)
			}
		}
	}
}

func TestSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 15, 16, 17, 100, 1000, 5000} {
		for _, spread := range []int64{1, 3, 1 << 40} {
			s := make([]wkey, n)
			for i := range s {
				s[i] = wkey{when: r.Int64N(spread), seq: r.Uint64N(uint64(n) + 1), id: int32(i)}
			}
			sortKeys(s)
			for i := 1; i < n; i++ {
				if s[i].less(s[i-1]) {
					t.Fatalf("n=%d spread=%d: out of order at %d", n, spread, i)
				}
			}
		}
	}
}

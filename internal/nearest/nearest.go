// Package nearest finds the names closest to a mistyped one, for "did you
// mean" suggestions in error messages.
//
// # Distance
//
// Names are compared case-insensitively with '_', '-' and '?' ignored, so
// "scheduleOnce", "schedule_once" and "schedule-once" are one name; what is
// left is compared by edit distance (insertions, deletions, substitutions
// and transpositions of adjacent letters). A name is near when its distance
// is at most a quarter of the longer name's length (at least 1); only
// the nearest of those are offered.
//
// Nothing here is meant for a hot path: call it once a lookup has failed.
package nearest

import (
	"cmp"
	"slices"
	"strings"
)

// Names returns up to n of candidates nearest to name, all at the same
// distance (ties in candidates' order), without duplicates. It returns nil when none
// is near.
func Names(name string, candidates []string, n int) []string {
	key := fold(name)
	type hit struct {
		name string
		d, i int
	}
	var hits []hit
	for i, c := range candidates {
		ck := fold(c)
		limit := max(len(key), len(ck)) / 4
		if limit < 1 {
			limit = 1
		}
		if abs(len(key)-len(ck)) > limit {
			continue
		}
		if d := distance(key, ck); d <= limit {
			hits = append(hits, hit{c, d, i})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.d, b.d) })
	var out []string
	for _, h := range hits {
		if len(out) == n || h.d > hits[0].d {
			break
		}
		if !slices.Contains(out, h.name) {
			out = append(out, h.name)
		}
	}
	return out
}

// Phrase returns "; did you mean 'a'?" or "; did you mean 'a' or 'b'?" for
// names, or "" for none.
func Phrase(names []string) string {
	if len(names) == 0 {
		return ""
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	if len(q) == 1 {
		return "; did you mean " + q[0] + "?"
	}
	return "; did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1] + "?"
}

func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range strings.ToLower(s) {
		if r != '_' && r != '-' && r != '?' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// distance is the optimal string alignment distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

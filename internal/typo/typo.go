// Package typo finds the name a misspelt one was meant to be, for the
// "did you mean" of an unknown parameter.
package typo

import "strings"

// alwaysCompared is the length (bytes) up to which a name is compared
// whatever the known names' lengths.
const alwaysCompared = 64

// Closest returns the known name closest to name, if it is close enough to
// be a likely typo: a case-insensitive match, or at most two edits and
// fewer edits than half the name's length.
func Closest(name string, known []string) string {
	// Two edits cannot bridge a longer difference in length; the check
	// also keeps a megabyte-long key out of the quadratic edit distance.
	longest := 0
	for _, k := range known {
		longest = max(longest, len(k))
	}
	if len(name) > max(alwaysCompared, 4*(longest+2)) {
		return ""
	}
	best, bestD := "", 3
	lower := strings.ToLower(name)
	for _, k := range known {
		if strings.ToLower(k) == lower {
			return k
		}
		d := editDistance(lower, strings.ToLower(k))
		if d < bestD && d*2 <= max(len(name), len(k)) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Damerau (optimal string alignment) distance between
// a and b in runes: insertions, deletions, substitutions and swaps of two
// neighbours each cost one.
func editDistance(a, b string) int {
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
			if transposed(ra, rb, i, j) {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// transposed reports whether the runes before a[i] and b[j] are the same
// two, swapped.
func transposed(a, b []rune, i, j int) bool {
	return i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1]
}

package validate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxShown is the longest string value quoted back to the model; longer
// values are described by their length, so a pasted document never ends up
// echoed in the error.
const maxShown = 40

// expectedType describes the JSON a plan node accepts, with an article.
func expectedType(n *node) string {
	switch n.kind {
	case kPtr:
		return expectedType(n.elem)
	case kText, kUnmarshal:
		return "a valid " + n.typ.Name()
	}
	if w, ok := typeWords[n.kind]; ok {
		return w
	}
	return "a JSON value"
}

// typeWords are the JSON types of the plan kinds that need no more.
var typeWords = map[kind]string{
	kString: "a string",
	kBool:   "a boolean",
	kInt:    "an integer",
	kUint:   "a non-negative integer",
	kFloat:  "a number",
	kStruct: "an object",
	kMap:    "an object",
	kSlice:  "an array",
	kArray:  "an array",
	kTime:   `an RFC 3339 date-time string (e.g. "2026-01-02T15:04:05Z")`,
}

// describeJSON describes a decoded JSON value for "got …".
func describeJSON(v any, secret bool) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if secret {
			return "a string"
		}
		if utf8.RuneCountInString(x) > maxShown {
			return "a string of " + strconv.Itoa(utf8.RuneCountInString(x)) + " characters"
		}
		return "the string " + strconv.Quote(x)
	case float64, json.Number:
		if secret {
			return "a number"
		}
		return "the number " + gotJSON(v, false)
	case bool:
		if secret {
			return "a boolean"
		}
		return "the boolean " + strconv.FormatBool(x)
	case map[string]any:
		return "an object"
	case []any:
		return "an array of " + measureOf(cList).count(strconv.Itoa(len(x)))
	}
	return "a value"
}

// gotJSON is the short machine-readable rendering of a decoded JSON value
// for Violation.Got: empty when secret, too long or not a scalar.
func gotJSON(v any, secret bool) string {
	if secret {
		return ""
	}
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if utf8.RuneCountInString(x) > maxShown {
			return ""
		}
		return strconv.Quote(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		if len(x) > maxShown {
			return ""
		}
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// gotGo renders a Go value the validator judged, for Violation.Got, and
// the " got …" tail of the message.
func gotGo(v any, kind reflect.Kind, secret bool) (got, tail string) {
	if secret {
		return "", ""
	}
	switch cl := classOf(kind, reflect.TypeOf(v)); cl {
	case cString:
		s := fmt.Sprint(v)
		if n := utf8.RuneCountInString(s); n > maxShown {
			return "", ", got a string of " + strconv.Itoa(n) + " characters"
		}
		got = strconv.Quote(s)
	case cNumber, cBool:
		got = fmt.Sprint(v)
	case cList, cMap:
		rv := reflect.ValueOf(v)
		if !rv.IsValid() {
			return "", ""
		}
		got = measureOf(cl).count(strconv.Itoa(rv.Len()))
	case cTime:
		got = v.(time.Time).Format(time.RFC3339Nano)
	default:
		return "", ""
	}
	return got, ", got " + got
}

// quoteList renders names as "a", "b", "c".
func quoteList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(n))
	}
	return b.String()
}

// suggest returns the known name closest to name, if it is close enough to
// be a likely typo: a case-insensitive match, or at most two edits and
// fewer edits than half the name's length.
func suggest(name string, known []string) string {
	// Two edits cannot bridge a longer difference in length; the check
	// also keeps a megabyte-long key out of the quadratic edit distance.
	longest := 0
	for _, k := range known {
		longest = max(longest, len(k))
	}
	if len(name) > max(maxKey, 4*(longest+2)) {
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
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

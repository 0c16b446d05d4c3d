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

// describeJSON describes a decoded JSON value for "got …": a scalar by
// its value (gotJSON), by its type alone when secret, by its length when
// too long to show.
func describeJSON(v any, secret bool) string {
	var word string
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		word = "string"
	case float64, json.Number:
		word = "number"
	case bool:
		word = "boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "an array of " + measureOf(cList).count(strconv.Itoa(len(x)))
	default:
		return "a value"
	}
	if secret {
		return "a " + word
	}
	if got := gotJSON(v, false); got != "" {
		return "the " + word + " " + got
	}
	return "a " + word + " of " + strconv.Itoa(utf8.RuneCountInString(fmt.Sprint(v))) + " characters"
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

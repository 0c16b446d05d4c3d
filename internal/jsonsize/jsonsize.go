// Package jsonsize sizes and cuts what an SDK adapter sends, without
// encoding it: the answer-size cap of both adapters (wrap.WithResultLimit)
// measures a result by walking it.
package jsonsize

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Value is the size of v encoded by encoding/json, walked for the types a
// decoded or hand-built value holds (maps, slices, strings, numbers,
// booleans), encoded once otherwise; the error is the one encoding would
// return for a NaN or an infinity.
func Value(v any) (int, error) { return valueSize(v, 0) }

// Base64 is the encoded size of n bytes of binary data.
func Base64(n int) int { return (n + 2) / 3 * 4 }

// CutText cuts s to at most n bytes at a rune boundary.
func CutText(s string, n int) string { return cutText(s, n) }

// CutMiddle cuts s to at most n bytes by leaving out its middle, at rune
// boundaries, with a mark saying how many bytes are missing: the head and
// the tail of an error are kept (its cause is usually at its end). Below
// the room for the mark, it is CutText.
func CutMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	room := n - len(middleMark(len(s))) // the mark names at most len(s) bytes
	if room < 64 {
		return cutText(s, n)
	}
	head := room / 2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (room - head)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return strings.ToValidUTF8(s[:head], "") + middleMark(tail-head) + strings.ToValidUTF8(s[tail:], "")
}

func middleMark(n int) string { return "\n…[" + strconv.Itoa(n) + " bytes left out]…\n" }

var errNotFinite = errors.New("json: unsupported value: NaN or ±Inf")

// maxWalkDepth bounds the walk of structured content; deeper values are
// encoded instead (encoding/json has its own limit).
const maxWalkDepth = 64

// valueSize is the encoded size of v, walked for the types a decoded or
// hand-built value holds, encoded otherwise.
func valueSize(v any, depth int) (int, error) {
	if depth > maxWalkDepth {
		return encodedSize(v)
	}
	switch x := v.(type) {
	case nil:
		return 4, nil
	case string:
		return stringSize(x), nil
	case bool:
		return 5, nil
	case float64:
		return finiteSize(x, 24)
	case float32:
		return finiteSize(float64(x), 16)
	case int, int64, int32, uint, uint64, uint32:
		return 20, nil
	case json.Number:
		return len(x), nil
	case map[string]any:
		return objectSize(x, depth)
	case []any:
		return arraySize(x, depth)
	}
	return encodedSize(v)
}

// finiteSize is size, the most a float's encoding takes, or errNotFinite
// for a value encoding/json rejects.
func finiteSize(f float64, size int) (int, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errNotFinite
	}
	return size, nil
}

func objectSize(x map[string]any, depth int) (int, error) {
	n := 2 // {}
	for k, e := range x {
		m, err := valueSize(e, depth+1)
		if err != nil {
			return 0, err
		}
		n += stringSize(k) + 2 + m // "k":v,
	}
	return n, nil
}

func arraySize(x []any, depth int) (int, error) {
	n := 2 // []
	for _, e := range x {
		m, err := valueSize(e, depth+1)
		if err != nil {
			return 0, err
		}
		n += m + 1 // v,
	}
	return n, nil
}

func encodedSize(v any) (int, error) {
	b, err := json.Marshal(v)
	return len(b), err
}

// cutText cuts s to at most n bytes at a rune boundary.
func cutText(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.ToValidUTF8(s[:n], "")
}

// stringSize is the size of s encoded by encoding/json: quoted, with
// control characters, quotes, backslashes and HTML's <, > and & escaped.
func stringSize(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n', '\r', '\t':
			n++
		case '<', '>', '&':
			n += 5
		default:
			if c < 0x20 {
				n += 5
			}
		}
	}
	return n
}

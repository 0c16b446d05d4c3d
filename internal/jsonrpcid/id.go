// Package jsonrpcid reads JSON-RPC request ids into one canonical JSON text,
// so two ids are the same id exactly when their texts are equal: wrap/outbound
// matches responses to requests with it, and so do cmd/mcpwrap's audit and
// wrap/mcpgo's stdio drain (which reads numbers as mcp-go does, ParseAsFloat).
package jsonrpcid

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Parse reads an id from its JSON text: a string or a number. It returns the
// id's canonical JSON text: a string re-encoded (so "\u0031" is "1"), an
// integer in decimal (1, 1.0 and 1e0 are the same id, 1), any other number
// as sent. 1 and "1" stay different ids. null and anything else report false.
func Parse(raw []byte) (string, bool) { return parse(raw, exact) }

// ParseAsFloat is Parse for a peer that decodes every number into a float64
// and writes its answers' ids anew from it (mcp-go): two numbers are one id
// when their float64 values are equal (1.50 and 1.5, 2^53 and 2^53+1, which
// Parse keeps apart), and a number's text is its float64's shortest form.
func ParseAsFloat(raw []byte) (string, bool) { return parse(raw, float) }

// parse reads a string id itself and hands a number's text to number.
func parse(raw []byte, number func([]byte) (string, bool)) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return String(s), true
	}
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return "", false
	}
	return number(raw)
}

// exact is Parse's reading of a number.
func exact(raw []byte) (string, bool) {
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return strconv.FormatInt(n, 10), true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return "", false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10), true
	}
	return string(raw), true
}

// float is ParseAsFloat's reading of a number.
func float(raw []byte) (string, bool) {
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return "", false
	}
	return strconv.FormatFloat(f, 'g', -1, 64), true
}

// Canonical returns the canonical text of an id given as JSON text, or the
// text unchanged when it is not an id (then it matches no response's id).
func Canonical(text string) string {
	if id, ok := Parse([]byte(text)); ok {
		return id
	}
	return text
}

// String returns the canonical text of the string id s: JSON, without the
// HTML escaping encoding/json applies by default.
func String(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

package call

import (
	"encoding/json"
	"reflect"
)

// NotObject says what a tool call's arguments are when they are not a JSON
// object, as MCP requires: "a string", "a number", "a boolean", "an array";
// "" when they are an object, null or absent (an empty object). It reads
// Raw when the SDK kept it, else Args as the SDK decoded them (a Go value
// an in-process client passed, such as a struct, counts as an object). It
// allocates nothing.
func (r *Request) NotObject() string {
	if len(r.Raw) > 0 {
		return rawKind(r.Raw)
	}
	switch a := r.Args.(type) {
	case nil, map[string]any, map[string]string:
		return ""
	case json.RawMessage:
		return rawKind(a)
	case []byte:
		return rawKind(a)
	}
	return kindPhrase(reflect.TypeOf(r.Args).Kind())
}

// kindPhrase names the JSON a Go value of kind k encodes to, when it is
// not an object.
func kindPhrase(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return ""
}

// rawKind is NotObject for JSON text, judged by its first token.
func rawKind(raw []byte) string {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', 'n':
			return ""
		case '"':
			return "a string"
		case '[':
			return "an array"
		case 't', 'f':
			return "a boolean"
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return "a number"
		}
		return "" // not JSON: the SDK's decoder answers that
	}
	return ""
}

// ArgumentsNotObject is the sentence for arguments that are not a JSON
// object, got saying what they are ("a string", or, once decoded, "an array
// of 2 items"): the one wording the chain and package validate use.
func ArgumentsNotObject(got string) string {
	return "the arguments must be a JSON object, got " + got
}

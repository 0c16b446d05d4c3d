// Package jsonerr recognises encoding/json's type errors about a call's
// arguments — as an error value or as its sentence, which servers keep
// when they wrap it with %s — and turns them into InvalidArgument errors
// naming the parameter, once the arguments bear them out: they must hold
// a value of the reported JSON kind at the reported path (and offset).
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/jsonnum"
)

// FromTypeError returns ute as the InvalidArgument error it describes when
// raw, the arguments it was decoded from, holds a value of its JSON kind at
// its path and offset.
func FromTypeError(ute *json.UnmarshalTypeError, raw []byte) (*errs.Error, bool) {
	return fromTypeError(ute, raw, ute.Offset)
}

// FromTypeErrorAnywhere is FromTypeError for an error whose offset is in
// another text than raw (arguments re-encoded before decoding): the value
// may be anywhere at its path.
func FromTypeErrorAnywhere(ute *json.UnmarshalTypeError, raw []byte) (*errs.Error, bool) {
	return fromTypeError(ute, raw, -1)
}

func fromTypeError(ute *json.UnmarshalTypeError, raw []byte, offset int64) (*errs.Error, bool) {
	if ute.Type == nil {
		return nil, false
	}
	kind := jsonKind(ute.Value)
	if !valueAt(raw, fieldPath(ute.Field), kind, offset) {
		return nil, false
	}
	if e, ok := numberViolation(ute, paramPath(ute.Field), ute.Value, integerKind(ute.Type)); ok {
		return e, true
	}
	return typeViolation(ute, paramPath(ute.Field), expectedJSON(ute.Type), kind), true
}

// integerKind is t's kind, through pointers.
func integerKind(t reflect.Type) reflect.Kind {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind()
}

// kindNamed is the kind of the Go integer type named name ("uint32"), or
// reflect.Invalid.
func kindNamed(name string) reflect.Kind {
	for k := reflect.Int; k <= reflect.Uintptr; k++ {
		if k.String() == name {
			return k
		}
	}
	return reflect.Invalid
}

// numberViolation is the error for a JSON number that the integer kind k
// cannot hold, value being how the decoder named it ("number 1.5";
// github.com/segmentio/encoding/json: "number 1e+30 overflows" or
// "\"1e+30\""): a fraction is told `must be an integer, got the number
// 1.5`, an integer out of range `must be an integer between 0 and
// 4294967295, got the number 99999999999` (the bare "got number" said
// neither). ok is false for another value or kind.
func numberViolation(cause error, param, value string, k reflect.Kind) (*errs.Error, bool) {
	lo, hi, isInt := jsonnum.Range(k)
	if !isInt || param == "" {
		return nil, false
	}
	lit, ok := numberText(value)
	if !ok {
		return nil, false
	}
	expected := "an integer"
	switch w, r := jsonnum.OfNumber(json.Number(lit)); {
	case r == jsonnum.IsWhole && w.Fits(k):
		// In range, but written as 2.0 or 1e2, which encoding/json does
		// not read into an integer.
		expected = "an integer written without a fraction or exponent"
	case r != jsonnum.IsFraction:
		expected = "an integer between " + lo + " and " + hi
	}
	msg := "parameter " + strconv.Quote(param) + " must be " + expected + ", got the number " + lit
	v := errs.Violation{Parameter: param, Rule: "type", Expected: expected, Got: "number", Message: msg}
	return errs.Wrap(errs.InvalidArgument, cause, msg, errs.Violations(v)), true
}

// numberText is the JSON number a type error's value names.
func numberText(value string) (string, bool) {
	if text, err := strconv.Unquote(value); err == nil && strings.HasPrefix(value, `"`) {
		return text, textKind(text) == "number"
	}
	rest, ok := strings.CutPrefix(value, "number ")
	if !ok {
		return "", false
	}
	lit, _, _ := strings.Cut(rest, " ")
	if _, err := strconv.ParseFloat(lit, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return "", false
	}
	return lit, true
}

// jsonKind is the JSON kind encoding/json names first in value ("bool" is
// "boolean"). github.com/segmentio/encoding/json (go-sdk's decoder) puts
// the start of the value's JSON text there instead, quoted ("\"1e+30\""):
// its kind is read from that text.
func jsonKind(value string) string {
	if text, err := strconv.Unquote(value); err == nil && strings.HasPrefix(value, `"`) {
		return textKind(text)
	}
	kind, _, _ := strings.Cut(value, " ")
	if kind == "bool" {
		return "boolean"
	}
	return kind
}

// textKind is the JSON kind of a value's text, by its first byte.
func textKind(text string) string {
	if text == "" {
		return ""
	}
	switch c := text[0]; {
	case c == '"':
		return "string"
	case c == '-' || c >= '0' && c <= '9':
		return "number"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	}
	return ""
}

// Innermost returns the end of err's Unwrap chain (the first branch of a
// joined error).
func Innermost(err error) error {
	for range 64 {
		next := unwrapFirst(err)
		if next == nil {
			return err
		}
		err = next
	}
	return err
}

// unwrapFirst is the error err wraps, or the first of those it joins; nil
// if none.
func unwrapFirst(err error) error {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return u.Unwrap()
	case interface{ Unwrap() []error }:
		if errs := u.Unwrap(); len(errs) > 0 {
			return errs[0]
		}
	}
	return nil
}

// typeViolation is the error for a value of the wrong JSON type at param.
func typeViolation(cause error, param, expected, kind string) *errs.Error {
	msg := "parameter " + strconv.Quote(param) + " must be " + expected + ", got " + kind
	if param == "" {
		msg = "the arguments must be " + expected + ", got " + kind
	}
	v := errs.Violation{Parameter: param, Rule: "type", Expected: expected, Got: kind, Message: msg}
	return errs.Wrap(errs.InvalidArgument, cause, msg, errs.Violations(v))
}

// expectedJSON names the JSON that a Go type accepts.
func expectedJSON(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if w, ok := kindWords[t.Kind()]; ok {
		return w
	}
	return "a value of another type"
}

// kindWords name the JSON that values of a Go kind come from.
var kindWords = map[reflect.Kind]string{
	reflect.String: "a string",
	reflect.Bool:   "a boolean",
	reflect.Int:    "an integer", reflect.Int8: "an integer", reflect.Int16: "an integer", reflect.Int32: "an integer", reflect.Int64: "an integer",
	reflect.Uint: "an integer", reflect.Uint8: "an integer", reflect.Uint16: "an integer", reflect.Uint32: "an integer", reflect.Uint64: "an integer", reflect.Uintptr: "an integer",
	reflect.Float32: "a number", reflect.Float64: "a number",
	reflect.Slice: "an array", reflect.Array: "an array",
	reflect.Map: "an object", reflect.Struct: "an object",
}

// valueAt reports whether raw holds, at path (object keys; array elements
// share their array's path, as in encoding/json's error), a value of the
// JSON kind at offset (where encoding/json reports a type error in it), or
// anywhere for a negative offset.
func valueAt(raw []byte, path []string, kind string, offset int64) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	w := walker{dec: dec, raw: raw, path: path, kind: kind, offset: offset}
	w.value(0, 0)
	return w.found
}

type walker struct {
	dec    *json.Decoder
	raw    []byte
	path   []string
	kind   string
	offset int64
	found  bool
	failed bool
}

// value reads one value at depth (how many keys of path matched; -1 once
// off the path) and records a match.
func (w *walker) value(matched, nesting int) {
	if w.failed || nesting > 10000 {
		w.failed = true
		return
	}
	start := valueStart(w.raw, w.dec.InputOffset())
	tok, err := w.dec.Token()
	if err != nil {
		w.failed = true
		return
	}
	// encoding/json reports a type error at the end of a literal, or just
	// after the bracket that opens an array or object: here; under
	// GOEXPERIMENT=jsonv2, at the value's first byte: start.
	at := w.dec.InputOffset()
	kind := tokenKind(tok)
	if d, ok := tok.(json.Delim); ok && !w.container(d, matched, nesting) {
		return
	}
	if matched == len(w.path) && kind == w.kind && w.at(start, at) {
		w.found = true
	}
}

// container reads the items of the array or object d opened, and its
// closing bracket; false when that cannot be read.
func (w *walker) container(d json.Delim, matched, nesting int) bool {
	for i := 0; w.dec.More() && !w.failed; i++ {
		key := strconv.Itoa(i) // encoding/json v1 gives an element its array's path; jsonv2 appends the index
		off := matched         // an array's items stay on their array's path
		if d == '{' {
			k, err := w.dec.Token()
			var ok bool
			if key, ok = k.(string); err != nil || !ok {
				w.failed = true
				return false
			}
			off = -1
		}
		next := off
		if matched >= 0 && matched < len(w.path) && w.path[matched] == key {
			next = matched + 1
		}
		w.value(next, nesting+1)
	}
	if _, err := w.dec.Token(); err != nil {
		w.failed = true
		return false
	}
	return true
}

// at reports whether a value from start to end is where the error said.
func (w *walker) at(start, end int64) bool {
	switch {
	case w.offset < 0:
		return true
	case jsonv2:
		return w.offset == start
	default:
		return w.offset == end
	}
}

// tokenKind is the JSON kind of the value tok starts.
func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return ""
}

// jsonv2 reports whether encoding/json is the GOEXPERIMENT=jsonv2 one,
// whose type errors carry the offset where the value starts (v1: where it
// ends) and an array item's index in Field. TestArgumentErrorRecognisesBindArguments
// runs under both in CI.
var jsonv2 = func() bool {
	var v struct{ A int }
	var ute *json.UnmarshalTypeError
	return errors.As(json.Unmarshal([]byte(`{"A":"x"}`), &v), &ute) && ute.Offset == 5
}()

// valueStart is the offset of the value that follows off: past white space
// and the ':' or ',' before it.
func valueStart(raw []byte, off int64) int64 {
	for off < int64(len(raw)) {
		switch raw[off] {
		case ' ', '\t', '\n', '\r', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

// Sentence starts the text of encoding/json's *UnmarshalTypeError.
const Sentence = "json: cannot unmarshal "

// MaxArguments bounds the arguments the adapters re-read to confirm a
// decoding error; larger ones are not recognised (the error is answered
// as any other).
const MaxArguments = 1 << 20

// maxText bounds the text FromText searches for Sentence.
const maxText = 512

// FromText is FromSentence for an error whose text holds Sentence
// anywhere (wrapped with %s or %v, the type lost): msg is that text, the
// innermost error's. A sentence about the whole value ("into Go value of
// type T") is left alone: the arguments are always an object, and so is
// many an upstream's answer that fails to decode.
func FromText(msg string, arguments func() ([]byte, bool), cause error) (*errs.Error, bool) {
	i := strings.Index(msg, Sentence)
	if i < 0 || len(msg) > maxText || strings.Contains(msg[i:], " into Go value of type ") {
		return nil, false
	}
	return FromSentence(msg[i+len(Sentence):], arguments, cause)
}

// FromSentence reads the rest of a *json.UnmarshalTypeError's text, after
// Sentence, and returns cause as the InvalidArgument error it describes
// when the arguments (raw, read only then) hold a value of the named JSON
// kind at the named path.
func FromSentence(rest string, arguments func() ([]byte, bool), cause error) (*errs.Error, bool) {
	value, rest, ok := strings.Cut(rest, " into ")
	if !ok {
		return nil, false
	}
	kind := jsonKind(value)
	field, typ, ok := target(rest)
	if !ok {
		return nil, false
	}
	raw, ok := arguments()
	if !ok {
		return nil, false
	}
	if !valueAt(raw, fieldPath(field), kind, -1) {
		return nil, false
	}
	if e, ok := numberViolation(cause, paramPath(field), value, kindNamed(typ)); ok {
		return e, true
	}
	return typeViolation(cause, paramPath(field), expectedGo(typ), kind), true
}

// fieldPath is the path of a dotted field name; nil for the top level.
func fieldPath(field string) []string {
	if field == "" {
		return nil
	}
	return strings.Split(field, ".")
}

// target reads what a type error's text says the value was decoded into,
// after " into ": the field path ("" for the arguments themselves) and the
// Go type. encoding/json v1 says "Go struct field T.a.b of type X" or "Go
// value of type X"; jsonv2 says "T.a.b.0 of type X".
func target(into string) (field, typ string, ok bool) {
	if r, ok := strings.CutPrefix(into, "Go "); ok {
		into = r
	} else {
		into = "struct field " + into
	}
	if typ, ok := strings.CutPrefix(into, "value of type "); ok {
		return "", typ, true
	}
	f, ok := strings.CutPrefix(into, "struct field ")
	if !ok {
		return "", "", false
	}
	where, typ, ok := strings.Cut(f, " of type ")
	if !ok {
		return "", "", false
	}
	if _, field, ok = strings.Cut(where, "."); !ok {
		return "", "", false
	}
	return field, typ, true
}

// paramPath writes encoding/json's field path as a parameter path: jsonv2's
// array indexes ("opts.units.1") become "opts.units[1]".
func paramPath(field string) string {
	if !strings.ContainsAny(field, "0123456789") {
		return field
	}
	parts := strings.Split(field, ".")
	var b strings.Builder
	for i, p := range parts {
		if _, err := strconv.Atoi(p); err == nil && i > 0 {
			b.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// expectedGo names the JSON that a Go type, written as encoding/json writes
// it, accepts.
func expectedGo(typ string) string {
	switch {
	case strings.HasPrefix(typ, "[]"), strings.HasPrefix(typ, "["):
		return "an array"
	case strings.HasPrefix(typ, "map["):
		return "an object"
	case typ == "string":
		return "a string"
	case typ == "bool":
		return "a boolean"
	case strings.HasPrefix(typ, "int"), strings.HasPrefix(typ, "uint"):
		return "an integer"
	case strings.HasPrefix(typ, "float"):
		return "a number"
	}
	return "a value of another type"
}

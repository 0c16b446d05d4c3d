package mcpgo

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
)

// argumentError recognises the errors mcp-go returns when a handler reads
// the arguments of req with its own helpers, and returns them as
// InvalidArgument errors whose message is mcp-go's sentence and whose one
// violation names the parameter:
//
//   - every CallToolRequest.Require* helper (RequireString … RequireBoolSlice):
//     `required argument "path" not found`, `argument "path" is not a string`,
//     `item 0 in argument "paths" is not a string`, …;
//   - CallToolRequest.BindArguments (what mcp.NewTypedToolHandler calls): a
//     *json.UnmarshalTypeError, answered as `parameter "days" must be an
//     integer, got string`;
//   - the same error's sentence when a server decoded the arguments itself
//     and kept only the text (mcp-grafana: `fmt.Errorf("unmarshal args:
//     %s", err)`): `json: cannot unmarshal number into Go struct field
//     P.incidentId of type string`, believed when the arguments hold a
//     number at "incidentId".
//
// mcp-go's errors carry no type, so the rule is to believe an error only
// when req bears it out: a Require* error is recognised when the same
// helper, run again on req for the parameter the sentence names, returns
// the same sentence; a *json.UnmarshalTypeError when req's arguments, encoded
// as BindArguments encodes them, hold a value of the reported JSON kind at
// the reported path and the reported byte offset. The error may be wrapped
// (fmt.Errorf("…: %w", err)); the sentence is taken from the innermost error.
// A JSON error from decoding anything else (an upstream's answer) does not
// match, except by a coincidence of path, kind and byte offset. Not
// recognised: errors of a target type's own UnmarshalJSON (e.g. a malformed
// time.Time), fields reached through an embedded struct, and Get* helpers,
// which return defaults instead of errors.
//
// It reports false for any other error, and for an error already carrying
// an *Error, which keeps the code it was given.
func argumentError(err error, req mcp.CallToolRequest) (*errs.Error, bool) {
	if err == nil {
		return nil, false
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return nil, false
	}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		return bindError(ute, req)
	}
	inner := innermost(err)
	if e, ok := textBindError(inner, req); ok {
		return e, true
	}
	return requireError(inner, req)
}

// innermost returns the end of err's Unwrap chain (the first branch of a
// joined error).
func innermost(err error) error {
	for range 64 {
		var next error
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		case interface{ Unwrap() []error }:
			if errs := u.Unwrap(); len(errs) > 0 {
				next = errs[0]
			}
		}
		if next == nil {
			return err
		}
		err = next
	}
	return err
}

// requireHelpers are the Require* helpers of mcp.CallToolRequest, with the
// JSON each expects of the argument and, for slices, of one item.
var requireHelpers = []struct {
	expected, item string
	call           func(mcp.CallToolRequest, string) error
}{
	{"a string", "", func(r mcp.CallToolRequest, k string) error { _, err := r.RequireString(k); return err }},
	{"an integer", "", func(r mcp.CallToolRequest, k string) error { _, err := r.RequireInt(k); return err }},
	{"a number", "", func(r mcp.CallToolRequest, k string) error { _, err := r.RequireFloat(k); return err }},
	{"a boolean", "", func(r mcp.CallToolRequest, k string) error { _, err := r.RequireBool(k); return err }},
	{"an array of strings", "a string", func(r mcp.CallToolRequest, k string) error { _, err := r.RequireStringSlice(k); return err }},
	{"an array of integers", "an integer", func(r mcp.CallToolRequest, k string) error { _, err := r.RequireIntSlice(k); return err }},
	{"an array of numbers", "a number", func(r mcp.CallToolRequest, k string) error { _, err := r.RequireFloatSlice(k); return err }},
	{"an array of booleans", "a boolean", func(r mcp.CallToolRequest, k string) error { _, err := r.RequireBoolSlice(k); return err }},
}

// maxArgumentSentence bounds the text looked at: mcp-go's sentences are a
// parameter name and a few words.
const maxArgumentSentence = 512

func requireError(err error, req mcp.CallToolRequest) (*errs.Error, bool) {
	msg := err.Error()
	if len(msg) > maxArgumentSentence || !strings.Contains(msg, `argument "`) {
		return nil, false
	}
	key, ok := quotedArgument(msg)
	if !ok {
		return nil, false
	}
	for _, h := range requireHelpers {
		got := h.call(req, key)
		if got == nil || got.Error() != msg {
			continue
		}
		v := errs.Violation{Parameter: key, Rule: "type", Expected: h.expected, Message: msg}
		val, present := req.GetArguments()[key]
		switch i, item := itemIndex(msg); {
		case !present:
			// Every helper says the same; which type was wanted is unknown.
			v.Rule, v.Expected = "required", ""
		case item:
			v.Parameter, v.Expected = key+"["+strconv.Itoa(i)+"]", h.item
			if items, ok := val.([]any); ok && i < len(items) {
				v.Got = argKind(items[i])
			}
		default:
			v.Got = argKind(val)
		}
		return errs.Wrap(errs.InvalidArgument, err, msg, errs.Violations(v)), true
	}
	return nil, false
}

// quotedArgument returns the %q-quoted name after `argument ` in msg.
func quotedArgument(msg string) (string, bool) {
	i := strings.Index(msg, `argument "`)
	if i < 0 {
		return "", false
	}
	q, err := strconv.QuotedPrefix(msg[i+len("argument "):])
	if err != nil {
		return "", false
	}
	key, err := strconv.Unquote(q)
	return key, err == nil
}

// itemIndex reads n from "item n in argument …".
func itemIndex(msg string) (int, bool) {
	rest, ok := strings.CutPrefix(msg, "item ")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, " ")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil && n >= 0
}

// argKind names the JSON type of a decoded value.
func argKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64, json.Number, int, int64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// maxBoundArguments bounds the arguments re-read to confirm a binding
// error; larger ones are not recognised (and stay masked).
const maxBoundArguments = 1 << 20

func bindError(ute *json.UnmarshalTypeError, req mcp.CallToolRequest) (*errs.Error, bool) {
	raw, ok := boundJSON(req)
	if !ok || ute.Type == nil {
		return nil, false
	}
	kind, _, _ := strings.Cut(ute.Value, " ")
	if kind == "bool" {
		kind = "boolean"
	}
	var want []string
	if ute.Field != "" {
		want = strings.Split(ute.Field, ".")
	}
	if !valueAt(raw, want, kind, ute.Offset) {
		return nil, false
	}
	return typeViolation(ute, paramPath(ute.Field), expectedJSON(ute.Type), kind), true
}

// textBindError recognises the sentence of a *json.UnmarshalTypeError about
// a struct field whose type was lost (formatted with %s or %v), wherever it
// stands in err's text, as argumentResult does in a result's: the path and
// the JSON kind it names must be in req's arguments (at any offset: the
// text has none).
func textBindError(err error, req mcp.CallToolRequest) (*errs.Error, bool) {
	msg := err.Error()
	i := strings.Index(msg, jsonSentence)
	// A sentence about the whole value ("into Go value of type []T") is
	// left alone: the arguments are always an object, and so is many an
	// upstream's answer that fails to decode.
	if i < 0 || len(msg) > maxArgumentSentence || strings.Contains(msg[i:], " into Go value of type ") {
		return nil, false
	}
	return unmarshalSentence(msg[i+len(jsonSentence):], req, err)
}

// boundJSON returns the JSON BindArguments decodes for req.
func boundJSON(req mcp.CallToolRequest) ([]byte, bool) {
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		switch a := req.Params.Arguments.(type) {
		case json.RawMessage:
			raw = a
		case nil:
			return nil, false
		default:
			b, err := json.Marshal(a)
			if err != nil {
				return nil, false
			}
			raw = b
		}
	}
	return raw, len(raw) <= maxBoundArguments
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
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a value of another type"
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
	kind := ""
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			kind = "array"
			for i := 0; w.dec.More() && !w.failed; i++ {
				// encoding/json v1 gives an element its array's path;
				// jsonv2 appends the index.
				next := matched
				if matched >= 0 && matched < len(w.path) && w.path[matched] == strconv.Itoa(i) {
					next = matched + 1
				}
				w.value(next, nesting+1)
			}
		} else {
			kind = "object"
			for w.dec.More() && !w.failed {
				k, err := w.dec.Token()
				key, ok := k.(string)
				if err != nil || !ok {
					w.failed = true
					return
				}
				next := -1
				if matched >= 0 && matched < len(w.path) && w.path[matched] == key {
					next = matched + 1
				}
				w.value(next, nesting+1)
			}
		}
		if _, err := w.dec.Token(); err != nil {
			w.failed = true
			return
		}
	case string:
		kind = "string"
	case json.Number:
		kind = "number"
	case bool:
		kind = "boolean"
	case nil:
		kind = "null"
	}
	if matched == len(w.path) && kind == w.kind && (w.offset < 0 || (!jsonv2 && w.offset == at) || (jsonv2 && w.offset == start)) {
		w.found = true
	}
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

// typedPrefix starts the isError result mcp.NewTypedToolHandler and
// mcp.NewStructuredToolHandler return when BindArguments fails.
const typedPrefix = "failed to bind arguments: "

// argumentResult recognises the isError result with which mcp-go's typed
// handlers (mcp.NewTypedToolHandler, mcp.NewStructuredToolHandler) answer
// a binding failure — "failed to bind arguments: json: cannot unmarshal
// string into Go struct field Args.days of type int" — and returns it as
// the InvalidArgument error argumentError gives for the same failure. Only
// the text is left of the error, so the rule is weaker than
// argumentError's: req must hold a value of the named JSON kind at the
// named path (the byte offset is not known).
func argumentResult(res *mcp.CallToolResult, req mcp.CallToolRequest) (*errs.Error, bool) {
	if res == nil || !res.IsError || len(res.Content) != 1 || res.StructuredContent != nil {
		return nil, false
	}
	var text string
	switch c := res.Content[0].(type) {
	case mcp.TextContent:
		text = c.Text
	case *mcp.TextContent:
		text = c.Text
	}
	rest, ok := strings.CutPrefix(text, typedPrefix+jsonSentence)
	if !ok || len(rest) > maxArgumentSentence {
		return nil, false
	}
	return unmarshalSentence(rest, req, errors.New(text))
}

// jsonSentence starts the text of encoding/json's *UnmarshalTypeError.
const jsonSentence = "json: cannot unmarshal "

// unmarshalSentence reads the rest of a *json.UnmarshalTypeError's text,
// after jsonSentence, and returns cause as the InvalidArgument error it
// describes when req holds a value of the named JSON kind at the named path.
func unmarshalSentence(rest string, req mcp.CallToolRequest, cause error) (*errs.Error, bool) {
	value, rest, ok := strings.Cut(rest, " into ")
	if !ok {
		return nil, false
	}
	kind, _, _ := strings.Cut(value, " ")
	var field, typ string
	// encoding/json v1 says "into Go struct field T.a.b of type X"; jsonv2
	// says "into T.a.b.0 of type X".
	if r, ok := strings.CutPrefix(rest, "Go "); ok {
		rest = r
	} else {
		rest = "struct field " + rest
	}
	if f, ok := strings.CutPrefix(rest, "struct field "); ok {
		var where string
		where, typ, ok = strings.Cut(f, " of type ")
		if !ok {
			return nil, false
		}
		if _, field, ok = strings.Cut(where, "."); !ok {
			return nil, false
		}
	} else if typ, ok = strings.CutPrefix(rest, "value of type "); !ok {
		return nil, false
	}
	raw, ok := boundJSON(req)
	if !ok {
		return nil, false
	}
	if kind == "bool" {
		kind = "boolean"
	}
	var path []string
	if field != "" {
		path = strings.Split(field, ".")
	}
	if !valueAt(raw, path, kind, -1) {
		return nil, false
	}
	return typeViolation(cause, paramPath(field), expectedGo(typ), kind), true
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

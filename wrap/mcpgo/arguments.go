package mcpgo

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/jsonerr"
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
	inner := jsonerr.Innermost(err)
	if e, ok := jsonerr.FromText(inner.Error(), func() ([]byte, bool) { return boundJSON(req) }, inner); ok {
		return e, true
	}
	return requireError(inner, req)
}

// requireHelper is one of mcp-go's Require helpers: the type it expects
// of an argument (and of its items), and a call of it.
type requireHelper struct {
	expected, item string
	call           func(mcp.CallToolRequest, string) error
}

// requireHelpers are the Require* helpers of mcp.CallToolRequest, with the
// JSON each expects of the argument and, for slices, of one item.
var requireHelpers = []requireHelper{
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
		return errs.Wrap(errs.InvalidArgument, err, msg, errs.Violations(h.violation(req, key, msg))), true
	}
	return nil, false
}

// violation is what msg, the sentence of helper h about the argument key,
// says is wrong: key is missing, or it (or one of its items) has the
// wrong type.
func (h requireHelper) violation(req mcp.CallToolRequest, key, msg string) errs.Violation {
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
	return v
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

func bindError(ute *json.UnmarshalTypeError, req mcp.CallToolRequest) (*errs.Error, bool) {
	raw, ok := boundJSON(req)
	if !ok || ute.Type == nil {
		return nil, false
	}
	return jsonerr.FromTypeError(ute, raw)
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
	return raw, len(raw) <= jsonerr.MaxArguments
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
	text := textOf(res.Content[0])
	rest, ok := strings.CutPrefix(text, typedPrefix+jsonerr.Sentence)
	if !ok || len(rest) > maxArgumentSentence {
		return nil, false
	}
	return jsonerr.FromSentence(rest, func() ([]byte, bool) { return boundJSON(req) }, errors.New(text))
}

// textOf is the text of a text content, "" for any other.
func textOf(c mcp.Content) string {
	switch c := c.(type) {
	case mcp.TextContent:
		return c.Text
	case *mcp.TextContent:
		return c.Text
	}
	return ""
}

package gosdk

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/jsonerr"
)

// maxBoundArguments bounds the arguments re-read to confirm a decoding
// error; larger ones are not recognised (the error is answered as any
// other).
const maxBoundArguments = 1 << 20

// maxArgumentSentence bounds the text searched for encoding/json's
// sentence.
const maxArgumentSentence = 512

// rawArgumentError recognises the error of a raw tool (Server.AddTool)
// that decodes req.Params.Arguments itself and returns encoding/json's
// *json.UnmarshalTypeError, as it is, wrapped with %w or formatted with %s
// (`invalid arguments: %s`): it returns the InvalidArgument naming the
// parameter. It is believed only when raw, the call's arguments, bears it
// out: a value of the reported JSON kind at the reported path (and, for an
// error value, at its offset), so that an upstream's answer that fails to
// decode is not blamed on the caller. An error carrying an *errs.Error
// keeps its code.
func rawArgumentError(err error, raw json.RawMessage) (error, bool) {
	if len(raw) == 0 || len(raw) > maxBoundArguments {
		return nil, false
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return nil, false
	}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		if a, ok := jsonerr.FromTypeError(ute, raw); ok {
			return a, true
		}
		return nil, false
	}
	msg := jsonerr.Innermost(err).Error()
	i := strings.Index(msg, jsonerr.Sentence)
	// A sentence about the whole value ("into Go value of type T") is left
	// alone: the arguments are always an object, and so is many an
	// upstream's answer that fails to decode.
	if i < 0 || len(msg) > maxArgumentSentence || strings.Contains(msg[i:], " into Go value of type ") {
		return nil, false
	}
	a, ok := jsonerr.FromSentence(msg[i+len(jsonerr.Sentence):], func() ([]byte, bool) { return raw, true }, err)
	if !ok {
		return nil, false
	}
	return a, true
}

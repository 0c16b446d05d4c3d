package gosdk

import (
	"encoding/json"
	"errors"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/jsonerr"
)

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
	if len(raw) == 0 || len(raw) > jsonerr.MaxArguments {
		return nil, false
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return nil, false
	}
	var a *errs.Error
	var ok bool
	if ute := (*json.UnmarshalTypeError)(nil); errors.As(err, &ute) {
		a, ok = jsonerr.FromTypeError(ute, raw)
	} else {
		a, ok = jsonerr.FromText(jsonerr.Innermost(err).Error(), func() ([]byte, bool) { return raw, true }, err)
	}
	if !ok {
		return nil, false // not a nil *errs.Error in an error
	}
	return a, true
}

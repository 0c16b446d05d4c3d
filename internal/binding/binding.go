// Package binding is what the SDK adapters (wrap/mcpgo, wrap/gosdk) reach of
// a validate.Binder beyond its public methods: binding the SDK's decoded
// arguments together with the raw ones, checking a handler's typed result,
// and a prompt's advertised arguments. Package validate sets the functions
// from its init (validate/internal.go), because an internal package cannot
// import the package it serves; b is always a *validate.Binder.
package binding

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwrap/mcpwrap/errs"
)

// Set by package validate.
var (
	// BindFunc decodes args (as the SDK decoded them) or raw (as sent, used
	// when args is nil or too imprecise) into dst, a pointer to b's T.
	BindFunc func(b, dst, args any, raw []byte) error
	// CheckFunc validates *v, a pointer to b's T, against its tags.
	CheckFunc func(b, v any) error
	// PromptArgumentsFunc returns b's prompt arguments.
	PromptArgumentsFunc func(b any) []PromptArgument
)

// PromptArgument is one argument a prompt advertises.
type PromptArgument struct {
	Name, Description string
	Required          bool
}

// Bind decodes and validates a call's arguments into b's T: args as the SDK
// decoded them, raw as the client sent them, when the SDK keeps them, read
// when args is nil or an integer is too large for a float64 to hold
// exactly, so large IDs keep every digit. On failure it returns the zero T
// and an *errs.Error with code InvalidArgument.
func Bind[T any](b any, args any, raw []byte) (T, error) {
	var t T
	if err := BindFunc(b, &t, args, raw); err != nil {
		var zero T
		return zero, err
	}
	return t, nil
}

// Result checks v, the structured result tool name's handler returned,
// against b's tags (none when b is nil) and encodes it as JSON. Either
// failure is the server's, not the model's: an Internal error saying
// which rule the result breaks, or that it could not be encoded.
func Result[T any](name string, b any, v T) ([]byte, error) {
	if b != nil {
		if err := CheckFunc(b, &v); err != nil {
			msg := err.Error()
			var e *errs.Error
			if errors.As(err, &e) {
				msg = e.Message()
			}
			return nil, errs.Wrap(errs.Internal, fmt.Errorf("tool %q returned a result that breaks its own schema: %s", name, msg), "")
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, fmt.Errorf("encode result of tool %q: %w", name, err), "")
	}
	return data, nil
}

// PromptArguments returns a prompt's advertised arguments derived from b's
// T, sorted by name: one argument per top-level field, named by its json
// tag, described by its description tag, required when its rules say
// "required".
func PromptArguments(b any) []PromptArgument { return PromptArgumentsFunc(b) }

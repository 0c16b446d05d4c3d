// Package binding is what the SDK adapters (wrap/mcpgo, wrap/gosdk) reach of
// a validate.Binder beyond its public methods: binding the SDK's decoded
// arguments together with the raw ones, checking a handler's typed result,
// and a prompt's advertised arguments. Package validate sets the functions
// from its init (validate/internal.go), because an internal package cannot
// import the package it serves; b is always a *validate.Binder.
package binding

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

// Check validates v, a T built in Go (a handler's structured result),
// against b's tags: nil or an *errs.Error with code InvalidArgument and the
// violations; a caller checking its own output should wrap that as an
// Internal error, since the model did nothing wrong.
func Check[T any](b any, v T) error { return CheckFunc(b, &v) }

// PromptArguments returns a prompt's advertised arguments derived from b's
// T, sorted by name: one argument per top-level field, named by its json
// tag, described by its description tag, required when its rules say
// "required".
func PromptArguments(b any) []PromptArgument { return PromptArgumentsFunc(b) }

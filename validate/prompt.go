package validate

import (
	"encoding/json"
	"reflect"
	"slices"
)

// PromptArgument is one argument a prompt advertises.
type PromptArgument struct {
	Name, Description string
	Required          bool
}

// PromptArguments returns a prompt's advertised arguments derived from T,
// sorted by name: one argument per top-level field, named by its json tag,
// described by its description tag, required when its rules say
// "required". Prompt arguments travel as strings, so T's fields should be
// strings; BindPrompt enforces every rule of the tags.
func (b *Binder[T]) PromptArguments() []PromptArgument {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(b.c.schema, &s) // the schema New derived always decodes
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	args := make([]PromptArgument, 0, len(names))
	for _, name := range names {
		args = append(args, PromptArgument{Name: name, Description: s.Properties[name].Description,
			Required: slices.Contains(s.Required, name)})
	}
	return args
}

// BindPrompt binds the arguments of a prompts/get to a T and validates
// them like Bind: on failure it returns the zero T and an *errs.Error with
// code InvalidArgument naming every bad argument ("parameter \"topic\" is
// required"), which a wrapped prompt sends as JSON-RPC -32602. Unknown
// arguments are rejected unless AllowUnknown was given.
func (b *Binder[T]) BindPrompt(arguments map[string]string) (T, error) {
	args := make(map[string]any, len(arguments))
	for k, v := range arguments {
		args[k] = v
	}
	var t T
	if err := b.c.bind(reflect.ValueOf(&t).Elem(), args, nil); err != nil {
		var zero T
		return zero, err
	}
	return t, nil
}

package validate

import (
	"encoding/json"
	"slices"

	"github.com/mcpwrap/mcpwrap/internal/binding"
)

// promptArguments is binding.PromptArguments: the prompt's advertised
// arguments derived from the schema, sorted by name. Prompt arguments
// travel as strings, so T's fields should be strings; Bind enforces every
// rule of the tags.
func (c *core) promptArguments() []binding.PromptArgument {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(c.schema, &s) // the schema New derived always decodes
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	args := make([]binding.PromptArgument, 0, len(names))
	for _, name := range names {
		args = append(args, binding.PromptArgument{Name: name, Description: s.Properties[name].Description,
			Required: slices.Contains(s.Required, name)})
	}
	return args
}

// promptArgs is a prompts/get's arguments as the decoder reads them.
func promptArgs(arguments map[string]string) map[string]any {
	args := make(map[string]any, len(arguments))
	for k, v := range arguments {
		args[k] = v
	}
	return args
}

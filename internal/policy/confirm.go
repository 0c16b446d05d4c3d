package policy

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// ConfirmMessage is what the user is asked before r runs under c.
func ConfirmMessage(c authz.Confirm, r authz.Request) string {
	if c.Message != nil {
		if m := c.Message(r); m != "" {
			return m
		}
	}
	msg := "Allow " + r.Name + " to run"
	if names := argumentNames(r.Arguments); len(names) > 0 {
		msg += " with these arguments: " + strings.Join(names, ", ")
	}
	return msg + "?"
}

// argumentNames are the names of the arguments, sorted, the first 20 of
// them; none when args is not a JSON object.
func argumentNames(args json.RawMessage) []string {
	var m map[string]json.RawMessage
	if len(args) == 0 || json.Unmarshal(args, &m) != nil {
		return nil
	}
	names := slices.Sorted(maps.Keys(m))
	if len(names) > 20 {
		names = append(names[:20], "…")
	}
	return names
}

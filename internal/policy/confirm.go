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
	var m map[string]json.RawMessage
	if len(r.Arguments) > 0 && json.Unmarshal(r.Arguments, &m) == nil && len(m) > 0 {
		names := slices.Sorted(maps.Keys(m))
		if len(names) > 20 {
			names = append(names[:20], "…")
		}
		msg += " with these arguments: " + strings.Join(names, ", ")
	}
	return msg + "?"
}

// Package linecases holds the calls a hostile client makes in the tests
// that compare two loggers' lines on a real server of either SDK: big,
// many, odd, deep and changing arguments, secrets, a failure, a panic, a
// typed tool given a good and a bad argument, and an unknown tool.
package linecases

import (
	"fmt"
	"strings"
)

// Call is one tools/call.
type Call struct {
	Tool string
	Args map[string]any
}

// Secrets are the values among the calls' arguments and the tools'
// errors that no line may hold.
var Secrets = []string{"hunter2", "sk-live-abcdefghijklmnop"}

// Calls returns the calls, for a server with the tools echo and login
// (answering anything), fails (an error holding a DSN with hunter2),
// panics, and add_note (typed: a title string of at most 20 bytes).
func Calls() []Call {
	many := map[string]any{}
	for i := range 300 {
		many[fmt.Sprintf("k%03d", i)] = i
	}
	deep := map[string]any{"leaf": true}
	for range 200 {
		deep = map[string]any{"d": deep}
	}
	secret := map[string]any{"api_key": "sk-live-abcdefghijklmnop", "password": "hunter2", "user": "ann"}
	plain := map[string]any{"text": "hi", "n": 3, "ok": true, "none": nil}
	return []Call{
		{"echo", plain},
		{"echo", plain}, // the key order remembered
		{"echo", map[string]any{"text": strings.Repeat("x", 1<<18), "list": make([]any, 5000)}},
		{"echo", many},
		{"echo", map[string]any{`q"uote`: 1, "tab\tkey": "a\x01b", "\u2028": "z", "naïve": "é", "<b>&": "</b>"}},
		{"echo", map[string]any{"a": 1, "b": 2}},
		{"echo", map[string]any{"a": 1, "c": 2}}, // as many keys, one other
		{"echo", deep},
		{"login", secret},
		{"login", secret},
		{"fails", map[string]any{"why": "refused"}},
		{"panics", nil},
		{"add_note", map[string]any{"title": "groceries"}},
		{"add_note", map[string]any{"title": strings.Repeat("long ", 10)}},
		{"add_note", map[string]any{"title": 7}},
		{"no_such_tool", map[string]any{"x": 1}},
	}
}

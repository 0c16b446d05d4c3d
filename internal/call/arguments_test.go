package call_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

func TestNotObject(t *testing.T) {
	type point struct{ X int }
	for _, c := range []struct {
		name string
		req  call.Request
		want string
	}{
		{"absent", call.Request{}, ""},
		{"raw object", call.Request{Raw: json.RawMessage(` {"a":1}`)}, ""},
		{"raw null", call.Request{Raw: json.RawMessage(`null`)}, ""},
		{"raw string", call.Request{Raw: json.RawMessage(`"text"`)}, "a string"},
		{"raw array", call.Request{Raw: json.RawMessage("\n[1]")}, "an array"},
		{"raw number", call.Request{Raw: json.RawMessage(`-3.5`)}, "a number"},
		{"raw true", call.Request{Raw: json.RawMessage(`true`)}, "a boolean"},
		{"raw false", call.Request{Raw: json.RawMessage(`false`)}, "a boolean"},
		{"raw not JSON", call.Request{Raw: json.RawMessage(`?`)}, ""},
		{"raw wins over args", call.Request{Raw: json.RawMessage(`{}`), Args: "x"}, ""},
		{"args map", call.Request{Args: map[string]any{"a": 1}}, ""},
		{"args prompt map", call.Request{Args: map[string]string{"a": "b"}}, ""},
		{"args struct", call.Request{Args: point{1}}, ""},
		{"args pointer", call.Request{Args: &point{1}}, ""},
		{"args string", call.Request{Args: "text"}, "a string"},
		{"args float", call.Request{Args: 1.5}, "a number"},
		{"args int", call.Request{Args: 7}, "a number"},
		{"args bool", call.Request{Args: true}, "a boolean"},
		{"args slice", call.Request{Args: []any{1}}, "an array"},
		{"args raw string", call.Request{Args: json.RawMessage(`"x"`)}, "a string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.req.NotObject(); got != c.want {
				t.Errorf("NotObject() = %q, want %q", got, c.want)
			}
		})
	}
}

// BenchmarkNotObject is the check every tools/call pays.
func BenchmarkNotObject(b *testing.B) {
	req := call.Request{Raw: json.RawMessage(`{"city":"Rome","days":3}`), Args: map[string]any{"city": "Rome"}}
	b.ReportAllocs()
	for b.Loop() {
		if req.NotObject() != "" {
			b.Fatal("an object")
		}
	}
}

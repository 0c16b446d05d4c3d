package obs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
)

func manyFields(n int) map[string]any {
	m := make(map[string]any, n)
	for i := range n {
		m[fmt.Sprintf("field_%03d", i)] = strings.Repeat("v", i%7)
	}
	return m
}

// longKeys is n arguments under 120-byte keys: past the 2 KiB cap.
func longKeys(n int) map[string]any {
	m := make(map[string]any, n)
	for i := range n {
		m[fmt.Sprintf("%03d", i)+strings.Repeat("k", 117)] = "v"
	}
	return m
}

// wrapped hides a handler's type, so the Observer hands it the arguments
// as json.RawMessage.
type wrapped struct{ slog.Handler }

var volatile = regexp.MustCompile(`"(time|duration_ms)":("[^"]*"|[0-9.e+-]+)`)

// TestArgumentsLineIsTheSameForEveryJSONHandler: the arguments reach
// slog's JSONHandler as a group and NewLogger's handler as rendered JSON,
// which are cheaper for them, and the line is the bytes JSONHandler
// writes for json.RawMessage, for every shape of arguments.
func TestArgumentsLineIsTheSameForEveryJSONHandler(t *testing.T) {
	cases := []struct {
		name string
		args map[string]any
		opts []obs.Option
		then map[string]any // the second call's arguments, when not args
		// authz is the call's decision: its scopes are a []string, which
		// NewLogger hands JSONHandler with the whole line, arguments too.
		authz *obs.Authz
	}{
		{"names", map[string]any{"city": "Paris", "days": 3.0, "hourly": true, "tags": []any{"a"}, "o": map[string]any{}}, nil, nil, nil},
		{"secret", map[string]any{"city": "Paris", "api_key": "sk-123"}, nil, nil, nil},
		{"odd keys", map[string]any{"naïve": "x", `q"uote`: "y", "tab\tkey": 1.0, "\u2028": "z", "<b>": "&"}, nil, nil, nil},
		{"empty", map[string]any{}, nil, nil, nil},
		{"sizes", map[string]any{"long": strings.Repeat("x", 300), "list": make([]any, 300), "short_list": []any{1.0},
			"obj": map[string]any{"a": 1.0}, "null": nil, "n": json.Number("7")}, nil, nil, nil},
		{"past the cap", manyFields(200), nil, nil, nil},
		{"just under the cap", manyFields(60), nil, nil, nil},
		{"values", map[string]any{"city": "Paris", "days": 3.0, "note": "<b>\"q\"</b>"}, []obs.Option{obs.WithArgumentValues()}, nil, nil},
		{"other keys, as many", map[string]any{"city": "Paris", "days": 3.0}, nil, map[string]any{"city": "Paris", "api_key": "k", "z": 1.0}, nil},
		{"other keys, as many, past the cap", manyFields(20), nil, longKeys(20), nil},
		{"other keys, as many, odd", map[string]any{"a": 1.0, "b": 2.0}, nil, map[string]any{"a": 1.0, `q"uote`: "y"}, nil},
		{"with a decision", map[string]any{"city": "Paris", "api_key": "k"}, nil, nil,
			&obs.Authz{Decision: "allowed", Subject: "ann", Required: []string{"weather:read"}, Granted: []string{"weather:read", "<b>"}}},
		{"with a decision, other keys", map[string]any{"a": 1.0, "b": 2.0}, nil, map[string]any{"a": 1.0, "c": "y"},
			&obs.Authz{Decision: "allowed", Subject: "ann", Granted: []string{"x"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(tc.args)
			req := &call.Request{Kind: call.Tool, Name: "forecast", Args: tc.args, Raw: raw}
			then := req
			if tc.then != nil {
				raw, _ := json.Marshal(tc.then)
				then = &call.Request{Kind: call.Tool, Name: "forecast", Args: tc.then, Raw: raw}
			}
			line := func(h slog.Handler) string {
				o := obs.New(append([]obs.Option{obs.WithLogger(slog.New(h)), obs.WithoutTracing(), obs.WithoutMetrics()}, tc.opts...)...)
				for _, req := range []*call.Request{req, then} { // the key order made, then remembered
					ctx, r := o.Start(context.Background(), req, "c1")
					r.End(ctx, obs.Report{Outcome: obs.OutcomeSuccess, Attempts: 1, Authz: tc.authz})
				}
				return ""
			}
			var want, group, ours bytes.Buffer
			line(wrapped{slog.NewJSONHandler(&want, nil)})
			line(slog.NewJSONHandler(&group, nil))
			line(obs.NewLogger(obs.WithLogOutput(&ours), obs.WithLogFormat("json")).Handler())
			w := volatile.ReplaceAllString(want.String(), "")
			if !bytes.Contains(want.Bytes(), []byte(`"arguments":`)) {
				t.Fatalf("no arguments in %s", w)
			}
			for name, got := range map[string]string{"JSONHandler": group.String(), "NewLogger": ours.String()} {
				if g := volatile.ReplaceAllString(got, ""); g != w {
					t.Errorf("%s wrote\n%s\nwant\n%s", name, g, w)
				}
			}
		})
	}
}

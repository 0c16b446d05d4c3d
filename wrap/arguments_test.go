package wrap_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestArgumentLoggingSwitches: on a server that logs argument values
// (wrap.WithArgumentValues), the one-line form takes the switches a
// server with PII in some arguments needs — names only, none at all, a
// per-tool secret name — and the value the server marks sensitive is in
// no log line, whatever the default secret names are.
func TestArgumentLoggingSwitches(t *testing.T) {
	const sensitive = "4111-1111-1111-1111"
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithArgumentValues(), wrap.ForTool("profile", wrap.WithArgumentNamesOnly()), wrap.ForTool("notes", wrap.WithoutArguments()))
	s := server.NewMCPServer("crm", "1.0.0")
	mcpgo.Attach(s, w)
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	s.AddTool(mcp.NewTool("profile"), ok)
	s.AddTool(mcp.NewTool("notes"), ok)
	s.AddTools(mcpgo.Tool(w, mcp.NewTool("store"), ok, wrap.WithSecrets("value")))
	s.AddTool(mcp.NewTool("echo"), ok)
	conn := testserver.StartHTTP(t, s)
	for _, tool := range []string{"profile", "notes", "store", "echo"} {
		conn.CallRaw(t, tool, `{"value":"`+sensitive+`","sensitive":true}`)
	}
	for _, tool := range []string{"profile", "notes", "store", "echo"} {
		if lines, _ := logs.Find("tool", tool); len(lines) != 1 {
			t.Fatalf("%s: %d lines", tool, len(lines))
		}
	}
	all := logs.String()
	for _, tool := range []string{"profile", "notes", "store"} {
		lines, _ := logs.Find("tool", tool)
		if strings.Contains(toJSON(lines[0]), sensitive) {
			t.Errorf("%s logged the sensitive value", tool)
		}
	}
	if lines, _ := logs.Find("tool", "notes"); lines[0]["arguments"] != nil {
		t.Errorf("notes logged its arguments: %v", lines[0])
	}
	if lines, _ := logs.Find("tool", "profile"); !strings.Contains(toJSON(lines[0]["arguments"]), "19 bytes") {
		t.Errorf("profile: %v", lines[0]["arguments"])
	}
	if !strings.Contains(all, sensitive) {
		t.Error("the switch-less tool did not log its arguments (the test proves nothing)")
	}
}

// TestArgumentValuesAreNotLoggedByDefault: a server taking a secret in an
// argument no rule knows as secret ("value", as terraform-mcp-server's
// workspace variables do) got it in mcpwrap's log line, where bare mcp-go
// logs no arguments at all. By default the line and the span carry names,
// JSON types and sizes; a tool opted in with wrap.WithArgumentValues
// logs values, redacted.
func TestArgumentValuesAreNotLoggedByDefault(t *testing.T) {
	const secret = "FAKESECRET_var_s3cr3t"
	for _, c := range []struct {
		name   string
		opts   []wrap.Option
		values bool // the "echo" tool logs values
	}{
		{"default", nil, false},
		{"values for echo", []wrap.Option{wrap.ForTool("echo", wrap.WithArgumentValues())}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var logs logbuf.Buffer
			spans := tracetest.NewSpanRecorder()
			s := server.NewMCPServer("tfe", "1.0.0")
			mcpgo.Attach(s, wrap.New(append([]wrap.Option{wrap.WithLogger(logs.Logger()), wrap.WithTelemetry(observe.WithArgumentsAttribute(true),
				observe.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))))}, c.opts...)...))
			ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			}
			s.AddTool(mcp.NewTool("create_variable"), ok)
			s.AddTool(mcp.NewTool("echo"), ok)
			conn := testserver.StartHTTP(t, s)
			conn.CallRaw(t, "create_variable", `{"key":"db_pass","value":"`+secret+`","sensitive":true,"tags":["a"]}`)
			conn.CallRaw(t, "echo", `{"text":"hello there","api_key":"k-12345678"}`)

			lines, _ := logs.Find("tool", "create_variable")
			if len(lines) != 1 {
				t.Fatalf("%d lines", len(lines))
			}
			want := `{"key":"<string, 7 bytes>","sensitive":"<bool>","tags":"<array, 1 items>","value":"<string, 21 bytes>"}`
			var w any
			_ = json.Unmarshal([]byte(want), &w)
			if got := toJSON(lines[0]["arguments"]); got != toJSON(w) {
				t.Fatalf("arguments %s, want %s", got, want)
			}
			if strings.Contains(logs.String(), secret) {
				t.Fatalf("the secret is in the log: %s", logs.String())
			}
			for _, sp := range spans.Ended() {
				for _, a := range sp.Attributes() {
					if strings.Contains(a.Value.Emit(), secret) {
						t.Fatalf("span %s: %s=%s", sp.Name(), a.Key, a.Value.Emit())
					}
				}
			}
			echo, _ := logs.Find("tool", "echo")
			if len(echo) != 1 {
				t.Fatalf("%d echo lines", len(echo))
			}
			got := toJSON(echo[0]["arguments"])
			if c.values != strings.Contains(got, "hello there") || strings.Contains(got, "k-12345678") || !strings.Contains(got, redact.Redacted) {
				t.Fatalf("echo's arguments %s (values %v): want values only when opted in, the api key redacted", got, c.values)
			}
		})
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

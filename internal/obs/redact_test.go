package obs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

const (
	plantedPassword = "Tr0ub4dor-and-3"
	plantedToken    = "tok_9f8e7d6c5b4a39281706"
	plantedPIN      = "pin-7319-5555"
)

type loginArgs struct {
	User string `json:"user"`
	PIN  string `json:"pin" mcpwrap:"secret"`
}

// TestSecretsAppearNowhere plants secrets in arguments (by name, by struct
// tag, by shape), in an Authorization header and in the error text, and
// looks for them in every log line, span attribute, event and status, and in
// the results.
func TestSecretsAppearNowhere(t *testing.T) {
	x := newTel(t, obs.WithArgumentValues(), obs.WithArgumentsAttribute(true), obs.WithResultAttribute(true),
		obs.WithSecretNames(redact.SecretNames(loginArgs{})...))
	s := server.NewMCPServer("bank", "1.0.0", server.WithTracer(mcpgo.Tracer(wrap.New(obstest.WithObserver(x.obs)))),
		attached(wrap.New(obstest.WithObserver(x.obs))))
	s.AddTool(mcp.NewTool("login"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("login as %s with password %s (pin %s, header %s) failed",
			req.GetString("user", ""), req.GetString("password", ""), req.GetString("pin", ""), req.Header.Get("Authorization"))
	})
	s.AddTool(mcp.NewTool("lookup"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("upstream said: invalid api_key=%s for postgres://app:%s@db/x", plantedToken, plantedPassword)
	})
	conn := dialWithHeaders(t, s, map[string]string{"Authorization": "Bearer " + plantedToken, "Cookie": "sid=" + plantedToken})

	var results []string
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"login", map[string]any{"user": "ada", "password": plantedPassword, "pin": plantedPIN, "note": "Bearer " + plantedToken}},
		{"lookup", map[string]any{"q": "balance"}},
	} {
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.Arguments = call.tool, call.args
		res, err := conn.CallTool(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		results = append(results, string(b))
	}

	var haystack strings.Builder
	haystack.WriteString(x.logs.String())
	for _, r := range results {
		haystack.WriteString(r)
	}
	for _, sp := range x.spans.Ended() {
		haystack.WriteString(sp.Name() + sp.Status().Description)
		for _, kv := range sp.Attributes() {
			haystack.WriteString(string(kv.Key) + "=" + kv.Value.Emit() + "\n")
		}
		for _, e := range sp.Events() {
			for _, kv := range e.Attributes {
				haystack.WriteString(e.Name + ":" + string(kv.Key) + "=" + kv.Value.Emit() + "\n")
			}
		}
	}
	all := haystack.String()
	for _, secret := range []string{plantedPassword, plantedToken, plantedPIN} {
		if strings.Contains(all, secret) {
			i := strings.Index(all, secret)
			t.Errorf("secret %q leaked: …%s…", secret, all[max(0, i-200):min(len(all), i+50)])
		}
	}
	// The redaction must not remove what the operator needs.
	if !strings.Contains(all, `"user":"ada"`) || !strings.Contains(all, "login as ada") || !strings.Contains(all, redact.Redacted) {
		t.Errorf("non-secret context was lost: %s", x.logs.String())
	}
}

func dialWithHeaders(t *testing.T, s *server.MCPServer, headers map[string]string) *client.Client {
	t.Helper()
	return testserver.Connect(t, testserver.StartHTTP(t, s).URL, headers)
}

type valuer struct{ secret string }

func (valuer) LogValue() slog.Value { return slog.StringValue(redact.Redacted) }

// A LogValuer in an event attribute is resolved before it is logged or
// recorded.
func TestEventRespectsLogValuer(t *testing.T) {
	x := newTel(t)
	ctx, call := x.obs.Start(t.Context(), &call.Request{Kind: call.Tool, Name: "t"}, "c")
	call.Event(ctx, slog.LevelInfo, obs.EventReconnect, slog.Any("creds", valuer{"hidden-value"}), slog.String("password", "pw-hidden"))
	call.End(ctx, obs.Report{Outcome: obs.OutcomeSuccess, Attempts: 1})
	all := x.logs.String()
	for _, e := range x.span(t, "tools/call t").Events() {
		for _, kv := range e.Attributes {
			all += kv.Value.Emit()
		}
	}
	if strings.Contains(all, "hidden") || !strings.Contains(all, redact.Redacted) {
		t.Fatalf("LogValuer or secret name not respected: %s", all)
	}
}

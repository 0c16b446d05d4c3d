package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// authServer serves a tool that answers the caller it sees, behind
// HTTPAuth with a verifier that accepts three tokens.
func authServer(t *testing.T) string {
	t.Helper()
	s := server.NewMCPServer("auth", "1.0.0")
	mcpgo.Attach(s, wrap.New())
	s.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, ok := authz.FromContext(ctx)
		return mcp.NewToolResultText(fmt.Sprintf("%s %v %v", c.Subject, c.Scopes, ok)), nil
	})
	s.AddTool(mcp.NewTool("delete_repository"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("deleted"), nil
	})
	verify := func(_ context.Context, token string, _ *http.Request) (authz.Caller, error) {
		scopes, ok := map[string][]string{"reader": {"mcp", "read"}, "plain": {"mcp"}, "admin": {"mcp", "repo:admin"}}[token]
		if !ok {
			return authz.Caller{}, fmt.Errorf("%w: unknown", authz.ErrInvalidToken)
		}
		return authz.Caller{Subject: "alice", Scopes: scopes}, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{Auth: &mcpgo.HTTPAuth{
		Verifier: verify,
		Bearer: authz.Bearer{Scopes: []string{"mcp"}, Challenge: func(method, name string) []string {
			if name == "delete_repository" {
				return []string{"repo:admin"}
			}
			return nil
		}},
		Metadata: server.ProtectedResourceMetadataConfig{Resource: base + "/mcp", AuthorizationServers: []string{"https://auth.example.com"}},
	}})
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Shutdown(context.Background()) })
	return base
}

func TestHTTPAuthServesTheCallerToTools(t *testing.T) {
	base := authServer(t)
	call := func(token, tool string) (*mcp.CallToolResult, error) {
		tr, err := transport.NewStreamableHTTP(base+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
		if err != nil {
			t.Fatal(err)
		}
		c := client.NewClient(tr)
		defer c.Close()
		if err := c.Start(context.Background()); err != nil {
			return nil, err
		}
		if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{}); err != nil {
			return nil, err
		}
		var req mcp.CallToolRequest
		req.Params.Name = tool
		return c.CallTool(context.Background(), req)
	}
	res, err := call("reader", "whoami")
	if err != nil || res.IsError || res.Content[0].(mcp.TextContent).Text != "alice [mcp read] true" {
		t.Fatalf("%+v %v", res, err)
	}
	var unauthorized *transport.AuthorizationRequiredError
	if _, err := call("bad", "whoami"); !errors.As(err, &unauthorized) ||
		unauthorized.ResourceMetadataURL != base+"/.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("a refused token: %v", err)
	}
	if _, err := call("plain", "delete_repository"); err == nil || !strings.Contains(err.Error(), "requires repo:admin") {
		t.Fatalf("a missing scope: %v", err)
	}
	if res, err := call("admin", "delete_repository"); err != nil || res.IsError {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestHTTPAuthChallengesAndServesMetadataWithoutAToken(t *testing.T) {
	base := authServer(t)
	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	want := `Bearer scope="mcp", resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp"`
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != want {
		t.Fatalf("%d %q, want %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
	resp, err = http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	var md server.ProtectedResourceMetadataConfig
	if resp.StatusCode != 200 || json.Unmarshal(body, &md) != nil || md.Resource != base+"/mcp" ||
		md.ScopesSupported[0] != "mcp" || md.BearerMethodsSupported[0] != "header" || md.AuthorizationServers[0] != "https://auth.example.com" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/hydratest"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/authz/jwtauth"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// mcpgoServer serves, on mcpgo.NewHTTPServer with HTTPAuth, a tool that
// answers the caller it sees (authz.FromContext) and one that needs
// repo:admin; it returns the endpoint and the server's log.
func mcpgoServer(t *testing.T, h hydratest.Hydra, c jwtauth.Config) (endpoint string, log *logs) {
	t.Helper()
	log = &logs{}
	ln, resource := listen(t)
	v := verifier(t, h, resource, c)
	s := server.NewMCPServer("e2e", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger(log))))
	s.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, ok := authz.FromContext(ctx)
		if !ok {
			return nil, errors.New("no caller in the context")
		}
		b, _ := json.Marshal(map[string]any{"sub": c.Subject, "scopes": c.Scopes, "client_id": c.Claims["client_id"]})
		return mcp.NewToolResultText(string(b)), nil
	})
	s.AddTool(mcp.NewTool("delete_repository"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("deleted"), nil
	})
	hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{Auth: &mcpgo.HTTPAuth{
		Verifier: v.Verify,
		Bearer:   authz.Bearer{Scopes: []string{"mcp"}, Challenge: challenge, Logger: logger(log)},
		Metadata: server.ProtectedResourceMetadataConfig{Resource: resource, AuthorizationServers: []string{h.Issuer}},
	}})
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Shutdown(context.Background()) })
	return resource, log
}

// mcpgoCall runs tool through a real mcp-go client presenting token.
func mcpgoCall(t *testing.T, endpoint, token, tool string) (*mcp.CallToolResult, error) {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(endpoint, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	defer func() { _ = c.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		return nil, err
	}
	var req mcp.CallToolRequest
	req.Params.Name = tool
	return c.CallTool(ctx, req)
}

func text(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[0].(mcp.TextContent)
	return tc.Text
}

func TestMCPGoWithHydraTokens(t *testing.T) {
	h := hydratest.At(t)
	endpoint, log := mcpgoServer(t, h, jwtauth.Config{})
	other := "https://other.example.com/mcp"
	cl := h.NewClient(t, hydratest.ClientOptions{Scopes: []string{"mcp", "issues:read", "repo:admin"}, Audiences: []string{endpoint, other}})
	good := cl.Token(t, []string{"mcp", "issues:read"}, []string{endpoint})
	admin := cl.Token(t, []string{"mcp", "repo:admin"}, []string{endpoint})
	elsewhere := cl.Token(t, []string{"mcp", "issues:read"}, []string{other})
	noMCP := cl.Token(t, []string{"issues:read"}, []string{endpoint})
	meta := `resource_metadata="` + strings.TrimSuffix(endpoint, "/mcp") + `/.well-known/oauth-protected-resource/mcp"`

	t.Run("valid token: the tool sees the caller", func(t *testing.T) {
		res, err := mcpgoCall(t, endpoint, good, "whoami")
		if err != nil || res.IsError {
			t.Fatalf("%v %v", text(res), err)
		}
		var got struct {
			Sub      string   `json:"sub"`
			Scopes   []string `json:"scopes"`
			ClientID string   `json:"client_id"`
		}
		if err := json.Unmarshal([]byte(text(res)), &got); err != nil || got.Sub != cl.ID ||
			strings.Join(got.Scopes, " ") != "mcp issues:read" || got.ClientID != cl.ID {
			t.Fatalf("%s (%v)", text(res), err)
		}
		t.Logf("whoami: %s", text(res))
	})
	t.Run("no token: 401 with resource_metadata", func(t *testing.T) {
		resp, _ := post(t, endpoint, "", initialize)
		expect(t, "no token", resp, 401, meta, `scope="mcp"`)
		if strings.Contains(header(resp), "error=") {
			t.Errorf("a request without a token gets no error code: %q", header(resp))
		}
	})
	t.Run("tampered signature: 401 invalid_token", func(t *testing.T) {
		resp, body := post(t, endpoint, tamper(t, good), initialize)
		expect(t, "tampered", resp, 401, `error="invalid_token"`, meta)
		reason(t, log, "error in cryptographic primitive")
		noToken(t, "the answer", header(resp)+body, good, tamper(t, good))
		var unauthorized *transport.AuthorizationRequiredError
		if _, err := mcpgoCall(t, endpoint, tamper(t, good), "whoami"); !errors.As(err, &unauthorized) || unauthorized.ResourceMetadataURL == "" {
			t.Errorf("the mcp-go client: %v", err)
		}
	})
	t.Run("another audience: 401", func(t *testing.T) {
		resp, _ := post(t, endpoint, elsewhere, initialize)
		expect(t, "another audience", resp, 401, `error="invalid_token"`)
		reason(t, log, "invalid audience")
	})
	t.Run("token lacking the server's scope: 403", func(t *testing.T) {
		resp, _ := post(t, endpoint, noMCP, initialize)
		expect(t, "no mcp scope", resp, 403, `error="insufficient_scope"`, `scope="mcp"`)
	})
	t.Run("missing scope of a tool: 403 insufficient_scope naming it", func(t *testing.T) {
		resp, body := post(t, endpoint, good, `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"delete_repository","arguments":{}}}`)
		expect(t, "challenge", resp, 403, `error="insufficient_scope"`, `scope="mcp repo:admin"`, meta)
		if !strings.Contains(body, `"id":42`) || !strings.Contains(body, "requires repo:admin") {
			t.Errorf("body %s", body)
		}
		if _, err := mcpgoCall(t, endpoint, good, "delete_repository"); err == nil || !strings.Contains(err.Error(), "repo:admin") {
			t.Errorf("the mcp-go client: %v", err)
		}
		if res, err := mcpgoCall(t, endpoint, admin, "delete_repository"); err != nil || text(res) != "deleted" {
			t.Errorf("with the scope: %v %v", text(res), err)
		}
	})
	t.Run("metadata without a token", func(t *testing.T) {
		resp, err := http.Get(strings.TrimSuffix(endpoint, "/mcp") + "/.well-known/oauth-protected-resource/mcp")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		var md server.ProtectedResourceMetadataConfig
		if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&md) != nil || md.Resource != endpoint ||
			len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != h.Issuer {
			t.Fatalf("%d %+v", resp.StatusCode, md)
		}
		t.Logf("metadata: %d %+v", resp.StatusCode, md)
	})
	noToken(t, "the server's log", log.String(), good, admin, elsewhere, noMCP)
	if !strings.Contains(log.String(), "bearer token refused") {
		t.Errorf("no refusal logged: %.500s", log.String())
	}
}

func TestMCPGoRefusesAnotherIssuer(t *testing.T) {
	h := hydratest.At(t)
	// The keys are Hydra's; the issuer the server trusts is another.
	endpoint, log := mcpgoServer(t, h, jwtauth.Config{Issuer: "https://issuer.example.com", JWKSURL: h.Public + "/.well-known/jwks.json"})
	cl := h.NewClient(t, hydratest.ClientOptions{Scopes: []string{"mcp"}, Audiences: []string{endpoint}})
	resp, _ := post(t, endpoint, cl.Token(t, []string{"mcp"}, []string{endpoint}), initialize)
	expect(t, "another issuer", resp, 401, `error="invalid_token"`)
	reason(t, log, "invalid issuer")
}

func TestMCPGoRefusesAnExpiredToken(t *testing.T) {
	h := hydratest.At(t)
	const skew = time.Second
	endpoint, log := mcpgoServer(t, h, jwtauth.Config{Skew: skew})
	cl := h.NewClient(t, hydratest.ClientOptions{Scopes: []string{"mcp"}, Audiences: []string{endpoint}, Lifespan: 2 * time.Second})
	tok := cl.Token(t, []string{"mcp"}, []string{endpoint})
	if resp, _ := post(t, endpoint, tok, initialize); resp.StatusCode != 200 {
		t.Fatalf("fresh: %d %q", resp.StatusCode, header(resp))
	}
	time.Sleep(2*time.Second + skew + 1500*time.Millisecond) // exp has a one-second granularity
	resp, _ := post(t, endpoint, tok, initialize)
	expect(t, "expired", resp, 401, `error="invalid_token"`)
	reason(t, log, "token is expired")
}

func TestMCPGoFollowsHydrasKeyRotation(t *testing.T) {
	h := hydratest.At(t)
	endpoint, log := mcpgoServer(t, h, jwtauth.Config{MaxAge: time.Second, MinRefetch: 100 * time.Millisecond})
	cl := h.NewClient(t, hydratest.ClientOptions{Scopes: []string{"mcp"}, Audiences: []string{endpoint}})
	old := cl.Token(t, []string{"mcp"}, []string{endpoint})
	oldKID := kid(t, old)
	if resp, _ := post(t, endpoint, old, initialize); resp.StatusCode != 200 {
		t.Fatalf("before rotation: %d %q", resp.StatusCode, header(resp))
	}
	newKID := h.NewSigningKey(t)
	fresh := cl.Token(t, []string{"mcp"}, []string{endpoint})
	if kid(t, fresh) != newKID {
		t.Fatalf("Hydra signed with %q, not the new key %q (keys %v)", kid(t, fresh), newKID, h.SigningKeys(t))
	}
	// The new key is unknown to the cached set: one refetch finds it, once
	// MinRefetch has passed since the first verification's fetch (Hydra can
	// rotate and sign in less; a token of a key the set lacks is refused
	// within MinRefetch of the last fetch, docs/authorization.md).
	time.Sleep(150 * time.Millisecond)
	if resp, _ := post(t, endpoint, fresh, initialize); resp.StatusCode != 200 {
		t.Fatalf("a token of the new key: %d %q", resp.StatusCode, header(resp))
	}
	if resp, _ := post(t, endpoint, old, initialize); resp.StatusCode != 200 {
		t.Fatalf("a token of the old key, still published: %d %q", resp.StatusCode, header(resp))
	}
	h.DeleteSigningKey(t, oldKID)
	time.Sleep(1200 * time.Millisecond) // MaxAge: the next verification fetches the set again
	resp, _ := post(t, endpoint, old, initialize)
	expect(t, fmt.Sprintf("old key %s deleted", oldKID), resp, 401, `error="invalid_token"`)
	reason(t, log, "a key the issuer does not publish")
	if resp, _ := post(t, endpoint, fresh, initialize); resp.StatusCode != 200 {
		t.Fatalf("a token of the new key after the deletion: %d %q", resp.StatusCode, header(resp))
	}
}

// reason fails unless the server logged a refusal for reason (the
// verifier's, which the answer does not hold).
func reason(t *testing.T, log *logs, reason string) {
	t.Helper()
	if !strings.Contains(log.String(), reason) {
		t.Errorf("no refusal for %q logged: %.1000s", reason, log.String())
	}
}

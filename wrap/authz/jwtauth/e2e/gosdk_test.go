package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpwrap/mcpwrap/internal/hydratest"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz/jwtauth"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// gosdkServer serves, with go-sdk's own auth.RequireBearerToken and
// gosdk.TokenVerifier of a jwtauth.Verifier, a tool that answers the
// TokenInfo go-sdk gives it.
func gosdkServer(t *testing.T, h hydratest.Hydra, stateless bool) (endpoint string, log *logs) {
	t.Helper()
	log = &logs{}
	ln, resource := listen(t)
	v := verifier(t, h, resource, jwtauth.Config{})
	s := mcp.NewServer(&mcp.Implementation{Name: "e2e", Version: "1.0.0"}, nil)
	gosdk.Attach(s, wrap.New(wrap.WithLogger(logger(log))))
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ti := req.GetExtra().TokenInfo
			if ti == nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no token info"}}}, nil
			}
			b, _ := json.Marshal(map[string]any{"sub": ti.UserID, "scopes": ti.Scopes, "client_id": ti.Extra["client_id"],
				"expires_in_future": ti.Expiration.After(time.Now())})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
		})
	metaPath := "/.well-known/oauth-protected-resource/mcp"
	base := strings.TrimSuffix(resource, "/mcp")
	guard := auth.RequireBearerToken(gosdk.TokenVerifier(v.Verify), &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: base + metaPath, Scopes: []string{"mcp"}, ClockSkew: 30 * time.Second,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", guard(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: stateless})))
	mux.Handle(metaPath, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: resource, AuthorizationServers: []string{h.Issuer}, ScopesSupported: []string{"mcp"},
	}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return resource, log
}

// bearer adds an Authorization header to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// gosdkConnect connects a go-sdk client to endpoint with the bearer
// token, without retrying a refused connection.
func gosdkConnect(ctx context.Context, endpoint, token string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
}

func gosdkCall(t *testing.T, endpoint, token string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := gosdkConnect(ctx, endpoint, token)
	if err != nil {
		return "", err
	}
	defer func() { _ = cs.Close() }()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("isError %v", res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

func TestGoSDKWithHydraTokens(t *testing.T) {
	h := hydratest.At(t)
	for _, stateless := range []bool{false, true} {
		name := "stateful"
		if stateless {
			name = "stateless"
		}
		t.Run(name, func(t *testing.T) {
			endpoint, log := gosdkServer(t, h, stateless)
			other := "https://other.example.com/mcp"
			cl := h.NewClient(t, hydratest.ClientOptions{Scopes: []string{"mcp", "issues:read"}, Audiences: []string{endpoint, other}})
			good := cl.Token(t, []string{"mcp", "issues:read"}, []string{endpoint})
			elsewhere := cl.Token(t, []string{"mcp"}, []string{other})
			meta := `resource_metadata="` + strings.TrimSuffix(endpoint, "/mcp") + `/.well-known/oauth-protected-resource/mcp"`

			start := time.Now()
			got, err := gosdkCall(t, endpoint, good)
			t.Logf("call took %v", time.Since(start))
			if err != nil {
				t.Fatal(err)
			}
			var who struct {
				Sub      string   `json:"sub"`
				Scopes   []string `json:"scopes"`
				ClientID string   `json:"client_id"`
				Future   bool     `json:"expires_in_future"`
			}
			if err := json.Unmarshal([]byte(got), &who); err != nil || who.Sub != cl.ID || who.ClientID != cl.ID ||
				strings.Join(who.Scopes, " ") != "mcp issues:read" || !who.Future {
				t.Fatalf("%s (%v)", got, err)
			}
			t.Logf("whoami: %s", got)

			resp, _ := post(t, endpoint, "", initialize)
			expect(t, "no token", resp, 401, meta)
			resp, body := post(t, endpoint, tamper(t, good), initialize)
			expect(t, "tampered", resp, 401, meta)
			if strings.TrimSpace(body) != "invalid token" {
				t.Errorf("go-sdk's answer: %q", body)
			}
			noToken(t, "the answer", body+header(resp), good)
			resp, body = post(t, endpoint, elsewhere, initialize)
			expect(t, "another audience", resp, 401, meta)
			if strings.TrimSpace(body) != "invalid token" {
				t.Errorf("go-sdk's answer: %q", body)
			}
			start = time.Now()
			_, err = gosdkCall(t, endpoint, tamper(t, good))
			t.Logf("refused connect took %v: %v", time.Since(start), err)
			if err == nil {
				t.Error("the go-sdk client connected with a tampered token")
			}
			noToken(t, "the server's log", log.String(), good, elsewhere)
		})
	}
}

package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/rawrpc"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

func TestTokenVerifierConvertsTheCaller(t *testing.T) {
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	v := gosdk.TokenVerifier(func(_ context.Context, token string, _ *http.Request) (authz.Caller, error) {
		switch token {
		case "good":
			return authz.Caller{Subject: "alice", Scopes: []string{"mcp"}, Expires: exp, Claims: map[string]any{"tenant": "acme"}}, nil
		case "down":
			return authz.Caller{}, errors.New("jwks http://10.0.0.7/keys: connection refused")
		}
		return authz.Caller{}, fmt.Errorf("%w: audience is other", authz.ErrInvalidToken)
	})
	var seen *auth.TokenInfo
	h := auth.RequireBearerToken(v, &auth.RequireBearerTokenOptions{ResourceMetadataURL: "https://m/.well-known/oauth-protected-resource", Scopes: []string{"mcp"}})(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = auth.TokenInfoFromContext(r.Context()) }))
	cases := []struct {
		token  string
		status int
		body   string
	}{{"good", 200, ""}, {"bad", 401, "invalid token\n"}, {"down", 500, "the token could not be verified\n"}}
	for _, tc := range cases {
		t.Run(tc.token, func(t *testing.T) {
			seen = nil
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.Header.Set("Authorization", "Bearer "+tc.token)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			body, _ := io.ReadAll(w.Body)
			if w.Code != tc.status || string(body) != tc.body {
				t.Fatalf("%d %q", w.Code, body)
			}
			if tc.status == 401 && !strings.Contains(w.Header().Get("WWW-Authenticate"), "resource_metadata=") {
				t.Errorf("WWW-Authenticate %q", w.Header().Get("WWW-Authenticate"))
			}
			if tc.status == 200 && (seen == nil || seen.UserID != "alice" || !seen.Expiration.Equal(exp) ||
				len(seen.Scopes) != 1 || seen.Extra["tenant"] != "acme") {
				t.Errorf("%+v", seen)
			}
		})
	}
	_, err := v(context.Background(), "bad", nil)
	if !errors.Is(err, auth.ErrInvalidToken) || !errors.Is(err, authz.ErrInvalidToken) {
		t.Errorf("%v does not wrap both", err)
	}
}

// bearerCallers are what bearerVerifier accepts; "down" is a verifier
// that cannot reach its authorization server.
var bearerCallers = map[string]authz.Caller{
	"reader": {Subject: "alice", Scopes: []string{"mcp", "issues:read"}, Expires: time.Now().Add(time.Hour)},
	"admin":  {Subject: "bob", Scopes: []string{"mcp", "issues:read", "repo:admin"}, Expires: time.Now().Add(time.Hour)},
}

func bearerVerifier(_ context.Context, tok string, _ *http.Request) (authz.Caller, error) {
	if tok == "down" {
		return authz.Caller{}, errors.New("jwks http://10.0.0.7/keys: connection refused")
	}
	if c, ok := bearerCallers[tok]; ok {
		return c, nil
	}
	return authz.Caller{}, fmt.Errorf("%w: signature", authz.ErrInvalidToken)
}

// bearerServer serves a go-sdk server with a policy behind guard, over
// streamable HTTP on loopback; its whoami tool answers the caller's
// UserID as go-sdk hands it to handlers.
func bearerServer(t *testing.T, guard func(http.Handler) http.Handler) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "1.0.0"}, nil)
	logs := &logbuf.Buffer{}
	gosdk.Attach(s, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithAuthorization(authz.Policy{
		Tools: map[string][]string{"whoami": {"issues:read"}},
	})))
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		who := ""
		if ti := req.GetExtra().TokenInfo; ti != nil {
			who = ti.UserID
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: who}}}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: guard(h), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String()
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// postWith posts body with the Authorization headers given, in order, and
// the session id when not empty.
func postWith(t *testing.T, url, session, body string, authorization ...string) *http.Response {
	t.Helper()
	req := rawrpc.Request(t, url, []byte(body))
	for _, a := range authorization {
		req.Header.Add("Authorization", a)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	res, _, err := rawrpc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGoSDKRequireBearerAnswersAsTheTable: behind gosdk.RequireBearer a
// go-sdk server answers each bearer case as docs/authorization.md's table
// says (what go-sdk's own auth.RequireBearerToken did not: 500 without
// Retry-After for an undecidable token, no error="invalid_token", the
// first of two Authorization headers admitted), and go-sdk still gets the
// caller: the tool reads its UserID, and a session is bound to it.
func TestGoSDKRequireBearerAnswersAsTheTable(t *testing.T) {
	url := bearerServer(t, gosdk.RequireBearer(bearerVerifier, authz.Bearer{
		ResourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		Scopes:           []string{"mcp"},
	}))
	for _, c := range []struct {
		name          string
		authorization []string
		status        int
		challenge     string // in WWW-Authenticate
		retryAfter    bool
	}{
		{"no token", nil, 401, `resource_metadata="https://mcp.example.com/`, false},
		{"refused", []string{"Bearer forged"}, 401, `error="invalid_token"`, false},
		{"malformed", []string{"Bearer a b"}, 401, `error="invalid_token"`, false},
		{"undecidable", []string{"Bearer down"}, 503, "", true},
		{"admin then garbage", []string{"Bearer admin", "Bearer garbage"}, 401, `error="invalid_token"`, false},
		{"garbage then admin", []string{"Bearer garbage", "Bearer admin"}, 401, `error="invalid_token"`, false},
		{"allowed", []string{"Bearer reader"}, 200, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := postWith(t, url, "", initializeBody, c.authorization...)
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d", res.StatusCode, c.status)
			}
			if got := res.Header.Get("WWW-Authenticate"); !strings.Contains(got, c.challenge) {
				t.Errorf("WWW-Authenticate %q lacks %q", got, c.challenge)
			}
			if got := res.Header.Get("Retry-After"); (got != "") != c.retryAfter {
				t.Errorf("Retry-After %q", got)
			}
		})
	}
	cs := connectAs(t, url, "reader", nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "alice" {
		t.Fatalf("whoami as reader: %v %+v", err, res)
	}
	// go-sdk binds the session to alice: bob's token cannot use it.
	if res := postWith(t, url, cs.ID(), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Bearer admin"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("alice's session with bob's token: %d, want 403", res.StatusCode)
	}
}

// TestTwoAuthorizationHeadersAreRefused: go-sdk's auth.RequireBearerToken
// reads the first Authorization header only, so an admin token followed
// by garbage was admitted as the admin; through gosdk.TokenVerifier a
// request with two headers is refused, as authz.RequireBearer refuses it.
func TestTwoAuthorizationHeadersAreRefused(t *testing.T) {
	url := bearerServer(t, auth.RequireBearerToken(gosdk.TokenVerifier(bearerVerifier), &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
	}))
	if res := postWith(t, url, "", initializeBody, "Bearer admin"); res.StatusCode != http.StatusOK {
		t.Fatalf("one header: %d", res.StatusCode)
	}
	for _, two := range [][]string{{"Bearer admin", "Bearer garbage"}, {"Bearer admin", "Bearer admin"}} {
		if res := postWith(t, url, "", initializeBody, two...); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("%q: %d, want 401", two, res.StatusCode)
		}
	}
}

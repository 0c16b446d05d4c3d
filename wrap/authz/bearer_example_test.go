package authz_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// An opaque token needs no package: a Verifier func that asks the
// authorization server about it (RFC 7662 token introspection) is the
// whole of it. Here the authorization server is a stand-in that knows one
// token.
func ExampleVerifier_introspection() {
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.PostForm.Get("token") != "opaque-123" {
			_, _ = fmt.Fprint(w, `{"active":false}`)
			return
		}
		_, _ = fmt.Fprintf(w, `{"active":true,"sub":"alice","scope":"mcp issues:read","aud":"https://mcp.example.com/mcp","exp":%d}`,
			time.Now().Add(time.Hour).Unix())
	}))
	defer as.Close()
	introspectionURL := as.URL

	introspect := func(ctx context.Context, token string, _ *http.Request) (authz.Caller, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, introspectionURL,
			strings.NewReader(url.Values{"token": {token}}.Encode()))
		if err != nil {
			return authz.Caller{}, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req) // the server's own client credentials go here
		if err != nil {
			return authz.Caller{}, err // could not decide: 503
		}
		defer func() { _ = resp.Body.Close() }()
		var out struct {
			Active bool   `json:"active"`
			Sub    string `json:"sub"`
			Scope  string `json:"scope"`
			Aud    string `json:"aud"`
			Exp    int64  `json:"exp"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			return authz.Caller{}, err
		}
		if !out.Active || out.Aud != "https://mcp.example.com/mcp" {
			return authz.Caller{}, fmt.Errorf("%w: inactive, or for another audience", authz.ErrInvalidToken)
		}
		return authz.Caller{Subject: out.Sub, Scopes: strings.Fields(out.Scope), Expires: time.Unix(out.Exp, 0)}, nil
	}

	mcpHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := authz.FromContext(r.Context())
		_, _ = fmt.Fprintf(w, "%s %v", c.Subject, c.Scopes)
	})
	handler := authz.RequireBearer(introspect, authz.Bearer{
		ResourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		Scopes:           []string{"mcp"},
	})(mcpHandler)

	for _, token := range []string{"opaque-123", "opaque-456", ""} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}"))
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		if w.Code == 200 {
			fmt.Println(w.Code, w.Body)
			continue
		}
		fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"))
	}
	// Output:
	// 200 alice [mcp issues:read]
	// 401 Bearer error="invalid_token", error_description="the access token is malformed, expired, or not accepted by this server", scope="mcp", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// 401 Bearer scope="mcp", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
}

// A Challenge says which calls need which scopes; a caller without them
// gets 403 insufficient_scope naming them, and can ask its authorization
// server for a token that has them.
func ExampleBearer_challenge() {
	verify := func(context.Context, string, *http.Request) (authz.Caller, error) {
		return authz.Caller{Subject: "alice", Scopes: []string{"mcp", "issues:read"}}, nil
	}
	challenge := func(method, name string) []string {
		if method == "tools/call" && name == "delete_repository" {
			return []string{"repo:admin"}
		}
		return nil
	}
	mcpHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	handler := authz.RequireBearer(verify, authz.Bearer{
		ResourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		Scopes:           []string{"mcp"},
		Challenge:        challenge,
	})(mcpHandler)

	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_repository","arguments":{}}}`))
	r.Header.Set("Authorization", "Bearer some.jwt.token")
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"))
	fmt.Print(w.Body)
	// Output:
	// 403 Bearer error="insufficient_scope", error_description="the token lacks a scope this tools/call requires", scope="mcp repo:admin", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// {"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"insufficient scope: tools/call of \"delete_repository\" requires repo:admin","data":{"code":"permission_denied","scopes":["repo:admin"]}}}
}

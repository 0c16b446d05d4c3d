package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

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

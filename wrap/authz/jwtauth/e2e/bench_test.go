package e2e_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/authz/jwtauth"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// BenchmarkAuthorizedHTTPCall is the whole cost of authorization on an
// allowed call: a real mcp-go client calling a tool of a server on
// mcpgo.NewHTTPServer over loopback, "open" without authorization and
// "authorized" with HTTPAuth (jwtauth with a cached key set, an RS256
// access token) and a policy, the forms taking turns call by call. The
// token is the same on every call, as a client sends it.
//
//	cd wrap/authz/jwtauth/e2e && go test -run '^$' -bench AuthorizedHTTPCall -benchtime 3000x -count 3 .
func BenchmarkAuthorizedHTTPCall(b *testing.B) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k", Algorithm: "RS256", Use: "sig"}}})
	}))
	defer jwks.Close()
	const resource = "http://mcp.test/mcp"
	v, err := jwtauth.New(context.Background(), jwtauth.Config{Issuer: jwks.URL, Audience: resource, JWKSURL: jwks.URL})
	if err != nil {
		b.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k"))
	if err != nil {
		b.Fatal(err)
	}
	token, err := jwt.Signed(signer).Claims(map[string]any{"iss": jwks.URL, "aud": resource, "sub": "alice",
		"scope": "mcp forecast:read", "exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()}).Serialize()
	if err != nil {
		b.Fatal(err)
	}
	policy := authz.Policy{Tools: map[string][]string{"forecast": {"forecast:read"}}}
	var clients []*client.Client
	for _, authorized := range []bool{false, true} {
		opts := []wrap.Option{}
		var limits mcpgo.HTTPLimits
		if authorized {
			opts = append(opts, wrap.WithAuthorization(policy))
			limits.Auth = &mcpgo.HTTPAuth{Verifier: v.Verify, Bearer: authz.Bearer{Scopes: []string{"mcp"}},
				Metadata: server.ProtectedResourceMetadataConfig{Resource: resource, AuthorizationServers: []string{jwks.URL}}}
		}
		s := server.NewMCPServer("bench", "1.0.0")
		mcpgo.Attach(s, wrap.New(opts...))
		s.AddTool(mcp.NewTool("forecast", mcp.WithReadOnlyHintAnnotation(true)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("sunny"), nil
		})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		hs := mcpgo.NewHTTPServer(s, limits)
		go func() { _ = hs.Serve(ln) }()
		defer func() { _ = hs.Shutdown(context.Background()) }()
		tr, err := transport.NewStreamableHTTP("http://"+ln.Addr().String()+"/mcp",
			transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
		if err != nil {
			b.Fatal(err)
		}
		cl := client.NewClient(tr)
		defer cl.Close()
		if err := cl.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		if _, err := cl.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{ClientInfo: mcp.Implementation{Name: "bench", Version: "0"}}}); err != nil {
			b.Fatal(err)
		}
		clients = append(clients, cl)
	}
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "forecast"}}
	benchmix.Run(b, []string{"open", "authorized"}, func(i int) error {
		res, err := clients[i].CallTool(context.Background(), req)
		if err == nil && res.IsError {
			err = fmt.Errorf("isError: %v", res.Content)
		}
		return err
	})
}

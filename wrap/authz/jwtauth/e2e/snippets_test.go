package e2e_test

// The Go snippets of docs/authorization.md, compiled here (with both SDKs
// and jwtauth at hand) for internal/readme's TestEverySnippetCompiles.

import (
	"context"
	"log"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/authz/jwtauth"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// docs/authorization.md: mcp-go.
func snippetMCPGo(ctx context.Context, s *server.MCPServer) {
	v, err := jwtauth.New(ctx, jwtauth.Config{
		Issuer:   "https://auth.example.com",
		Audience: "https://mcp.example.com/mcp",
	})
	if err != nil {
		log.Fatal(err)
	}
	hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{Auth: &mcpgo.HTTPAuth{
		Verifier: v.Verify,
		Bearer:   authz.Bearer{Scopes: []string{"mcp"}},
		Metadata: server.ProtectedResourceMetadataConfig{
			Resource:             "https://mcp.example.com/mcp",
			AuthorizationServers: []string{"https://auth.example.com"},
		},
	}})
	log.Fatal(hs.ListenAndServe(":8080"))
}

// docs/authorization.md: a tool reads its caller.
func snippetWhoami(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, _ := authz.FromContext(ctx)
		return mcp.NewToolResultText(c.Subject), nil
	})
}

// docs/authorization.md: go-sdk, answering as the table says.
func snippetGoSDKRequireBearer(v *jwtauth.Verifier, s *sdkmcp.Server) *http.ServeMux {
	guard := gosdk.RequireBearer(v.Verify, authz.Bearer{
		ResourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		Scopes:           []string{"mcp"},
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", guard(sdkmcp.NewStreamableHTTPHandler(func(*http.Request) *sdkmcp.Server { return s }, nil)))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported:      []string{"mcp"},
	}))
	return mux
}

// go-sdk's own middleware with gosdk.TokenVerifier.
func snippetGoSDK(v *jwtauth.Verifier, s *sdkmcp.Server) *http.ServeMux {
	guard := sdkauth.RequireBearerToken(gosdk.TokenVerifier(v.Verify), &sdkauth.RequireBearerTokenOptions{
		ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		Scopes:              []string{"mcp"},
		ClockSkew:           30 * time.Second,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", guard(sdkmcp.NewStreamableHTTPHandler(func(*http.Request) *sdkmcp.Server { return s }, nil)))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported:      []string{"mcp"},
	}))
	return mux
}

// docs/authorization.md: a go-sdk tool reads its caller.
func snippetGoSDKWhoami(_ context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
	who := ""
	if ti := req.GetExtra().TokenInfo; ti != nil {
		who = ti.UserID
	}
	return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: who}}}, nil
}

// docs/authorization.md: any handler, with the scope challenge.
func snippetRequireBearer(v *jwtauth.Verifier, mcpHandler http.Handler, challenge func(method, name string) []string) http.Handler {
	handler := authz.RequireBearer(v.Verify, authz.Bearer{
		ResourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		Scopes:           []string{"mcp"},
		Challenge:        challenge,
	})(mcpHandler)
	return handler
}

// docs/authorization.md: jwtauth's settings.
func snippetJWTConfig(ctx context.Context) (*jwtauth.Verifier, error) {
	v, err := jwtauth.New(ctx, jwtauth.Config{
		Issuer:     "https://auth.example.com",
		Audience:   "https://mcp.example.com/mcp",
		JWKSURL:    "https://auth.example.com/.well-known/jwks.json", // no discovery
		Algorithms: []string{"ES256"},
		Skew:       10 * time.Second,
		MaxAge:     time.Minute,
		MinRefetch: 30 * time.Second,
		TypeAtJWT:  true,
	})
	return v, err
}

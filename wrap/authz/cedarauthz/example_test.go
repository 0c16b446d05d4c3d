package cedarauthz_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/authz/cedarauthz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// The policies of docs/authorization-cedar.md: tenant acme may call its
// tools, and a destructive one only with repo:admin.
const examplePolicies = `@id("tenant-acme")
permit (principal, action, resource)
when { principal.claims has tenant && principal.claims.tenant == "acme" };

@id("no-destroy")
forbid (principal, action == MCP::Action::"call", resource)
when { resource.destructive }
unless { principal.scopes.contains("repo:admin") };
`

// newIssuesServer is the guide's snippet: the server's policy is the Cedar
// file's.
func newIssuesServer(path string, logger *slog.Logger) (*server.MCPServer, func() error, error) {
	p, err := cedarauthz.Load(path, cedarauthz.WithLogger(logger))
	if err != nil {
		return nil, nil, err
	}
	s := server.NewMCPServer("issues", "1.0.0")
	s.AddTool(mcp.NewTool("list_issues", mcp.WithReadOnlyHintAnnotation(true)), ran)
	s.AddTool(mcp.NewTool("delete_repository"), ran) // destructive, as mcp-go's NewTool says by default
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithAuthorization(authz.Policy{
		Public: []string{"*"}, // no scope gates anything: Cedar decides
		Check:  p.Check,
	})))
	return s, p.Close, nil
}

func ran(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("ran " + req.Params.Name), nil
}

// Each caller is listed the tools the Cedar policies let it call.
func Example() {
	dir, err := os.MkdirTemp("", "cedarauthz")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "policies.cedar")
	if err := os.WriteFile(path, []byte(examplePolicies), 0o600); err != nil {
		panic(err)
	}
	s, stop, err := newIssuesServer(path, slog.New(slog.DiscardHandler))
	if err != nil {
		panic(err)
	}
	defer stop()

	for _, c := range []authz.Caller{
		{Subject: "alice", Claims: map[string]any{"tenant": "acme"}},
		{Subject: "bob", Scopes: []string{"repo:admin"}, Claims: map[string]any{"tenant": "acme"}},
		{Subject: "eve", Claims: map[string]any{"tenant": "globex"}},
	} {
		// What a verifier in front of the server does (RequireBearer).
		ctx := authz.NewContext(context.Background(), c)
		resp := s.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		var names []string
		for _, t := range resp.(mcp.JSONRPCResponse).Result.(mcp.ListToolsResult).Tools {
			names = append(names, t.Name)
		}
		fmt.Println(c.Subject, names)
	}
	// Output:
	// alice [list_issues]
	// bob [delete_repository list_issues]
	// eve []
}

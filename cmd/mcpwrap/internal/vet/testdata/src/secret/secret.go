package secret

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type config struct {
	Password  string
	APIKey    string
	User      string
	TokenURL  string
	MaxTokens int
}

func Register(s *server.MCPServer, g *gosdk.Server, cfg config) {
	s.AddTool(mcp.NewTool("login"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if cfg.User == "" {
			return nil, fmt.Errorf("login as %s with %s failed", cfg.User, cfg.Password) // want `secret: tool "login" formats cfg.Password into an error`
		}
		if cfg.TokenURL == "" {
			return mcp.NewToolResultError("bad key " + cfg.APIKey), nil // want `secret: tool "login" formats cfg.APIKey into the result text`
		}
		// Clean look-alikes: non-secret fields and names that describe a secret.
		secretName := "prod-db"
		return mcp.NewToolResultErrorf("user %s, token endpoint %s, %d tokens, secret %s", cfg.User, cfg.TokenURL, cfg.MaxTokens, secretName), nil
	})
	g.AddTool(&gosdk.Tool{Name: "connect"}, func(ctx context.Context, req *gosdk.CallToolRequest) (*gosdk.CallToolResult, error) {
		dsn := "postgres://u:p@h/db"
		if cfg.User == "" {
			return nil, errors.New("cannot open " + dsn) // want `secret: tool "connect" formats dsn into an error`
		}
		accessToken := "t"
		return &gosdk.CallToolResult{IsError: true, Content: []gosdk.Content{&gosdk.TextContent{Text: fmt.Sprintf("token %s rejected", accessToken)}}}, nil // want `secret: tool "connect" formats accessToken into the result text`
	})
}

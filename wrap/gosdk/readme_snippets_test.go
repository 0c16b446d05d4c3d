package gosdk_test

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// README.md, docs/retrofit.md: the go-sdk retrofit.
func gosdkRetrofit(logger *slog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	gosdk.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(25*time.Second)))
	return s
}

// docs/typed-arguments.md: a typed go-sdk tool.
func gosdkTyped(s *mcp.Server, w *wrap.Wrapper) {
	type forecastArgs struct {
		City string `json:"city" validate:"required" description:"City name, e.g. Paris"`
		Days int    `json:"days" validate:"omitempty,min=1,max=14"`
	}
	gosdk.AddTool(s, w, &mcp.Tool{Name: "forecast", Description: "Weather forecast"},
		func(ctx context.Context, req *mcp.CallToolRequest, args forecastArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + args.City}}}, nil, nil
		})
}

// docs/retrofit.md: the one line of a stdio server.
func gosdkStdio(ctx context.Context, s *mcp.Server, w *wrap.Wrapper) error {
	err := gosdk.Run(ctx, s, w, &mcp.StdioTransport{}) // instead of s.Run(ctx, &mcp.StdioTransport{}); no Attach besides
	return err
}

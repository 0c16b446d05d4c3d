package ctxlost

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type tools struct{ db *sql.DB }

func (t *tools) get(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	resp, err := http.Get("http://example.invalid/") // want `ctxlost: tool "get" calls http.Get, which takes no context`
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	rows, err := t.db.Query("select 1") // want `ctxlost: tool "get" calls DB.Query without the handler's ctx.*use .QueryContext\(ctx, …\)`
	if err != nil {
		return nil, err
	}
	rows.Close()
	for i := 0; i < 3; i++ {
		time.Sleep(time.Second) // want `ctxlost: tool "get" sleeps with time.Sleep in a loop`
	}
	return t.clean(ctx)
}

// clean is the context variant of everything above: not reported.
func (t *tools) clean(ctx context.Context) (*mcp.CallToolResult, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://example.invalid/", nil)
	if err != nil {
		return nil, err
	}
	if _, err := http.DefaultClient.Do(r); err != nil {
		return nil, err
	}
	rows, err := t.db.QueryContext(ctx, "select 1")
	if err != nil {
		return nil, err
	}
	rows.Close()
	time.Sleep(time.Millisecond) // not in a loop
	slog.Info("queried")         // logging without ctx loses trace correlation, not cancellation
	for i := 0; i < 3; i++ {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return mcp.NewToolResultText("ok"), nil
}

func Register(s *server.MCPServer, g *gosdk.Server, t *tools) {
	s.AddTool(mcp.NewTool("get"), t.get)
	g.AddResource(&gosdk.Resource{URI: "db://x"}, func(ctx context.Context, req *gosdk.ReadResourceRequest) (*gosdk.ReadResourceResult, error) {
		r, err := http.NewRequest(http.MethodGet, "http://example.invalid/", nil) // want `ctxlost: resource "db://x" builds a request with http.NewRequest`
		if err != nil {
			return nil, err
		}
		_ = r
		c, cancel := context.WithTimeout(context.Background(), time.Second) // want `ctxlost: resource "db://x" uses context.Background\(\)`
		defer cancel()
		_ = c
		go func() {
			_ = context.Background() // a goroutine meant to outlive the call
		}()
		return &gosdk.ReadResourceResult{}, nil
	})
}

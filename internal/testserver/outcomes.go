package testserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/errs"
)

// OutcomeTools are tools whose calls end each way the telemetry tells apart:
// "ok" succeeds and its handler opens a child span, "tool_error" fails as
// the handler reports, "invalid" returns an errs.InvalidArgument, "panics"
// panics and "slow" waits for its context to end.
func OutcomeTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool("ok", mcp.WithString("city")), Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// The handler's context carries the call's span: children join the trace.
			_, child := trace.SpanFromContext(ctx).TracerProvider().Tracer("handler").Start(ctx, "fetch forecast")
			child.End()
			return mcp.NewToolResultText("sunny in " + req.GetString("city", "?")), nil
		}},
		{Tool: mcp.NewTool("tool_error"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("no UV index here"), nil
		}},
		{Tool: mcp.NewTool("invalid"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errs.Newf(errs.InvalidArgument, "parameter \"days\" must be between 1 and 14, got %d", 30)
		}},
		{Tool: mcp.NewTool("panics"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var m map[string]int
			//lint:ignore SA5000 the panic is the point
			m["x"]++
			return nil, nil
		}},
		{Tool: mcp.NewTool("slow"), Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}},
	}
}

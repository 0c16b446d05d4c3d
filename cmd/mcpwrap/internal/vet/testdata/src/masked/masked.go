package masked

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var errNotFound = errors.New("not found")

func Register(s *server.MCPServer, g *gosdk.Server) {
	s.AddTool(mcp.NewTool("direct"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Name == "" {
			return nil, fmt.Errorf("city %q is unknown", req.Params.Name) // want "masked: fmt.Errorf without %w in tool \"direct\" .*the model gets `internal error in tool \"direct\" \\(call id …\\); the details are in the server log`.*mcp-go sends this text verbatim"
		}
		if req.Params.Arguments == nil {
			return nil, errNotFound // want `masked: errors.New \(the package-level errNotFound\) in tool "direct"`
		}
		err := errors.New("no arguments") // want `masked: errors.New in tool "direct"`
		return nil, err
	})
	s.AddTool(mcp.NewTool("deep"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, err := load(req.Params.Name)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(v), nil
	})
	// Clean: a wrapped error keeps its cause's classification; a tool error result is not masked.
	s.AddTool(mcp.NewTool("clean"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("lookup: %w", err)
		}
		return mcp.NewToolResultError("city is unknown"), nil
	})
	gosdk.AddTool(g, &gosdk.Tool{Name: "typed"}, func(ctx context.Context, req *gosdk.CallToolRequest, in struct{ City string }) (*gosdk.CallToolResult, any, error) {
		if in.City == "" {
			return nil, nil, errors.New("city is required") // want `masked: errors.New in tool "typed" .*go-sdk returns this text verbatim as isError content`
		}
		return nil, nil, nil
	})
}

func load(name string) (string, error) {
	return fetch(name)
}

func fetch(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("empty name") // want `masked: fmt.Errorf without %w in fetch \(called by tool "deep"\)`
	}
	return name, nil
}

// A server's own handler shape (github-mcp-server's func(ctx, deps, req,
// args)) is found by the request type among its parameters.
type deps struct{}

func ownShape(ctx context.Context, d deps, req *gosdk.CallToolRequest, args map[string]any) (*gosdk.CallToolResult, any, error) {
	return nil, nil, errors.New("no such repository") // want `masked: errors.New in the tool handler`
}

// Clean: err is reused; the plain error from parse becomes a tool error
// result, and the err that reaches the return comes from elsewhere.
func reused(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	v, err := parse(req.Params.Name)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	err = ctx.Err()
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(v), nil
}

func parse(s string) (string, error) {
	if s == "" {
		return "", errors.New("empty")
	}
	return s, nil
}

type out struct{ N int }

func structured(ctx context.Context, req mcp.CallToolRequest, in struct{ N int }) (out, error) {
	if in.N < 0 {
		return out{}, errors.New("n must not be negative") // want "masked: errors.New in tool \"structured\" .*NewStructuredToolHandler sends it as isError `tool execution failed: <this text>`"
	}
	return out{in.N}, nil
}

func registerStructured(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("structured"), mcp.NewStructuredToolHandler(structured))
}

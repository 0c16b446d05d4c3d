package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestNilWrapperPanicked: every function of this package that takes a
// *wrap.Wrapper takes nil as wrap.New(), as Typed and gosdk.Attach always
// did. Attach(s, nil) dereferenced nil, and so did MetaPropagator,
// HTTPPropagator and Tracer. Each case builds a server with nil where the
// Wrapper goes and calls a failing tool from a real client over streamable
// HTTP: the chain answers, with its masked internal-error result.
func TestNilWrapperPanicked(t *testing.T) {
	fail := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New(adaptercases.NilLeak)
	}
	cases := []struct {
		name  string
		build func(s *server.MCPServer)
	}{
		{"Attach", func(s *server.MCPServer) {
			mcpgo.Attach(s, nil)
			s.AddTool(mcp.NewTool("fail"), fail)
		}},
		{"Tool", func(s *server.MCPServer) {
			s.AddTools(mcpgo.Tool(nil, mcp.NewTool("fail"), fail))
		}},
		{"Typed", func(s *server.MCPServer) {
			s.AddTools(mcpgo.Typed(nil, mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest, cityArgs) (*mcp.CallToolResult, error) {
				return nil, errors.New(adaptercases.NilLeak)
			}))
		}},
		{"MetaPropagator, HTTPPropagator, Tracer", func(s *server.MCPServer) {
			server.WithMetaPropagator(mcpgo.MetaPropagator(nil))(s)
			server.WithPropagator(mcpgo.HTTPPropagator(nil))(s)
			server.WithTracer(mcpgo.Tracer(nil))(s)
			mcpgo.Attach(s, wrap.New())
			s.AddTool(mcp.NewTool("fail"), fail)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := server.NewMCPServer("nil-wrapper", "1.0.0")
			if err := buildNil(c.build, s); err != nil {
				t.Fatal(err)
			}
			conn := testserver.StartHTTP(t, s)
			res, err := conn.Call(t.Context(), "fail", map[string]any{"city": "Oslo"})
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			info, ok := mcpgo.InfoOf(res)
			adaptercases.CheckMaskedInternal(t, res, info, ok)
		})
	}
}

// buildNil runs f on s and returns its panic as an error.
func buildNil(f func(*server.MCPServer), s *server.MCPServer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("building the server panicked: %v", p)
		}
	}()
	f(s)
	return nil
}

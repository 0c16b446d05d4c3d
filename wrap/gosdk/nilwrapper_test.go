package gosdk_test

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

type nilArgs struct {
	City string `json:"city"`
}

// TestNilWrapperIsWrapNew: every function of this package that takes a
// *wrap.Wrapper takes nil as wrap.New(), as wrap/mcpgo's do (its Attach
// dereferenced nil). Each case builds a server with nil where the Wrapper
// goes and calls a failing tool from a real go-sdk client: the chain
// answers, with its masked internal-error result.
func TestNilWrapperIsWrapNew(t *testing.T) {
	fail := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New(adaptercases.NilLeak)
	}
	tool := func() *mcp.Tool { return &mcp.Tool{Name: "fail", InputSchema: map[string]any{"type": "object"}} }
	cases := []struct {
		name    string
		session func(t *testing.T, s *mcp.Server) *mcp.ClientSession
	}{
		{"Attach", func(t *testing.T, s *mcp.Server) *mcp.ClientSession {
			s.AddTool(tool(), fail)
			gosdk.Attach(s, nil)
			return connect(t, "http", s, true)
		}},
		{"Tool", func(t *testing.T, s *mcp.Server) *mcp.ClientSession {
			gosdk.Tool(s, nil, tool(), fail)
			return connect(t, "http", s, true)
		}},
		{"AddTool", func(t *testing.T, s *mcp.Server) *mcp.ClientSession {
			gosdk.AddTool(s, nil, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, nilArgs) (*mcp.CallToolResult, any, error) {
				return nil, nil, errors.New(adaptercases.NilLeak)
			})
			return connect(t, "http", s, true)
		}},
		{"Run", func(t *testing.T, s *mcp.Server) *mcp.ClientSession {
			s.AddTool(tool(), fail)
			st, ct := mcp.NewInMemoryTransports()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- gosdk.Run(ctx, s, nil, st) }()
			t.Cleanup(func() { cancel(); <-done })
			return connectTo(t, ct)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := c.session(t, mcp.NewServer(&mcp.Implementation{Name: "nil-wrapper", Version: "1.0.0"}, nil))
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{"city": "Oslo"}})
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			info, ok := gosdk.InfoOf(res)
			adaptercases.CheckMaskedInternal(t, res, info, ok)
		})
	}
}

package gosdk_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/errcases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// handed collects what errcases.Probe found wrong in the errors the chain
// handed go-sdk (seen by a middleware outside it).
type handed struct {
	mu  sync.Mutex
	bad []string
}

func (h *handed) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			if found := errcases.Probe(err, new(*jsonrpc.Error)); len(found) > 0 {
				h.mu.Lock()
				h.bad = append(h.bad, method+": "+strings.Join(found, "; "))
				h.mu.Unlock()
			}
		}
		return res, err
	}
}

// caseServer serves every case as the raw tool "t<i>", the resource
// "case://<i>" and the prompt "p<i>", each returning the case's error, and
// the tool "ok"; the chain attached, and h's middleware outside it.
func caseServer(cases []errcases.Case, w *wrap.Wrapper, h *handed) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "cases", Version: "1.0.0"}, nil)
	obj := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: "ok", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	for i, c := range cases {
		n := strconv.Itoa(i)
		s.AddTool(&mcp.Tool{Name: "t" + n, InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, c.Err()
		})
		s.AddResource(&mcp.Resource{URI: "case://" + n, Name: c.Name}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, c.Err()
		})
		s.AddPrompt(&mcp.Prompt{Name: "p" + n}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, c.Err()
		})
	}
	gosdk.Attach(s, w)
	s.AddReceivingMiddleware(h.middleware) // added last: outermost
	return s
}

// wellFormed says how a go-sdk client was answered: "" for a result or a
// JSON-RPC error with a code and a message and no panic in it.
func wellFormed(err error) string {
	var w *jsonrpc.Error
	switch {
	case err == nil:
		return ""
	case !errors.As(err, &w):
		return "no answer: " + err.Error()
	case w.Code == 0:
		return "a JSON-RPC error with code 0: " + w.Message
	case w.Message == "", strings.Contains(w.Message, "panic"):
		return "a malformed message: " + strconv.Quote(w.Message)
	}
	return ""
}

// sessionOver connects a client to s over stdio pipes (pipeSession) when
// tr is "stdio", else over streamable HTTP.
func sessionOver(t *testing.T, tr string, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	if tr == "stdio" {
		return pipeSession(t, s)
	}
	return connect(t, "http", s, true)
}

// pipeSession serves s over go-sdk's newline-delimited stdio framing on a
// pair of OS pipes (what a subprocess's stdin and stdout are), in process.
func pipeSession(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ss, err := s.Connect(ctx, &mcp.IOTransport{Reader: inR, Writer: outW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cl := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0.0"}, nil)
	cs, err := cl.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestErrorsHandedToGoSDKAreSafe: no error a handler returns can break
// go-sdk or its answer. Whatever a raw tool, resource or prompt handler
// returns (plain, wrapped, joined, typed nils, panicking methods, errs codes, protocol
// errors and seeded random mixes of them), the error the chain hands go-sdk
// survives errors.As / errors.Is / Unwrap for every target type, the client
// gets a well-formed answer over stdio framing and streamable HTTP, and the
// process answers the next call (go-sdk recovers no panic: a broken error
// read outside the chain would end the test binary).
func TestErrorsHandedToGoSDKAreSafe(t *testing.T) {
	cases := errcases.Cases(30, 40)
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			var logs logbuf.Buffer
			h := &handed{}
			s := caseServer(cases, wrap.New(wrap.WithLogger(logs.Logger())), h)
			cs := sessionOver(t, tr, s)
			calls := 0
			for i, c := range cases {
				n := strconv.Itoa(i)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t" + n})
				check(t, "tool "+c.Name, err)
				_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "case://" + n})
				check(t, "resource "+c.Name, err)
				_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p" + n})
				check(t, "prompt "+c.Name, err)
				cancel()
				calls += 3
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ok"}); err != nil || res.IsError {
				t.Errorf("the server did not answer the next call: %v", err)
			}
			for _, b := range h.bad {
				t.Errorf("the error handed to go-sdk is unsafe: %s", b)
			}
			t.Logf("%d answers checked; %d probe failures", calls, len(h.bad))
		})
	}
}

func check(t *testing.T, what string, err error) {
	t.Helper()
	if bad := wellFormed(err); bad != "" {
		t.Errorf("%s: %s", what, bad)
	}
}

func connectTo(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	cl := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0.0"}, nil)
	cs, err := cl.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestNilTextContentDoesNotBreakTheChain: an isError result holding a nil
// *mcp.TextContent among its contents reaches the client as the masked
// internal error with a call id (a nil content cannot be sent), and the
// session goes on. The chain's sizing of the result, one code for both
// adapters (internal/result), had dereferenced the nil.
func TestNilTextContentDoesNotBreakTheChain(t *testing.T) {
	var logs logbuf.Buffer
	s := mcp.NewServer(&mcp.Implementation{Name: "nil", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "nil_text", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
				&mcp.TextContent{Text: "upstream said no"}, (*mcp.TextContent)(nil)}}, nil
		})
	gosdk.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
	res, err := pipeSession(t, s).CallTool(t.Context(), &mcp.CallToolParams{Name: "nil_text"})
	if err != nil {
		t.Fatal(err)
	}
	info, ok := gosdk.InfoOf(res)
	if !ok || info.Code != "internal" || info.CallID == "" {
		t.Fatalf("want an internal error with a call id, got %+v (%+v)", res, info)
	}
}

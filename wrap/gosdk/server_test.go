package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// dsn is a secret-bearing error text: it must never reach the model.
const dsn = "postgres://app:s3cret@db:5432/x"

// weather is the struct of the typed tools: go-sdk infers its schema from
// the json tags (both fields required), validate from the validate tags.
type weather struct {
	City string `json:"city" validate:"required"`
	Days int    `json:"days" validate:"required,min=1,max=14"`
}

type forecast struct {
	Summary string `json:"summary"`
}

type loginArgs struct {
	User     string `json:"user" validate:"required"`
	Password string `json:"password" mcpwrap:"secret"`
}

// release unblocks the handlers that hang ignoring their context, when the
// test binary ends.
var release = make(chan struct{})

// newServer builds the test server: every kind of handler and failure,
// bare (w nil) or with w attached.
func newServer(w *wrap.Wrapper) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "1.0.0"}, nil)
	obj := map[string]any{"type": "object"}
	raw := func(name string, h mcp.ToolHandler) { s.AddTool(&mcp.Tool{Name: name, InputSchema: obj}, h) }
	raw("echo", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	for _, c := range errmap.Codes() {
		raw("code_"+c.String(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errs.New(c, "the "+c.String()+" message")
		})
	}
	raw("dsn", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("connect %s: connection refused", dsn)
	})
	raw("panic", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("kaboom " + dsn)
	})
	raw("nil", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	raw("hang", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release
		return nil, nil
	})
	raw("rpc", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32042, Message: "custom protocol answer"}
	})
	raw("own_error_result", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
			Text: "upstream said 401 for " + dsn + "?password=hunter2"}}}, nil
	})
	raw("broken_error", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var e *brokenError
		return nil, e
	})
	mcp.AddTool(s, &mcp.Tool{Name: "typed"}, func(_ context.Context, _ *mcp.CallToolRequest, in weather) (*mcp.CallToolResult, forecast, error) {
		return nil, forecast{Summary: "sunny in " + in.City}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "typed_secret"}, func(context.Context, *mcp.CallToolRequest, loginArgs) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("login failed: password=hunter2")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "typed_own_message"}, func(context.Context, *mcp.CallToolRequest, loginArgs) (*mcp.CallToolResult, any, error) {
		// go-sdk's documented way to send a message of one's own while
		// recording the cause for middleware.
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the account is locked; try again tomorrow"}}}
		res.SetError(errors.New("ldap bind uid=bob password=hunter2: locked"))
		return res, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "typed_panic"}, func(context.Context, *mcp.CallToolRequest, weather) (*mcp.CallToolResult, any, error) {
		panic("typed kaboom")
	})
	if w != nil {
		// The same tool through validate (every violation, did-you-mean).
		gosdk.AddTool(s, w, &mcp.Tool{Name: "bound", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(_ context.Context, _ *mcp.CallToolRequest, in weather) (*mcp.CallToolResult, forecast, error) {
				return nil, forecast{Summary: "sunny in " + in.City}, nil
			})
		gosdk.AddTool(s, w, &mcp.Tool{Name: "bound_login"},
			func(context.Context, *mcp.CallToolRequest, loginArgs) (*mcp.CallToolResult, any, error) {
				return nil, nil, errors.New("login failed: password=hunter2")
			})
	}

	s.AddResource(&mcp.Resource{URI: "res://ok", Name: "ok"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "hello"}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "res://dsn", Name: "dsn"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, fmt.Errorf("open %s: timeout", dsn)
	})
	s.AddResource(&mcp.Resource{URI: "res://gone", Name: "gone"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, errs.New(errs.NotFound, "the report was deleted")
	})
	s.AddResource(&mcp.Resource{URI: "res://panic", Name: "panic"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		panic("resource kaboom")
	})
	s.AddResource(&mcp.Resource{URI: "res://nil", Name: "nil"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "res://items/{id}", Name: "items"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			if r.Params.URI == "res://items/bad" {
				return nil, errs.New(errs.InvalidArgument, "item ids are numbers")
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "item"}}}, nil
		})

	s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi " + r.Params.Arguments["name"]}}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "prompt_dsn"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, fmt.Errorf("load template from %s", dsn)
	})
	s.AddPrompt(&mcp.Prompt{Name: "prompt_panic"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		panic("prompt kaboom")
	})
	s.AddPrompt(&mcp.Prompt{Name: "prompt_nil"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, nil
	})
	if w != nil {
		gosdk.Attach(s, w)
	}
	return s
}

// brokenError panics in Error, and is returned as a typed nil.
type brokenError struct{}

func (*brokenError) Error() string { panic("broken Error method") }

// telemetry is what a wrapped test server reports to.
type telemetry struct {
	logs  *logbuf.Buffer
	spans *tracetest.SpanRecorder
}

func newWrapper(tb testing.TB, opts ...wrap.Option) (*wrap.Wrapper, *telemetry) {
	r := obstest.Record(tb, obs.WithoutMetrics())
	return wrap.New(append([]wrap.Option{r.Option(), wrap.WithTimeout(50 * time.Millisecond)}, opts...)...),
		&telemetry{logs: r.Logs, spans: r.Spans}
}

// The transports every test runs over.
var transports = []string{"memory", "http", "stdio"}

// connect serves s over the transport and returns a go-sdk client session.
// For stdio the server is a child process (this test binary with
// GOSDK_CHILD set), so that a bare server's panic kills only the child;
// s is ignored then and wrapped picks the child's server.
func connect(tb testing.TB, transport string, s *mcp.Server, wrapped bool) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0.0"}, nil)
	var t mcp.Transport
	switch transport {
	case "memory":
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, st, nil)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { _ = ss.Close() })
		t = ct
	case "http":
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		srv := httptest.NewServer(h)
		tb.Cleanup(srv.Close)
		t = &mcp.StreamableClientTransport{Endpoint: srv.URL}
	case "stdio":
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		mode := "bare"
		if wrapped {
			mode = "wrapped"
		}
		cmd.Env = append(os.Environ(), "GOSDK_CHILD="+mode)
		cmd.Stderr = &childStderr
		t = &mcp.CommandTransport{Command: cmd}
	}
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cs.Close() })
	return cs
}

// childStderr collects what stdio children write (a bare panic's trace).
var childStderr logbuf.Buffer

// TestMain runs the stdio child server when asked to.
func TestMain(m *testing.M) {
	if mode := os.Getenv("GOSDK_CHILD"); mode != "" {
		var w *wrap.Wrapper
		if mode != "bare" {
			w = wrap.New(wrap.WithLogger(slog.New(slog.NewJSONHandler(os.Stderr, nil))), wrap.WithTimeout(50*time.Millisecond))
		}
		if strings.HasPrefix(mode, "run") {
			os.Exit(runChild(mode, w))
		}
		_ = newServer(w).Run(context.Background(), &mcp.StdioTransport{})
		os.Exit(0)
	}
	code := m.Run()
	close(release)
	os.Exit(code)
}

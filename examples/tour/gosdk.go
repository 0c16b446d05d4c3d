package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// goSDKChild, when set in the environment, makes the tour binary serve the
// bare go-sdk server over stdio: the bare server runs in a child process,
// so that its panic kills only the child.
const goSDKChild = "MCPWRAP_TOUR_GOSDK_CHILD"

type forecastArgs struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

type loginArgs struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

// goSDKServer is a server on the official go-sdk with the failures of the
// tour's go-sdk part.
func goSDKServer() *gomcp.Server {
	s := gomcp.NewServer(&gomcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	obj := map[string]any{"type": "object"}
	s.AddTool(&gomcp.Tool{Name: "lookup_order", InputSchema: obj}, func(context.Context, *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
		return nil, errors.New("query orders: dial postgres://app:s3cret@db:5432/shop: connection refused") //mcpwrap:ignore masked the tour leaks a DSN on purpose
	})
	gomcp.AddTool(s, &gomcp.Tool{Name: "login"}, func(context.Context, *gomcp.CallToolRequest, loginArgs) (*gomcp.CallToolResult, any, error) {
		return nil, nil, errors.New("ldap bind failed: password=hunter2 rejected") //mcpwrap:ignore masked the tour leaks a password on purpose
	})
	gomcp.AddTool(s, &gomcp.Tool{Name: "get_forecast"}, func(_ context.Context, _ *gomcp.CallToolRequest, in forecastArgs) (*gomcp.CallToolResult, any, error) {
		return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: fmt.Sprintf("%d days of sun in %s", in.Days, in.City)}}}, nil, nil
	})
	s.AddTool(&gomcp.Tool{Name: "get_alerts", InputSchema: obj}, func(context.Context, *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
		var alerts map[string]int
		alerts["storm"]++ // a nil map
		return nil, nil   //mcpwrap:ignore nilresult the tour shows what each SDK makes of nil, nil
	})
	return s
}

// goSDKTour calls the same tools on a bare go-sdk server (a child process
// over stdio) and on one with gosdk.Attach, and prints both answers.
func goSDKTour(ctx context.Context, out io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), goSDKChild+"=1")
	cmd.Stderr = io.Discard // the bare child's panic trace
	client := gomcp.NewClient(&gomcp.Implementation{Name: "tour", Version: "1.0.0"}, nil)
	bare, err := client.Connect(ctx, &gomcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer bare.Close()

	var logs logLines
	s := goSDKServer()
	gosdk.Attach(s, wrap.New(wrap.WithLogger(logs.logger())))
	st, ct := gomcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Close()
	wrapped, err := client.Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer wrapped.Close()

	steps := []struct{ tool, what, args string }{
		{"lookup_order", "a raw tool returns an error holding a DSN", `{}`},
		{"login", "a typed tool (mcp.AddTool) returns an error holding a password", `{"user":"bob","password":"x"}`},
		{"get_forecast", "arguments that fail go-sdk's schema", `{"cty":"Rome","days":"three"}`},
		{"get_alerts", "the handler panics", `{}`},
		{"get_forecast", "the next call", `{"city":"Rome","days":3}`},
	}
	fmt.Fprintf(out, "\nThe same on the official go-sdk v1.8.0: a bare server (a child process over stdio) and one with gosdk.Attach\n")
	for i, st := range steps {
		fmt.Fprintf(out, "\n%d. %s — %s\n", i+1, st.tool, st.what)
		p := &gomcp.CallToolParams{Name: st.tool, Arguments: json.RawMessage(st.args)}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		res, err := bare.CallTool(cctx, p)
		cancel()
		fmt.Fprintf(out, "   without mcpwrap: %s\n", describeGoSDK(res, err))
		seen := logs.count()
		res, err = wrapped.CallTool(ctx, p)
		fmt.Fprintf(out, "   with mcpwrap:    %s\n", describeGoSDK(res, err))
		if err != nil {
			return fmt.Errorf("the wrapped go-sdk server answered %s with an error: %v", st.tool, err)
		}
		for _, l := range logs.since(seen) {
			fmt.Fprintf(out, "   operator log:    %s\n", summarize(l))
		}
	}
	return nil
}

// describeGoSDK renders what a go-sdk client receives.
func describeGoSDK(res *gomcp.CallToolResult, err error) string {
	if err != nil {
		var w *jsonrpc.Error
		switch {
		case errors.As(err, &w):
			return fmt.Sprintf("JSON-RPC error %d: %s", w.Code, clip(w.Message, 300))
		case strings.Contains(err.Error(), "EOF"), errors.Is(err, gomcp.ErrConnectionClosed):
			return "process dead: " + clip(err.Error(), 200)
		}
		return "error: " + clip(err.Error(), 300)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*gomcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	s := fmt.Sprintf("isError=%-5v \"%s\"", res.IsError, clip(strings.Join(text, " "), 300))
	if info, ok := gosdk.InfoOf(res); ok {
		s += fmt.Sprintf(" [code=%s retryable=%v]", info.Code, info.Retryable)
	}
	return s
}

// serveGoSDKChild serves the bare go-sdk server over stdio when this
// process is the tour's child; it reports whether it was.
func serveGoSDKChild() bool {
	if os.Getenv(goSDKChild) == "" {
		return false
	}
	_ = goSDKServer().Run(context.Background(), &gomcp.StdioTransport{})
	return true
}

package mcpgo_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestProgressRestartsTheTimeout: under WithProgressTimeout a call that
// reports progress (mcpgo.NotifyProgress) runs past the idle time and
// completes; one that reports none times out after the idle time, one
// that reports forever at the hard cap, each answer saying which; the
// client gets the notifications; the log line and span say timeout, with
// the policy's decision. Stateful and stateless.
func TestProgressRestartsTheTimeout(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			logs, spans := &logbuf.Buffer{}, tracetest.NewSpanRecorder()
			s := server.NewMCPServer("jobs", "1.0.0")
			steps := func(n int, every time.Duration, report bool) server.ToolHandlerFunc {
				return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					for i := 0; n == 0 || i < n; i++ {
						select {
						case <-ctx.Done():
							time.Sleep(30 * time.Millisecond) // after the chain answered: a late line
							return nil, ctx.Err()
						case <-time.After(every):
						}
						if report {
							if err := mcpgo.NotifyProgress(ctx, req, float64(i+1), float64(n), "step"); err != nil {
								return nil, err
							}
						}
					}
					return mcp.NewToolResultText("done"), nil
				}
			}
			// Steps of 50 ms against an idle time of 400 ms and a cap of 2 s:
			// wide margins, for a loaded machine (150 ms and 600 ms failed
			// there). Twelve steps take 600 ms, past the idle time.
			s.AddTool(mcp.NewTool("reporting", mcp.WithReadOnlyHintAnnotation(true)), steps(12, 50*time.Millisecond, true))
			s.AddTool(mcp.NewTool("silent", mcp.WithReadOnlyHintAnnotation(true)), steps(12, 50*time.Millisecond, false))
			s.AddTool(mcp.NewTool("endless", mcp.WithReadOnlyHintAnnotation(true)), steps(0, 50*time.Millisecond, true))
			mcpgo.Attach(s, wrap.New(wrap.WithProgressTimeout(400*time.Millisecond, 2*time.Second),
				wrap.WithLogger(logs.Logger()), wrap.WithAuthorization(authz.Policy{Public: []string{"reporting", "silent", "endless"}}),
				wrap.WithTelemetry(observe.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))))))
			rs := &roundServer{s: s}
			cl := roundClient(t, rs.serve(t, stateless), "reader", nil)
			var notes atomic.Int32
			cl.OnNotification(func(n mcp.JSONRPCNotification) {
				if n.Method == "notifications/progress" {
					notes.Add(1)
				}
			})
			for _, c := range []struct{ tool, answer string }{
				{"reporting", "done"},
				{"silent", `tool "silent" timed out: it reported no progress for 400ms`},
				{"endless", `tool "endless" timed out after 2s, the most a call that reports progress may take`},
			} {
				begin := time.Now()
				res, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: c.tool,
					Meta: &mcp.Meta{ProgressToken: mcp.ProgressToken(c.tool)}}})
				if err != nil {
					t.Fatal(err)
				}
				if text := res.Content[0].(mcp.TextContent).Text; !strings.Contains(text, c.answer) {
					t.Errorf("%s answered %q (after %v), want %q", c.tool, text, time.Since(begin), c.answer)
				}
				lines, _ := logs.Find("tool", c.tool)
				lines = slices.DeleteFunc(lines, func(l map[string]any) bool { return l["outcome"] == nil }) // a late handler's line
				if len(lines) != 1 {
					t.Fatalf("%s: %d log lines", c.tool, len(lines))
				}
				want := map[bool]string{true: "success", false: "timeout"}[c.answer == "done"]
				if a, _ := lines[0]["authz"].(map[string]any); lines[0]["outcome"] != want || a["decision"] != "allowed" {
					t.Errorf("%s log line: outcome %v, authz %v; want %s, allowed", c.tool, lines[0]["outcome"], a, want)
				}
			}
			// The silent handler returned ctx.Err() (Canceled) after its idle
			// clock ran out; its late line said the request was cancelled.
			deadline := time.Now().Add(5 * time.Second)
			for {
				late, _ := logs.Find("msg", "tool finished after its call was answered; result dropped")
				late = slices.DeleteFunc(late, func(l map[string]any) bool { return l["tool"] != "silent" })
				if len(late) > 0 {
					if cause, _ := late[0]["cause"].(string); !strings.Contains(cause, "no progress") || strings.Contains(cause, "cancel") {
						t.Errorf("the silent handler's late line says %q, want the idle timeout", cause)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no late line for the silent handler")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if notes.Load() < 6 {
				t.Errorf("the client got %d progress notifications, want 6 or more", notes.Load())
			}
			for _, sp := range spans.Ended() {
				if failed := sp.Status().Code == codes.Error; failed != (sp.Name() != "tools/call reporting") {
					t.Errorf("span %s has status %v", sp.Name(), sp.Status())
				}
			}
		})
	}
}

package adaptercases

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
)

// Tool is a tool whose handler does the same on either SDK: it returns
// Run's error, or the text "ok" when Run returns nil.
type Tool struct {
	Name string
	Run  func(ctx context.Context) error
}

// CallIDTools are the tools of TestEveryErrorResultCarriesItsCallID that
// need nothing of an SDK. The adapter's test adds two more: "huge", whose
// result has structuredContent {"rows": 4 KiB of text} under an output
// schema, and "typed", a typed tool of a required string "city".
func CallIDTools() []Tool {
	return []Tool{
		{"plain", func(context.Context) error {
			return fmt.Errorf("dial tcp 10.0.0.7:5432: connect: connection refused (password=hunter2)")
		}},
		{"coded", func(context.Context) error { return errs.New(errs.NotFound, "no note named x.md") }},
		{"panic", func(context.Context) error { panic("kaboom") }},
		{"slow", func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		}},
		{"loop", func(context.Context) error { return errs.New(errs.NotFound, "no such order") }},
		{"limited", func(context.Context) error { return nil }},
	}
}

// CallIDOptions are the wrapper's options for those tools, logging to
// logger: a timeout for slow, a loop guard, a limit of one call for
// limited, and a result limit of 1 KiB for huge.
func CallIDOptions(logger *slog.Logger) []wrap.Option {
	lim := limit.New(limit.Rate{}, limit.WithTool("limited", limit.Rate{Limit: 1, Per: time.Hour}), limit.WithLogger(logger))
	return []wrap.Option{wrap.WithLogger(logger), wrap.ForTool("slow", wrap.WithTimeout(50*time.Millisecond)),
		wrap.WithLoopGuard(wrap.LoopGuard{Failures: 1}), wrap.WithLimit(lim), wrap.ForTool("huge", wrap.WithResultLimit(1<<10))}
}

// CallFunc calls tool with the arguments {} and returns whether the result
// is an error and its structuredContent.error.
type CallFunc func(t *testing.T, tool string) (isError bool, info errs.Info, ok bool)

// CheckCallIDs runs the cases of TestEveryErrorResultCarriesItsCallID on a
// server with the tools and options above, its log in logs: every error
// result the chain builds has structuredContent.error.callId, equal to the
// call_id of the call's log line.
func CheckCallIDs(t *testing.T, logs *logbuf.Buffer, call CallFunc) {
	t.Helper()
	call(t, "loop")    // the failure the guard remembers
	call(t, "limited") // the one call the limit allows
	lines := func(t *testing.T, tool string) []map[string]any {
		ls, err := logs.Calls(tool)
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	for _, tc := range []struct{ name, tool, code string }{
		{"plain error shown", "plain", "internal"},
		{"errs error", "coded", "not_found"},
		{"panic", "panic", "internal"},
		{"timeout", "slow", "timeout"},
		{"validation failure", "typed", "invalid_argument"},
		{"loop guard refusal", "loop", ""},
		{"rate-limit refusal", "limited", "rate_limited"},
		{"structured result over the limit", "huge", "result_too_large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(lines(t, tc.tool))
			isError, info, ok := call(t, tc.tool)
			if !isError || !ok {
				t.Fatalf("isError %v, structuredContent.error %v: no error result with its info", isError, ok)
			}
			if tc.code != "" && info.Code != tc.code {
				t.Errorf("code %q, want %q", info.Code, tc.code)
			}
			ls := lines(t, tc.tool)
			if len(ls) != before+1 {
				t.Fatalf("%d log lines for the call, want 1: %v", len(ls)-before, ls[before:])
			}
			id, _ := ls[len(ls)-1]["call_id"].(string)
			if info.CallID == "" || info.CallID != id {
				t.Errorf("structuredContent.error.callId %q, log line's call_id %q", info.CallID, id)
			}
			if tc.tool == "plain" && (strings.Contains(info.Message, "hunter2") || strings.Contains(info.Message, "10.0.0.7")) {
				t.Errorf("a secret in the message: %q", info.Message)
			}
		})
	}
}

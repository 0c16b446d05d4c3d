package wrap_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/result"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// plain is a tool result of no SDK: text contents, isError and structured
// content, what the chain tests below hand the chain through result.Of,
// as the adapters hand it their SDK's result.
type plain struct {
	Texts      []string       `json:"content"`
	IsError    bool           `json:"isError,omitempty"`
	Structured any            `json:"structuredContent,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

type plainSDK struct{}

func (plainSDK) Text(c string) (string, bool)       { return c, true }
func (plainSDK) WithText(_ string, s string) string { return s }
func (plainSDK) Size(c string) (int, bool)          { return len(c), true }
func (plainSDK) NewText(s string) string            { return s }
func (plainSDK) Contents(r *plain) []string         { return r.Texts }
func (plainSDK) NeedsInput(*plain) bool             { return false }
func (plainSDK) IsError(r *plain) bool              { return r.IsError }
func (plainSDK) Structured(r *plain) any            { return r.Structured }
func (plainSDK) Other(*plain) bool                  { return false }
func (plainSDK) Meta(r *plain) map[string]any       { return r.Meta }
func (plainSDK) WithContents(r *plain, c []string) *plain {
	cp := *r
	cp.Texts = c
	return &cp
}

func (plainSDK) WithStructured(r *plain, v any) *plain {
	cp := *r
	cp.Structured = v
	return &cp
}

func (plainSDK) WithMeta(r *plain, key string, v any) *plain {
	cp := *r
	cp.Meta = map[string]any{key: v}
	return &cp
}

func text(s ...string) call.Result {
	return result.Of[plain, string, plainSDK]{R: &plain{Texts: s}}
}

// serveChain runs the Wrapper's chain for one tools/call of name with
// args, as an adapter does, and returns the answer and the log line.
func serveChain(t *testing.T, opts []wrap.Option, name string, args map[string]any, info call.Info,
	h func(ctx context.Context) (call.Result, error)) (call.Answer, map[string]any) {
	t.Helper()
	var logs logbuf.Buffer
	opts = append([]wrap.Option{wrap.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil)))}, opts...)
	w := wrap.New(opts...)
	req := &call.Request{Kind: call.Tool, Name: name, Args: args, Tool: info,
		Identify: func(context.Context, *call.Request) authz.Caller { return authz.Caller{Subject: "alice"} }}
	a := adapter.Chain(w)(t.Context(), req, func(ctx context.Context, _ *call.Request) (call.Result, error) { return h(ctx) })
	var line map[string]any
	for l := range bytes.SplitSeq(bytes.TrimSpace([]byte(logs.String())), []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(l, &m) == nil && m["outcome"] != nil {
			line = m
		}
	}
	return a, line
}

// TestChainOnRequestsOfNoSDK: each layer of the chain, driven as an
// adapter drives it but with no SDK and no server: what the model gets
// and what the log line says, per case.
func TestChainOnRequestsOfNoSDK(t *testing.T) {
	readOnly := call.Info{Annotations: authz.Annotations{Known: true, ReadOnly: true}}
	var runs atomic.Int32
	cases := []struct {
		name    string
		opts    []wrap.Option
		info    call.Info
		handler func(ctx context.Context) (call.Result, error)
		// want: the answer's text holds each; notWant: neither the
		// answer nor the log line holds any (secrets); outcome: the log
		// line's.
		want    []string
		notWant []string
		outcome string
		runs    int32 // handler runs, when not 1
		noRun   bool  // the handler must not run
	}{
		{name: "a caller without the tool's scope is refused before the handler",
			opts:    []wrap.Option{wrap.WithAuthorization(authz.Policy{Tools: map[string][]string{"t": {"weather:admin"}}, StepUp: true})},
			handler: func(context.Context) (call.Result, error) { return text("the handler ran"), nil },
			want:    []string{"weather:admin"}, notWant: []string{"handler ran"}, outcome: "permission_denied", noRun: true},
		{name: "success passes through", handler: func(context.Context) (call.Result, error) { return text("42 °C"), nil },
			want: []string{"42 °C"}, outcome: "success"},
		{name: "plain error with a secret is scrubbed",
			handler: func(context.Context) (call.Result, error) {
				return nil, fmt.Errorf("query failed: password=hunter2 at db")
			},
			want: []string{"query failed", "call id"}, notWant: []string{"hunter2"}, outcome: "tool_error"},
		{name: "refused connection is Unavailable",
			handler: func(context.Context) (call.Result, error) {
				return nil, fmt.Errorf("dial tcp 10.0.0.3:5432: %w", syscall.ECONNREFUSED)
			},
			want: []string{"refused the connection", "[host]"}, outcome: "unavailable"},
		{name: "panic is Internal and the server survives",
			handler: func(context.Context) (call.Result, error) { panic("nil map write: token sk-live-abcdef0123456789") },
			want:    []string{"internal", "call id"}, notWant: []string{"sk-live"}, outcome: "panic"},
		{name: "neither result nor error is Internal",
			handler: func(context.Context) (call.Result, error) { return nil, nil },
			want:    []string{"internal"}, outcome: "internal"},
		{name: "handler-built error result is scrubbed and gets the call id",
			handler: func(context.Context) (call.Result, error) {
				return result.Of[plain, string, plainSDK]{R: &plain{Texts: []string{"upstream said: api_key=AKIA0123456789ABCDEF"}, IsError: true}}, nil
			},
			want: []string{"upstream said", "call id"}, notWant: []string{"AKIA0123456789ABCDEF"}, outcome: "tool_error"},
		{name: "errs code keeps its sentence",
			handler: func(context.Context) (call.Result, error) {
				return nil, errs.New(errs.NotFound, "no city named Atlantis")
			},
			want: []string{"no city named Atlantis"}, outcome: "not_found"},
		{name: "a handler that ignores its context times out", opts: []wrap.Option{wrap.WithTimeout(20 * time.Millisecond)},
			handler: func(context.Context) (call.Result, error) {
				time.Sleep(60 * time.Millisecond)
				return text("late"), nil
			},
			want: []string{"timed out after 20ms"}, notWant: []string{"late"}, outcome: "timeout"},
		{name: "over the tool's limit is cut with a note", opts: []wrap.Option{wrap.ForTool("t", wrap.WithResultLimit(64))},
			handler: func(context.Context) (call.Result, error) { return text(strings.Repeat("x", 1000)), nil },
			want:    []string{"[mcpwrap: the result was cut"}, outcome: "success"},
		{name: "a read-only tool is retried on a transient failure", info: readOnly,
			opts: []wrap.Option{wrap.WithRetry(wrap.RetryPolicy{Initial: time.Millisecond, Max: time.Millisecond})},
			handler: func(context.Context) (call.Result, error) {
				if runs.Add(1) == 1 {
					return nil, fmt.Errorf("read: %w", syscall.ECONNRESET)
				}
				return text("second time"), nil
			},
			want: []string{"second time"}, outcome: "success", runs: 2},
		{name: "a tool that may write is not retried",
			opts: []wrap.Option{wrap.WithRetry(wrap.RetryPolicy{Initial: time.Millisecond, Max: time.Millisecond})},
			handler: func(context.Context) (call.Result, error) {
				return nil, fmt.Errorf("read: %w", syscall.ECONNRESET)
			},
			want: []string{"not retried automatically"}, outcome: "unavailable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runs.Store(0)
			a, line := serveChain(t, c.opts, "t", map[string]any{"city": "Oslo"}, c.info, func(ctx context.Context) (call.Result, error) {
				if c.runs == 0 {
					runs.Add(1)
				}
				return c.handler(ctx)
			})
			var got string
			switch {
			case a.Result != nil:
				got = a.Result.Text()
			case a.Error != nil:
				got = a.Error.Text
			default:
				t.Fatalf("neither a result nor an error result: %+v", a)
			}
			for _, w := range c.want {
				if !strings.Contains(strings.ToLower(got), strings.ToLower(w)) {
					t.Errorf("the answer %q lacks %q", got, w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(got, w) {
					t.Errorf("the answer %q holds %q", got, w)
				}
			}
			if line == nil || line["outcome"] != c.outcome {
				t.Errorf("want a log line with outcome %q, got %v", c.outcome, line)
			}
			for _, w := range c.notWant {
				if b, _ := json.Marshal(line); bytes.Contains(b, []byte(w)) {
					t.Errorf("the log line holds %q: %s", w, b)
				}
			}
			want := c.runs
			switch {
			case c.noRun:
				want = 0
			case want == 0:
				want = 1
			}
			if n := runs.Load(); n != want {
				t.Errorf("the handler ran %d times, want %d", n, want)
			}
		})
	}
}

package gosdk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// TestOneLogLineAndSpanPerRequest sends the whole matrix (including what
// go-sdk answers itself: unknown tool, prompt and resource) and counts one
// JSON log line and one SERVER span per request, none holding a secret.
func TestOneLogLineAndSpanPerRequest(t *testing.T) {
	for _, tr := range []string{"memory", "http"} {
		t.Run(tr, func(t *testing.T) {
			w, tel := newWrapper(t)
			cs := connect(t, tr, newServer(w), true)
			for i, p := range probes() {
				p.do(context.Background(), cs)
				lines, err := tel.logs.Lines()
				if err != nil {
					t.Fatal(err)
				}
				if len(lines) != i+1 {
					t.Fatalf("after %q: %d log lines, want %d", p.name, len(lines), i+1)
				}
				l := lines[i]
				if sid, _ := l["session_id"].(string); tr == "http" && (sid == "" || sid != cs.ID()) {
					t.Errorf("%s: session_id %q, client session %q", p.name, sid, cs.ID())
				}
				if l["protocol_version"] == nil {
					t.Errorf("%s: no protocol_version: %v", p.name, l)
				}
			}
			spans := tel.spans.Ended()
			if len(spans) != len(probes()) {
				t.Fatalf("%d spans, want %d", len(spans), len(probes()))
			}
			for _, s := range spans {
				if s.SpanKind() != trace.SpanKindServer {
					t.Errorf("span %q is %v", s.Name(), s.SpanKind())
				}
			}
			logs := tel.logs.String()
			for _, secret := range []string{"s3cret", "hunter2"} {
				if strings.Contains(logs, secret) {
					t.Errorf("%q in the log", secret)
				}
			}
			for _, want := range []string{`"tool":"nope","call_id"`, `"jsonrpc_code":-32602`, `"outcome":"panic"`, `"stack":`} {
				if !strings.Contains(logs, want) {
					t.Errorf("log lacks %s", want)
				}
			}
		})
	}
}

// TestMetaParentsTheSpan: traceparent in params._meta makes the request's
// span a child of the caller's trace.
func TestMetaParentsTheSpan(t *testing.T) {
	w, tel := newWrapper(t)
	cs := connect(t, "http", newServer(w), true)
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	meta := mcp.Meta{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{}`), Meta: meta}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "greet", Meta: meta}); err != nil {
		t.Fatal(err)
	}
	spans := tel.spans.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans", len(spans))
	}
	for _, s := range spans {
		if got := s.Parent().TraceID().String(); got != traceID {
			t.Errorf("span %q has parent trace %s, want %s", s.Name(), got, traceID)
		}
	}
	if spans[0].Name() != "tools/call echo" || spans[1].Name() != "prompts/get greet" {
		t.Errorf("span names %q, %q", spans[0].Name(), spans[1].Name())
	}
}

// TestHeaderParentsTheSpan: over streamable HTTP, a traceparent header
// (go-sdk hands the headers to the middleware in req.Extra) parents the
// span when _meta has none.
func TestHeaderParentsTheSpan(t *testing.T) {
	w, tel := newWrapper(t)
	s := newServer(w)
	const traceID = "0af7651916cd43dd8448eb211c80319c"
	cs := connectWithHeaders(t, s, headerTransport{"traceparent": "00-" + traceID + "-b7ad6b7169203331-01"})
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	spans := tel.spans.Ended()
	if len(spans) != 1 || spans[0].Parent().TraceID().String() != traceID {
		t.Fatalf("spans %v, want one with parent trace %s", spans, traceID)
	}
}

// connectWithHeaders connects a client to s over streamable HTTP; every
// request it sends carries the headers h.
func connectWithHeaders(t *testing.T, s *mcp.Server, h headerTransport) *mcp.ClientSession {
	t.Helper()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: h}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// headerTransport sets its headers on every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

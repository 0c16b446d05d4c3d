package wrap_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/process"
)

// leak is what a careless handler puts in its errors: a DSN with a password.
const leak = "dial postgres://admin:hunter2@db.internal:5432/notes: connection refused"

// failure is what each named case of the notes server does.
func failure(ctx context.Context, hang <-chan struct{}, name string) error {
	switch name {
	case "missing":
		return errs.Newf(errs.NotFound, "no note named %q", name)
	case "bad":
		return errs.New(errs.InvalidArgument, "the note id must be a number")
	case "goerr":
		return errors.New(leak)
	case "panic":
		panic("nil map in " + leak)
	case "hang":
		<-hang // ignores ctx on purpose
	}
	return nil
}

// notesServer serves the note "note://<case>", the template "notes://{id}"
// and the prompt "<case>", each behaving as failure says; "nil" returns
// neither a value nor an error, and "ok" succeeds.
func notesServer(t *testing.T, opts ...server.ServerOption) *server.MCPServer {
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	s := server.NewMCPServer("notes", "1.0.0", opts...)
	read := func(name string) server.ResourceHandlerFunc {
		return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			if err := failure(ctx, hang, name); err != nil {
				return nil, err
			}
			if name == "nil" {
				return nil, nil
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "note " + name}}, nil
		}
	}
	for _, c := range noteCases {
		s.AddResource(mcp.NewResource("note://"+c.name, c.name), read(c.name))
		s.AddPrompt(mcp.NewPrompt(c.name, mcp.WithArgument("token")),
			func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				if err := failure(ctx, hang, c.name); err != nil {
					return nil, err
				}
				if c.name == "nil" {
					return nil, nil
				}
				return mcp.NewGetPromptResult("ok", []mcp.PromptMessage{
					mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("hello"))}), nil
			})
	}
	s.AddResourceTemplate(mcp.NewResourceTemplate("notes://{id}", "notes"),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			id, _ := req.Params.Arguments["id"].([]string)
			if len(id) != 1 {
				return nil, fmt.Errorf("template variable id is %v", req.Params.Arguments["id"])
			}
			return read(id[0])(ctx, req)
		})
	return s
}

var noteCases = []struct {
	name string
	// code is the JSON-RPC code for a resource (pre-2026 protocol) and a
	// prompt; 0 means success.
	resource, prompt int
	// says is in the message the client reads.
	says string
}{
	{name: "ok"},
	{name: "missing", resource: mcp.RESOURCE_NOT_FOUND, prompt: mcp.INVALID_PARAMS, says: `no note named "missing"`},
	{name: "bad", resource: mcp.INVALID_PARAMS, prompt: mcp.INVALID_PARAMS, says: "the note id must be a number"},
	// Bare mcp-go sends the plain error's text; the model reads it scrubbed.
	{name: "goerr", resource: mcp.INTERNAL_ERROR, prompt: mcp.INTERNAL_ERROR, says: "dial postgres://[host]/notes: connection refused"},
	{name: "nil", resource: mcp.INTERNAL_ERROR, prompt: mcp.INTERNAL_ERROR, says: "the details are in the server log"},
	{name: "panic", resource: mcp.INTERNAL_ERROR, prompt: mcp.INTERNAL_ERROR, says: "the details are in the server log"},
	{name: "hang", resource: mcp.INTERNAL_ERROR, prompt: mcp.INTERNAL_ERROR, says: "timed out after 300ms"},
}

// rpcError is a JSON-RPC error member as it went over the wire.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Code   string `json:"code"`
		CallID string `json:"callId"`
		URI    string `json:"uri"`
		Prompt string `json:"prompt"`
	} `json:"data"`
}

func lastError(t *testing.T, w *testserver.Wire) rpcError {
	t.Helper()
	all := w.JSONRPCErrors()
	if len(all) == 0 {
		t.Fatal("no JSON-RPC error on the wire")
	}
	var e rpcError
	if err := json.Unmarshal(all[len(all)-1], &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func wrapped(t *testing.T, logs *logbuf.Buffer) []server.ServerOption {
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithTimeout(300*time.Millisecond))
	return []server.ServerOption{attached(w)}
}

// read reads uri and returns the text or the error.
func read(cl *client.Client, uri string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cl.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		return "", fmt.Errorf("%d contents", len(res.Contents))
	}
	tc, _ := res.Contents[0].(mcp.TextResourceContents)
	return tc.Text, nil
}

func getPrompt(cl *client.Client, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := cl.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: name,
		Arguments: map[string]string{"token": "sk-live-abcdefghijklmnop"}}})
	return err
}

// TestResourcesOverHTTP reads every case as a resource and through the
// template, and gets it as a prompt, over streamable HTTP with a client on
// the 2025-11-25 protocol: the exact JSON-RPC code, data and a safe
// message, one log line each, and the same session still answering.
func TestResourcesOverHTTP(t *testing.T) {
	logs := &logbuf.Buffer{}
	conn := testserver.StartHTTP(t, notesServer(t, wrapped(t, logs)...), client.WithProtocolVersion("2025-11-25"))
	for _, c := range noteCases {
		for _, uri := range []string{"note://" + c.name, "notes://" + c.name} {
			t.Run(uri, func(t *testing.T) {
				conn.Wire.Reset()
				text, err := read(conn.Client, uri)
				if c.resource == 0 {
					if err != nil || text != "note "+c.name {
						t.Fatalf("read = %q, %v", text, err)
					}
					return
				}
				if err == nil {
					t.Fatalf("read succeeded: %q", text)
				}
				e := lastError(t, conn.Wire)
				checkError(t, e, c.resource, c.says)
				if e.Data.URI != uri {
					t.Errorf("data.uri = %q, want %q", e.Data.URI, uri)
				}
			})
		}
		t.Run("prompt "+c.name, func(t *testing.T) {
			conn.Wire.Reset()
			err := getPrompt(conn.Client, c.name)
			if c.prompt == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			e := lastError(t, conn.Wire)
			checkError(t, e, c.prompt, c.says)
			if e.Data.Prompt != c.name {
				t.Errorf("data.prompt = %q", e.Data.Prompt)
			}
		})
	}
	if text, err := read(conn.Client, "note://ok"); err != nil || text != "note ok" {
		t.Fatalf("the session stopped answering: %q, %v", text, err)
	}
	checkLogs(t, logs)
}

func checkError(t *testing.T, e rpcError, code int, says string) {
	t.Helper()
	if e.Code != code {
		t.Errorf("code = %d, want %d (%q)", e.Code, code, e.Message)
	}
	if !strings.Contains(e.Message, says) {
		t.Errorf("message %q does not say %q", e.Message, says)
	}
	// The call id is random hex, which can hold the port's digits.
	shown := e.Message
	if e.Data.CallID != "" {
		shown = strings.ReplaceAll(shown, e.Data.CallID, "")
	}
	for _, secret := range []string{"hunter2", "admin", "db.internal", "5432", "sk-live"} {
		if strings.Contains(shown, secret) {
			t.Errorf("message leaks %q: %q", secret, e.Message)
		}
	}
	if masked := strings.Contains(e.Message, "the details are in the server log"); e.Data.CallID == "" || masked && !strings.Contains(e.Message, e.Data.CallID) {
		t.Errorf("an internal error names no call id: %q, data.callId %q", e.Message, e.Data.CallID)
	}
}

// checkLogs finds one line per failed request, the panic's stack in the
// log only, and no secret in any line.
func checkLogs(t *testing.T, logs *logbuf.Buffer) {
	t.Helper()
	lines, err := logs.Lines()
	if err != nil {
		t.Fatal(err)
	}
	var panics, reads, prompts int
	for _, l := range lines {
		switch l["msg"] {
		case "resource read":
			reads++
		case "prompt get":
			prompts++
		}
		if l["outcome"] == "panic" {
			panics++
			if s, _ := l["stack"].(string); !strings.Contains(s, "wrap_test.failure") {
				t.Errorf("panic line without the stack: %v", l)
			}
		}
	}
	// Each case is read twice (resource, template) and got once, plus the
	// final read.
	if reads != 2*len(noteCases)+1 || prompts != len(noteCases) || panics != 3 {
		t.Errorf("%d resource lines, %d prompt lines, %d panics; want %d, %d, 3", reads, prompts, panics, 2*len(noteCases)+1, len(noteCases))
	}
	if s := logs.String(); strings.Contains(s, "hunter2") || strings.Contains(s, "sk-live-abcdefghijklmnop") {
		t.Errorf("a secret reached the log:\n%s", s)
	}
}

// TestResourcesOverStdio does the same over mcp-go's stdio transport, with
// the client's default (2026-07-28) protocol, where a missing resource is
// -32602: the client sees each code as mcp-go's sentinel error.
func TestResourcesOverStdio(t *testing.T) {
	logs := &logbuf.Buffer{}
	cl := testserver.StartStdio(t, notesServer(t, wrapped(t, logs)...))
	sentinel := map[int]error{mcp.INVALID_PARAMS: mcp.ErrInvalidParams, mcp.INTERNAL_ERROR: mcp.ErrInternalError}
	for _, c := range noteCases {
		for _, uri := range []string{"note://" + c.name, "notes://" + c.name} {
			t.Run(uri, func(t *testing.T) {
				_, err := read(cl, uri)
				want := c.resource
				if want == mcp.RESOURCE_NOT_FOUND {
					want = mcp.INVALID_PARAMS
				}
				checkSentinel(t, err, sentinel[want], c.says)
			})
		}
		t.Run("prompt "+c.name, func(t *testing.T) {
			checkSentinel(t, getPrompt(cl, c.name), sentinel[c.prompt], c.says)
		})
	}
	if text, err := read(cl, "note://ok"); err != nil || text != "note ok" {
		t.Fatalf("the connection stopped answering: %q, %v", text, err)
	}
}

func checkSentinel(t *testing.T, err, want error, says string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	if !strings.Contains(err.Error(), says) || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "db.internal") {
		t.Errorf("err = %q, want it to say %q and nothing secret", err, says)
	}
}

// TestServerOptionsCoverResources: the one-line retrofit protects
// resources and prompts too.
func TestServerOptionsCoverResources(t *testing.T) {
	logs := &logbuf.Buffer{}
	conn := testserver.StartHTTP(t, notesServer(t, attached(wrap.New(wrap.WithLogger(logs.Logger())))),
		client.WithProtocolVersion("2025-11-25"))
	for uri, code := range map[string]int{"note://missing": mcp.RESOURCE_NOT_FOUND, "notes://panic": mcp.INTERNAL_ERROR} {
		conn.Wire.Reset()
		if _, err := read(conn.Client, uri); err == nil {
			t.Fatalf("%s: no error", uri)
		}
		checkError(t, lastError(t, conn.Wire), code, "")
	}
	conn.Wire.Reset()
	if err := getPrompt(conn.Client, "goerr"); err == nil {
		t.Fatal("prompt goerr succeeded")
	}
	checkError(t, lastError(t, conn.Wire), mcp.INTERNAL_ERROR, "dial postgres://[host]/notes: connection refused")
	if lines, _ := logs.Find("msg", "resource read"); len(lines) != 2 {
		t.Errorf("%d resource lines, want 2:\n%s", len(lines), logs.String())
	}
}

// TestResourceReadsAreRateLimited: a limit for "resources/read" applies to
// resources/read as it did before the chain became SDK-neutral (it had
// been skipped for everything but tools/call).
func TestResourceReadsAreRateLimited(t *testing.T) {
	lim := limit.New(limit.Rate{Limit: 1000, Per: time.Minute}, limit.WithTool("resources/read", limit.Rate{Limit: 1, Per: time.Minute}))
	s := notesServer(t, attached(wrap.New(wrap.WithLimit(lim))))
	conn := testserver.StartHTTP(t, s)
	read := func() error {
		_, err := conn.Client.ReadResource(t.Context(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "note://ok"}})
		return err
	}
	if err := read(); err != nil {
		t.Fatalf("first read: %v", err)
	}
	if err := read(); err == nil || !strings.Contains(err.Error(), "allows 1 call per minute") {
		t.Fatalf("second read: %v, want the rate limit", err)
	}
}

// TestResourceBulkhead: a resource handler abandoned by its timeout keeps
// its bulkhead slot until it returns, so with one slot the next read is
// refused at once (Unavailable, with a retry-after) instead of piling up
// goroutines; once the handler returns, reads are served again.
func TestResourceBulkhead(t *testing.T) {
	release := make(chan struct{})
	w := wrap.New(wrap.WithTimeout(100*time.Millisecond), wrap.WithBulkhead(wrap.Bulkhead{PerTool: 1}))
	s := server.NewMCPServer("notes", "1.0.0", attached(w))
	returned := make(chan struct{}, 1)
	s.AddResource(mcp.NewResource("note://slow", "slow"), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		<-release // ignores its context
		returned <- struct{}{}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "late"}}, nil
	})
	s.AddResource(mcp.NewResource("note://fast", "fast"), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "note fast"}}, nil
	})
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))

	if _, err := read(conn.Client, "note://slow"); err == nil {
		t.Fatal("the hung read succeeded")
	}
	if e := lastError(t, conn.Wire); e.Data.Code != "timeout" {
		t.Fatalf("first read: %+v", e)
	}
	conn.Wire.Reset()
	start := time.Now()
	if _, err := read(conn.Client, "note://fast"); err == nil {
		t.Fatal("a read was admitted while the abandoned handler held the only slot")
	}
	if e := lastError(t, conn.Wire); e.Code != mcp.INTERNAL_ERROR || e.Data.Code != "unavailable" || time.Since(start) > 30*time.Second {
		t.Fatalf("refusal: %+v after %v", e, time.Since(start))
	}
	close(release)
	<-returned
	deadline := time.Now().Add(time.Minute)
	for {
		text, err := read(conn.Client, "note://fast")
		if err == nil && text == "note fast" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slot was never given back: %q, %v", text, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestResourceFatalExit: an errs.Fatal error from a resource handler is
// answered (masked, -32603), then the process stops with ExitFatal, as for
// a tool; reads arriving meanwhile are refused without running a handler.
func TestResourceFatalExit(t *testing.T) {
	exited := make(chan int, 1)
	w := wrap.New(wrap.WithFatalExit(process.FatalExit{Grace: time.Millisecond, Exit: func(code int) { exited <- code }}))
	s := server.NewMCPServer("notes", "1.0.0", attached(w))
	ran := 0
	s.AddResource(mcp.NewResource("note://config", "config"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		ran++
		return nil, errs.New(errs.Fatal, "the notes database file is corrupt")
	})
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))
	if _, err := read(conn.Client, "note://config"); err == nil {
		t.Fatal("a fatal error was a success")
	}
	e := lastError(t, conn.Wire)
	if e.Code != mcp.INTERNAL_ERROR || e.Data.Code != "fatal" || e.Data.CallID == "" {
		t.Fatalf("answer = %+v", e)
	}
	select {
	case code := <-exited:
		if code != process.ExitFatal {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the process did not stop")
	}
	conn.Wire.Reset()
	if _, err := read(conn.Client, "note://config"); err == nil || ran != 1 {
		t.Fatalf("a read after the fatal error ran the handler (%d runs) or succeeded: %v", ran, err)
	}
	if e := lastError(t, conn.Wire); e.Code != mcp.INTERNAL_ERROR {
		t.Fatalf("refusal = %+v", e)
	}
}

const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"

// TestResourceAndPromptSpans checks the spans of resources/read and
// prompts/get against the MCP semantic conventions: names, the URI with
// its password redacted, the prompt name, a URI no handler matches, error.type from the JSON-RPC
// code, the client's trace from params._meta as parent, and the duration
// metric by method.
func TestResourceAndPromptSpans(t *testing.T) {
	rec := obstest.Record(t)
	spans, reader, logs := rec.Spans, rec.Reader, rec.Logs
	w := wrap.New(rec.Option(), wrap.WithTimeout(time.Second))
	s := notesServer(t, attached(w))
	s.AddResource(mcp.NewResource("db://admin:hunter2@db.internal/notes", "db"),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "db://db.internal/notes", Text: "rows"}}, nil
		})
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))
	meta := &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"}}
	ctx := t.Context()
	for _, uri := range []string{"db://admin:hunter2@db.internal/notes", "note://missing", "nowhere://at-all"} {
		_, _ = conn.Client.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri, Meta: meta}})
	}
	_, _ = conn.Client.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "panic", Meta: meta}})

	ended := spans.Ended()
	if len(ended) != 4 {
		t.Fatalf("%d spans, want 4", len(ended))
	}
	for i, want := range []struct {
		name      string
		attr      attribute.KeyValue
		errorType string
	}{
		{"resources/read", attribute.String("mcp.resource.uri", "db://admin:[REDACTED]@db.internal/notes"), ""},
		{"resources/read", attribute.String("mcp.resource.uri", "note://missing"), "-32002"},
		// No handler: mcp-go answers before the chain; the hook records it.
		{"resources/read", attribute.String("mcp.resource.uri", "nowhere://at-all"), "-32002"},
		{"prompts/get panic", attribute.String("gen_ai.prompt.name", "panic"), "-32603"},
	} {
		sp := ended[i]
		attrs := map[attribute.Key]attribute.Value{}
		for _, a := range sp.Attributes() {
			attrs[a.Key] = a.Value
		}
		if sp.Name() != want.name || attrs[want.attr.Key] != want.attr.Value {
			t.Errorf("span %d: %q %s=%q, want %q %q", i, sp.Name(), want.attr.Key, attrs[want.attr.Key].AsString(), want.name, want.attr.Value.AsString())
		}
		if sp.Parent().TraceID().String() != traceID {
			t.Errorf("span %q is not a child of the client's trace: %v", sp.Name(), sp.Parent().TraceID())
		}
		if got := attrs["error.type"].AsString(); got != want.errorType {
			t.Errorf("span %q: error.type %q, want %q", sp.Name(), got, want.errorType)
		}
		if (want.errorType != "") != (sp.Status().Code == codes.Error) {
			t.Errorf("span %q: status %v", sp.Name(), sp.Status())
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	methods := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "mcp.server.operation.duration" {
				for _, dp := range h.DataPoints {
					v, _ := dp.Attributes.Value("mcp.method.name")
					methods[v.AsString()] += dp.Count
				}
			}
		}
	}
	if methods["resources/read"] != 3 || methods["prompts/get"] != 1 {
		t.Errorf("duration points by method: %v", methods)
	}
	if lines, _ := logs.Find("resource", "db://admin:[REDACTED]@db.internal/notes"); len(lines) != 1 {
		t.Errorf("the log line does not name the redacted URI:\n%s", logs.String())
	}
}

// TestPromptLimiterKeyAsDocumented: a limit for one prompt is keyed
// "prompts/get " + the prompt's name ("prompts/get ok"), as Limiter's doc says
// now; it said "prompts/get " + " " + name, two spaces, a key no prompts/get
// ever has. A real mcp-go server and client get the prompt "ok" twice, then
// the prompt "bad": only the second "ok" is refused, and only with a
// one-prompt limit keyed as documented.
func TestPromptLimiterKeyAsDocumented(t *testing.T) {
	const refused = "allows 1 call per minute"
	cases := []struct {
		name, key string
		limited   bool
	}{
		{"prompts/get + name", "prompts/get " + "ok", true},
		{"the key spelled out", "prompts/get ok", true},
		{"two spaces match no prompt", "prompts/get " + " " + "ok", false},
		{"the method alone matches no prompt", "prompts/get", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lim := limit.New(limit.Rate{Limit: 1000, Per: time.Minute}, limit.WithTool(c.key, limit.Rate{Limit: 1, Per: time.Minute}))
			conn := testserver.StartHTTP(t, notesServer(t, attached(wrap.New(wrap.WithLimit(lim)))))
			if err := getPrompt(conn.Client, "ok"); err != nil {
				t.Fatalf("first get: %v", err)
			}
			err := getPrompt(conn.Client, "ok")
			if got := err != nil && strings.Contains(err.Error(), refused); got != c.limited {
				t.Errorf("second get of %q under the key %q: %v; want limited %v", "ok", c.key, err, c.limited)
			}
			if !c.limited && err != nil {
				t.Errorf("second get: %v", err)
			}
			if err := getPrompt(conn.Client, "bad"); err == nil || strings.Contains(err.Error(), refused) {
				t.Errorf("another prompt: %v, want its own error, not the limit", err)
			}
		})
	}
}

// BenchmarkResourceRead compares one resources/read through mcp-go's whole
// dispatch, bare and with attached(w) (no telemetry, and with a timeout,
// which runs the handler on a pooled goroutine).
func BenchmarkResourceRead(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"note://today"}}`)
	handler := func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "tides"}}, nil
	}
	for _, c := range []struct {
		name string
		opts []server.ServerOption
	}{
		{"bare", nil},
		{"wrapped", []server.ServerOption{attached(wrap.New())}},
		{"wrapped+timeout", []server.ServerOption{attached(wrap.New(wrap.WithTimeout(1e9)))}},
	} {
		s := server.NewMCPServer("notes", "1.0.0", c.opts...)
		s.AddResource(mcp.NewResource("note://today", "today"), handler)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				if _, ok := s.HandleMessage(ctx, msg).(mcp.JSONRPCResponse); !ok {
					b.Fatal("not a result")
				}
			}
		})
	}
}

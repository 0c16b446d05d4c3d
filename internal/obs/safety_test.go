package obs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

type nilErr struct{ msg string }

func (e *nilErr) Error() string { return e.msg }

type panicErr struct{}

func (panicErr) Error() string { panic("broken Error method") }

// TestBrokenErrorsAreLogged: a handler returning a typed-nil error or an
// error whose Error method panics is answered and logged with a
// placeholder; logging it must not take the connection down.
func TestBrokenErrorsAreLogged(t *testing.T) {
	x := newTel(t)
	s := server.NewMCPServer("w", "1.0.0", attached(wrap.New(obstest.WithObserver(x.obs))))
	s.AddTool(mcp.NewTool("typed_nil"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var e *nilErr
		return nil, e
	})
	s.AddTool(mcp.NewTool("panicky"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, panicErr{}
	})
	conn := testserver.StartHTTP(t, s)
	for _, tool := range []string{"typed_nil", "panicky"} {
		t.Run(tool, func(t *testing.T) {
			res, err := conn.Call(t.Context(), tool, nil)
			if err != nil || !res.IsError {
				t.Fatalf("want an isError result, got %+v, %v", res, err)
			}
			cause, _ := callLine(t, x.logs, tool)["cause"].(string)
			if !strings.Contains(cause, "<") {
				t.Fatalf("cause %q has no placeholder", cause)
			}
		})
	}
}

// TestLogLinesAreValidUTF8: invalid UTF-8 and bidi controls in arguments,
// tool names and causes never reach a log line raw.
func TestLogLinesAreValidUTF8(t *testing.T) {
	x := newTel(t)
	s := server.NewMCPServer("w", "1.0.0", attached(wrap.New(obstest.WithObserver(x.obs))))
	s.AddTool(mcp.NewTool("echo"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("bad input \xff\xfe and \u202Egnp.exe " + req.GetString("q", ""))
	})
	conn := testserver.StartHTTP(t, s)
	conn.CallRaw(t, "echo", "{\"q\":\"ab\xffc \u202Etxt.exe\",\"\u2066k\":1}")
	_, _ = conn.Call(t.Context(), "no\u202Esuch", nil)
	for i, line := range bytes.Split([]byte(x.logs.String()), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !utf8.Valid(line) || !json.Valid(line) {
			t.Errorf("line %d is not valid UTF-8 JSON: %q", i, line)
		}
		if bytes.ContainsRune(line, '\u202E') || bytes.ContainsRune(line, '\u2066') {
			t.Errorf("line %d carries a raw bidi control: %q", i, line)
		}
	}
	if !strings.Contains(x.logs.String(), `\\u202e`) {
		t.Errorf("the bidi control is not shown escaped: %s", x.logs.String())
	}
}

const pemKey = `-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB
aFDrBz9vFqU4yVkzSHgFUa1hvLQdV3xmGfY5mQ3aXlpZkBqLcR4bJtXy8KpQwErT
-----END RSA PRIVATE KEY-----`

// TestKeyMaterialNeverLogged: a PEM block in the arguments, in the cause
// and in span attributes is replaced whole, also when a cap cuts it.
func TestKeyMaterialNeverLogged(t *testing.T) {
	x := newTel(t, obs.WithArgumentValues(), obs.WithArgumentsAttribute(true), obs.WithMaxArgumentBytes(120))
	s := server.NewMCPServer("w", "1.0.0", attached(wrap.New(obstest.WithObserver(x.obs))))
	s.AddTool(mcp.NewTool("write_file"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("cannot write " + req.GetString("content", ""))
	})
	conn := testserver.StartHTTP(t, s)
	for _, content := range []string{pemKey, "key:\n" + pemKey + "\nend", strings.Repeat("x", 60) + pemKey} {
		if _, err := conn.Call(t.Context(), "write_file", map[string]any{"path": "id_rsa", "content": content}); err != nil {
			t.Fatal(err)
		}
	}
	all := x.logs.String()
	for _, sp := range x.spans.Ended() {
		for _, kv := range sp.Attributes() {
			all += kv.Value.Emit()
		}
		for _, e := range sp.Events() {
			for _, kv := range e.Attributes {
				all += kv.Value.Emit()
			}
		}
	}
	for _, body := range []string{"MIIEpAIBAAKCAQEA", "aFDrBz9vFqU4yVkz", "PRIVATE KEY"} {
		if strings.Contains(all, body) {
			t.Fatalf("key material %q was logged: %s", body, all)
		}
	}
	if !strings.Contains(all, `id_rsa`) {
		t.Fatalf("the rest of the arguments was lost: %s", all)
	}
}

// TestArgumentLoggingOptions: names, types and sizes by default (a value
// under a name no rule knows as secret used to be logged as it was), values
// only as an opt-in, for every tool or per tool, and a per-tool opt-out.
func TestArgumentLoggingOptions(t *testing.T) {
	args := map[string]any{"path": "notes.txt", "content": "dear diary", "tags": []any{"a", "b"}}
	cases := []struct {
		name string
		opts []obs.Option
		tool string
		want string // the arguments as logged, "" for none
	}{
		{"default", nil, "write", `{"content":"<string, 10 bytes>","path":"<string, 9 bytes>","tags":"<array, 2 items>"}`},
		{"values", []obs.Option{obs.WithArgumentValues()}, "write", `{"content":"dear diary","path":"notes.txt","tags":["a","b"]}`},
		{"values for another tool", []obs.Option{obs.WithArgumentValues("read")}, "write", `{"content":"<string, 10 bytes>","path":"<string, 9 bytes>","tags":"<array, 2 items>"}`},
		{"values for this tool", []obs.Option{obs.WithArgumentValues("read", "write")}, "write", `{"content":"dear diary","path":"notes.txt","tags":["a","b"]}`},
		{"names only", []obs.Option{obs.WithArgumentValues(), obs.WithArgumentNamesOnly()}, "write", `{"content":"<string, 10 bytes>","path":"<string, 9 bytes>","tags":"<array, 2 items>"}`},
		{"names only for another tool", []obs.Option{obs.WithArgumentValues(), obs.WithArgumentNamesOnly("read")}, "write", `{"content":"dear diary","path":"notes.txt","tags":["a","b"]}`},
		{"names only for this tool", []obs.Option{obs.WithArgumentValues(), obs.WithArgumentNamesOnly("read", "write")}, "write", `{"content":"<string, 10 bytes>","path":"<string, 9 bytes>","tags":"<array, 2 items>"}`},
		{"values for this tool, names for all", []obs.Option{obs.WithArgumentNamesOnly(), obs.WithArgumentValues("write")}, "write", `{"content":"dear diary","path":"notes.txt","tags":["a","b"]}`},
		{"opt-out", []obs.Option{obs.WithArgumentValues(), obs.WithoutArguments("write")}, "write", ""},
		{"opt-out of another tool", []obs.Option{obs.WithArgumentValues(), obs.WithoutArguments("read")}, "write", `{"content":"dear diary","path":"notes.txt","tags":["a","b"]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := newTel(t, tc.opts...)
			h := mcpgo.Tool(wrap.New(), mcp.NewTool(tc.tool), testserver.OutcomeTools()[0].Handler, obstest.WithObserver(x.obs)).Handler
			if _, err := h(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tc.tool, Arguments: args}}); err != nil {
				t.Fatal(err)
			}
			l := callLine(t, x.logs, tc.tool)
			got, want := "", ""
			if a, ok := l["arguments"]; ok {
				b, _ := json.Marshal(a)
				got = string(b)
			}
			if tc.want != "" {
				var w any
				_ = json.Unmarshal([]byte(tc.want), &w)
				b, _ := json.Marshal(w)
				want = string(b)
			}
			if got != want {
				t.Fatalf("arguments %s, want %s", got, tc.want)
			}
		})
	}
}

// TestMaskedIsRecorded: a call whose model-facing message was replaced
// says so in the log line and on the span, and the span's status does not
// carry the hidden message.
func TestMaskedIsRecorded(t *testing.T) {
	x := newTel(t)
	ctx, rec := x.obs.Start(t.Context(), reqFor("m"), "c1")
	rec.End(ctx, obs.Report{Outcome: obs.CodeOutcome(errs.NotFound), Attempts: 1, Masked: true,
		Err: errs.New(errs.NotFound, "row 42 of table secrets_v2 is missing")})
	if l := callLine(t, x.logs, "m"); l["masked"] != true {
		t.Fatalf("log line %v lacks masked=true", l)
	}
	sp := x.span(t, "tools/call m")
	if a := attrs(sp); a["mcpwrap.masked"] != "true" {
		t.Fatalf("span %v lacks mcpwrap.masked", a)
	}
	if strings.Contains(sp.Status().Description, "secrets_v2") {
		t.Fatalf("status carries the masked message: %q", sp.Status().Description)
	}
}

// TestRedactionKeepsItsNeighbours: the value of a secret pair ends before
// a closing bracket or quote.
func TestRedactionKeepsItsNeighbours(t *testing.T) {
	r := redact.NewRedactor()
	for in, want := range map[string]string{
		"login failed (password=hunter2)":  "login failed (password=[REDACTED])",
		"opts [token:abc123def] next":      "opts [token:[REDACTED]] next",
		"{secret=s3cr3t}":                  "{secret=[REDACTED]}",
		"<auth=xyz>":                       "<auth=[REDACTED]>",
		"password=hunter2, user=ada":       "password=[REDACTED], user=ada",
		"a PuTTY-User-Key-File-2: ssh-rsa": "a [REDACTED]",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTerminalStackIsMultiLine: on the text (tint) logger a panic's stack
// is printed one frame per line, not as a quoted string of \n\t.
func TestTerminalStackIsMultiLine(t *testing.T) {
	var buf bytes.Buffer
	l := obs.NewLogger(obs.WithLogOutput(&buf), obs.WithLogFormat("text"))
	x := obs.New(obs.WithLogger(l), obs.WithoutTracing(), obs.WithoutMetrics())
	ctx, rec := x.Start(t.Context(), reqFor("p"), "c1")
	rec.End(ctx, obs.Report{Outcome: obs.OutcomePanic, Attempts: 1,
		Err:   errs.Wrap(errs.Internal, errors.New("panic: boom"), ""),
		Stack: []byte("goroutine 7 [running]:\nmain.handler()\n\t/src/main.go:12 +0x1d\n")})
	out := buf.String()
	if strings.Contains(out, `\n\t`) || !strings.Contains(out, "\n    main.handler()\n    \t/src/main.go:12") {
		t.Fatalf("stack not printed on its own lines:\n%s", out)
	}
}

// TestObserverLogRedacts: the operator line wrap writes on a fatal error
// goes through the Observer's logger with the per-call redaction.
func TestObserverLogRedacts(t *testing.T) {
	x := newTel(t)
	x.obs.Log(t.Context(), slog.LevelError, "fatal: cannot reach postgres://app:hunter2@db/x",
		slog.String("dsn", "postgres://app:hunter2@db/x"), slog.Any("error", panicErr{}),
		slog.String("api_key", "k-123456"), slog.String("note", "see \u202Ehere"))
	out := x.logs.String()
	if strings.Contains(out, "hunter2") || strings.Contains(out, "k-123456") || strings.ContainsRune(out, '\u202E') {
		t.Fatalf("operator line not redacted: %s", out)
	}
	if !strings.Contains(out, "postgres://app:[REDACTED]@db/x") || !strings.Contains(out, "panicked") {
		t.Fatalf("operator line lost its content: %s", out)
	}
	var nilObs *obs.Observer
	nilObs.Log(t.Context(), slog.LevelError, "nothing") // must not panic
}

// TestSecretsAndScrub: the values of secret arguments (by name and by
// struct tag, numbers included) and headers are found and scrubbed from
// text; ordinary values are left alone; a nil Redactor uses the defaults.
func TestSecretsAndScrub(t *testing.T) {
	type args struct {
		City string `json:"city"`
		Key  string `json:"key" mcpwrap:"secret"`
	}
	r := redact.NewRedactor()
	known := r.Secrets(args{City: "Rome", Key: "k-9f8e7d6c"}, http.Header{"Authorization": {"Bearer abcdefghijklmnop"}})
	got := r.Scrub("no weather for Rome with key k-9f8e7d6c (token abcdefghijklmnop)", known)
	if strings.Contains(got, "k-9f8e7d6c") || strings.Contains(got, "abcdefghijklmnop") || !strings.Contains(got, "Rome") {
		t.Fatalf("not scrubbed: %s", got)
	}
	known = r.Secrets(map[string]any{"password": 482913.0, "city": "Rome"}, nil)
	if got := r.Scrub("pin 482913 for Rome", known); got != "pin [REDACTED] for Rome" {
		t.Fatalf("a numeric secret: %q (known %q)", got, known)
	}
	var nilRed *redact.Redactor
	if got := nilRed.Scrub("call with password=hunter22", nilRed.Secrets(map[string]any{"password": "hunter22"}, nil)); strings.Contains(got, "hunter22") {
		t.Fatalf("nil redact.Redactor: %q", got)
	}
}

// countingErr counts calls of Error, to prove nothing formats the cause of
// a call nobody records.
type countingErr struct{ n *int }

func (e countingErr) Error() string { *e.n++; return "password=hunter2 " + strings.Repeat("x", 1<<20) }

type countingValuer struct{ n *int }

func (v countingValuer) LogValue() slog.Value { *v.n++; return slog.StringValue("v") }

// TestNothingBuiltForASpanNotRecording: with a sampler that drops every
// span and no logger, neither the cause nor the arguments are formatted or
// scrubbed.
func TestNothingBuiltForASpanNotRecording(t *testing.T) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()),
		sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder()))
	o := obs.New(obs.WithTracerProvider(tp), obs.WithoutMetrics(),
		obs.WithArgumentsAttribute(true), obs.WithResultAttribute(true))
	var calls int
	req := &call.Request{Kind: call.Tool, Name: "t", Args: map[string]any{"v": countingValuer{&calls}}}
	ctx, rec := o.Start(t.Context(), req, "c")
	rec.Event(ctx, slog.LevelWarn, obs.EventRetry, slog.Any("cause", countingErr{&calls}))
	rec.End(ctx, obs.Report{Outcome: obs.CodeOutcome(errs.Unavailable), Attempts: 1,
		Err: errs.Wrap(errs.Unavailable, countingErr{&calls}, "")})
	if calls != 0 {
		t.Fatalf("%d Error/LogValue calls for a span nobody records", calls)
	}
}

// TestCostIsFlatPastTheCaps: the bytes allocated to observe a call whose
// argument and cause are 4 MiB are those of a 64 KiB one: nothing past the
// caps is copied, encoded or scrubbed.
func TestCostIsFlatPastTheCaps(t *testing.T) {
	o := boundedObserver()
	perCall := func(n int) uint64 {
		call := boundedCall(o, n)
		call()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 10 {
			call()
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / 10
	}
	small, large := perCall(64<<10), perCall(4<<20)
	if large > small*3/2 {
		t.Fatalf("observing a 4 MiB call allocates %d bytes, a 64 KiB one %d: the cost grows with the input", large, small)
	}
}

// TestCauseSaysEachThingOnce: the log line's cause neither repeats the code
// (it has a field of its own) nor a message errs.FromStatus words from its
// cause ("… HTTP 429 Too Many Requests: … HTTP 429" before).
func TestCauseSaysEachThingOnce(t *testing.T) {
	x := newTel(t)
	s := server.NewMCPServer("w", "1.0.0", attached(wrap.New(obstest.WithObserver(x.obs))))
	s.AddTool(mcp.NewTool("limited"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.FromStatus("weather-api", http.StatusTooManyRequests, http.Header{"Retry-After": {"30"}})
	})
	s.AddTool(mcp.NewTool("panics"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	s.AddTool(mcp.NewTool("plain"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("pq: connection refused")
	})
	conn := testserver.StartHTTP(t, s)
	for tool, want := range map[string]string{
		"limited": "upstream weather-api answered HTTP 429 Too Many Requests",
		"panics":  "panic: boom",
		"plain":   "pq: connection refused",
	} {
		if _, err := conn.Call(t.Context(), tool, nil); err != nil {
			t.Fatal(err)
		}
		if cause, _ := callLine(t, x.logs, tool)["cause"].(string); cause != want {
			t.Errorf("%s: cause %q, want %q", tool, cause, want)
		}
	}
}

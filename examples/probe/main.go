// Command probe connects to any MCP server, lists its tools, calls one (or
// every tool with empty arguments) and prints, per call, the three layers
// (HTTP transport, JSON-RPC envelope, tool result) and the outcome.
//
//	go run ./examples/probe -url http://127.0.0.1:8931/mcp
//	go run ./examples/probe -url http://127.0.0.1:8931/mcp -tool echo -args '{"text":"hi"}' -json
//	go run ./examples/probe -- go run ./examples/kitchen -stdio
//
// The exit status is the worst outcome: 0 all TOOL_SUCCESS, 1 TOOL_ERROR,
// 2 INPUT_REQUIRED, 3 JSONRPC_ERROR, 4 an invalid answer (MALFORMED_JSON,
// INVALID_ENVELOPE, INVALID_TOOL_RESULT, NOT_TOOL_CALL_RESPONSE,
// BODY_TOO_LARGE), 5 a transport failure (HTTP_ERROR, NETWORK_ERROR,
// INCOMPLETE_STREAM), 6 the session could not be set up, 64 bad usage.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK    = 0
	exitSetup = 6
	exitUsage = 64
)

// exitCode ranks an outcome; the worst call decides the exit status.
func exitCode(o outbound.Outcome) int {
	switch o {
	case outbound.OutcomeToolSuccess:
		return 0
	case outbound.OutcomeToolError:
		return 1
	case outbound.OutcomeInputRequired:
		return 2
	case outbound.OutcomeJSONRPCError:
		return 3
	case outbound.OutcomeHTTPError, outbound.OutcomeNetworkError, outbound.OutcomeIncompleteStream:
		return 5
	}
	return 4
}

type headers map[string]string

func (h headers) String() string { return fmt.Sprint(map[string]string(h)) }
func (h headers) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want Name=value, got %q", v)
	}
	h[k] = val
	return nil
}

// callJSON is one call in -json output.
type callJSON struct {
	Tool         string           `json:"tool"`
	Arguments    json.RawMessage  `json:"arguments"`
	Outcome      outbound.Outcome `json:"outcome"`
	Layer        outbound.Layer   `json:"layer"`
	HTTPStatus   int              `json:"httpStatus"`
	ContentType  string           `json:"contentType,omitempty"`
	HTTPStatuses []int            `json:"httpStatuses"`
	PostCount    int              `json:"postCount"`
	SSEEvents    int              `json:"sseEvents,omitempty"`
	// StrayResponses counts responses to other request ids skipped on the stream.
	StrayResponses int     `json:"strayResponses,omitempty"`
	JSONRPC        rpcJSON `json:"jsonrpc"`
	ResultType     *string `json:"resultType"`
	IsError        bool    `json:"isError"`
	Text           string  `json:"text,omitempty"`
	Detail         string  `json:"detail,omitempty"`
	SDK            string  `json:"sdk"`
	RetryOrigin    string  `json:"retryOrigin"`
	Attempts       int     `json:"attempts"`
	RetryAdvised   bool    `json:"retryAdvised"`
	Advice         string  `json:"advice"`
	DurationMs     float64 `json:"durationMs"`
}

type rpcJSON struct {
	// ID is absent when the probe could not see it (stdio: mcp-go numbers
	// the requests itself), never null: null would read as a JSON-RPC error
	// for an unparseable request. It is the id's JSON text, as on the wire.
	ID           json.RawMessage `json:"id,omitempty"`
	ErrorCode    *int64          `json:"errorCode"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
}

type reportJSON struct {
	Server          string     `json:"server"`
	ProtocolVersion string     `json:"protocolVersion"`
	Setup           []postJSON `json:"setup"`
	SetupError      string     `json:"setupError,omitempty"`
	Tools           []string   `json:"tools"`
	Calls           []callJSON `json:"calls"`
	Worst           string     `json:"worst,omitempty"`
	Exit            int        `json:"exit"`
}

type postJSON struct {
	Method string `json:"method"`
	Status int    `json:"status"`
}

// flags are the probe's parsed command line.
type flags struct {
	url, tool string
	arguments map[string]any
	asJSON    bool
	timeout   time.Duration
	retry     bool
	maxBytes  int64
	headers   headers
	command   []string
}

// parseFlags reads args; ok is false after a usage error, already reported.
func parseFlags(args []string, stderr io.Writer) (f flags, ok bool) {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: probe [flags] -url URL | probe [flags] -- command [args…]")
		fs.PrintDefaults()
	}
	fs.StringVar(&f.url, "url", "", "streamable-HTTP endpoint of the server")
	fs.StringVar(&f.tool, "tool", "", "tool to call (default: every tool, with empty arguments)")
	argsJSON := fs.String("args", "{}", "JSON arguments for -tool")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON document instead of text")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "timeout for setup and for each call")
	fs.BoolVar(&f.retry, "retry", false, "retry safely: only tools annotated read-only or idempotent, per the outbound.Advise rules")
	fs.Int64Var(&f.maxBytes, "max-bytes", 16<<20, "read limit for one JSON-RPC message")
	f.headers = headers{}
	fs.Var(f.headers, "header", "extra HTTP header Name=value (repeatable), e.g. Kitchen-Scenario=tool_error")
	if err := fs.Parse(args); err != nil {
		return f, false
	}
	f.command = fs.Args()
	if (f.url == "") == (len(f.command) == 0) {
		fs.Usage()
		return f, false
	}
	if err := json.Unmarshal([]byte(*argsJSON), &f.arguments); err != nil {
		fmt.Fprintf(stderr, "probe: -args is not a JSON object: %v\n", err)
		return f, false
	}
	return f, true
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, ok := parseFlags(args, stderr)
	if !ok {
		return exitUsage
	}
	rep := reportJSON{Server: f.url, Setup: []postJSON{}, Tools: []string{}, Calls: []callJSON{}}
	mc, release, err := connect(f, &rep)
	if err != nil {
		fmt.Fprintf(stderr, "probe: %v\n", err)
		return exitSetup
	}
	defer release()

	tools, setupErr := setup(ctx, mc, f.timeout, &rep)
	if setupErr != nil {
		rep.SetupError = setupErr.Error()
		rep.Exit = exitSetup
		print(stdout, f.asJSON, rep, nil)
		return exitSetup
	}
	for _, t := range tools {
		rep.Tools = append(rep.Tools, t.Name)
	}
	opts := []outbound.Option{}
	if f.retry {
		// The annotations are the server's claims: -retry trusts them.
		opts = append(opts, outbound.WithRetry(outbound.RetryLimits{}), outbound.WithIdempotent(outbound.IdempotentFromAnnotations(tools)))
	}
	oc := outbound.New(mc, opts...)

	calls := []mcp.CallToolRequest{}
	if f.tool != "" {
		calls = append(calls, callReq(f.tool, f.arguments))
	} else {
		for _, t := range tools {
			calls = append(calls, callReq(t.Name, map[string]any{}))
		}
	}
	worst := -1
	var texts []string
	for _, req := range calls {
		cctx, cancel := context.WithTimeout(ctx, f.timeout)
		r := oc.Call(cctx, req)
		cancel()
		cj := toJSON(req.Params.Name, req.GetArguments(), r)
		rep.Calls = append(rep.Calls, cj)
		if r.ProtocolVersion != "" {
			rep.ProtocolVersion = r.ProtocolVersion
		}
		if code := exitCode(r.Outcome); code > worst {
			worst = code
			rep.Worst = string(r.Outcome)
		}
		texts = append(texts, describe(cj))
	}
	rep.Exit = max(worst, exitOK)
	print(stdout, f.asJSON, rep, texts)
	return rep.Exit
}

func callReq(tool string, args map[string]any) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	return req
}

// connect makes the mcp-go client (streamable HTTP through outbound's
// RoundTripper, or a stdio subprocess) and what closes it.
func connect(f flags, rep *reportJSON) (*client.Client, func(), error) {
	if f.url == "" {
		rep.Server = strings.Join(f.command, " ")
		mc, err := client.NewStdioMCPClient(f.command[0], nil, f.command[1:]...)
		if err != nil {
			return nil, nil, err
		}
		return mc, func() { _ = mc.Close() }, nil
	}
	hc := &http.Client{Transport: outbound.NewTransport(nil, outbound.WithMaxMessageBytes(f.maxBytes))}
	st, err := transport.NewStreamableHTTP(f.url, transport.WithHTTPBasicClient(hc), transport.WithHTTPHeaders(f.headers))
	if err != nil {
		return nil, nil, err
	}
	mc := client.NewClient(st)
	return mc, func() { _ = mc.Close(); hc.CloseIdleConnections() }, nil
}

// setup starts the session and lists the tools, recording every POST.
func setup(ctx context.Context, mc *client.Client, timeout time.Duration, rep *reportJSON) ([]mcp.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tctx, posts := outbound.WithTrace(ctx)
	defer func() {
		for _, p := range posts() {
			rep.Setup = append(rep.Setup, postJSON{Method: p.Method, Status: p.Status})
		}
	}()
	if err := mc.Start(tctx); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	init, err := mc.Initialize(tctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "mcpwrap-probe", Version: "1"}}})
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	rep.ProtocolVersion = init.ProtocolVersion
	var tools []mcp.Tool
	var cursor mcp.Cursor
	for {
		var req mcp.ListToolsRequest
		req.Params.Cursor = cursor
		res, err := mc.ListTools(tctx, req)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" || len(tools) > 10000 {
			break
		}
		cursor = res.NextCursor
	}
	slices.SortFunc(tools, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return tools, nil
}

func toJSON(tool string, args map[string]any, r outbound.Report) callJSON {
	v := r.Verdict
	a, _ := json.Marshal(args)
	cj := callJSON{
		Tool: tool, Arguments: a, Outcome: r.Outcome, Layer: r.Outcome.Layer(), HTTPStatus: v.HTTPStatus, ContentType: v.ContentType,
		HTTPStatuses: r.HTTPStatuses, PostCount: r.PostCount, SSEEvents: v.Events, StrayResponses: v.StrayResponses,
		JSONRPC: rpcJSON{ErrorMessage: v.ErrorMessage}, IsError: v.IsError, Text: v.Text, Detail: v.Detail,
		RetryOrigin: r.RetryOrigin, Attempts: r.Attempts, RetryAdvised: r.Advice.Retry, Advice: r.Advice.Reason,
		DurationMs: float64(r.Duration.Microseconds()) / 1000,
	}
	if r.ID != "" {
		cj.JSONRPC.ID = json.RawMessage(r.ID)
	}
	if cj.HTTPStatuses == nil {
		cj.HTTPStatuses = []int{}
	}
	if r.Outcome == outbound.OutcomeJSONRPCError {
		code := v.ErrorCode
		cj.JSONRPC.ErrorCode = &code
	}
	if v.ResultType != "" {
		rt := v.ResultType
		cj.ResultType = &rt
	}
	switch {
	case r.Err != nil:
		cj.SDK = "error: " + clip(r.Err.Error(), 160)
	case r.Result != nil:
		cj.SDK = fmt.Sprintf("result, isError=%v", r.Result.IsError)
	default:
		cj.SDK = "nothing"
	}
	return cj
}

// describe renders one call as text: a line per layer, then the outcome.
func describe(c callJSON) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tools/call %s %s\n", c.Tool, c.Arguments)
	layer := c.Layer
	// transport
	switch {
	case c.HTTPStatus == 0 && c.PostCount == 0:
		fmt.Fprintf(&b, "  transport    not HTTP (stdio or in-process)\n")
	case c.HTTPStatus == 0:
		fmt.Fprintf(&b, "  transport    no HTTP response: %s\n", c.Detail)
	default:
		fmt.Fprintf(&b, "  transport    HTTP %d %s, %d POST(s) %v", c.HTTPStatus, c.ContentType, c.PostCount, c.HTTPStatuses)
		if c.SSEEvents > 0 {
			fmt.Fprintf(&b, ", %d SSE events", c.SSEEvents)
		}
		if layer == outbound.LayerTransport && c.Detail != "" {
			fmt.Fprintf(&b, ": %s", c.Detail)
		}
		b.WriteString("\n")
	}
	// protocol
	switch {
	case layer == outbound.LayerTransport:
		b.WriteString("  protocol     not reached\n")
	case c.Outcome == outbound.OutcomeJSONRPCError:
		code := int64(0)
		if c.JSONRPC.ErrorCode != nil {
			code = *c.JSONRPC.ErrorCode
		}
		fmt.Fprintf(&b, "  protocol     JSON-RPC error %d %q%s\n", code, c.JSONRPC.ErrorMessage, idNote(c.JSONRPC.ID))
	case layer == outbound.LayerProtocol && c.Outcome != outbound.OutcomeInvalidToolResult:
		fmt.Fprintf(&b, "  protocol     %s: %s\n", c.Outcome, c.Detail)
	default:
		fmt.Fprintf(&b, "  protocol     JSON-RPC 2.0 result%s", idNote(c.JSONRPC.ID))
		if c.StrayResponses > 0 {
			fmt.Fprintf(&b, "; %s", c.Detail)
		}
		b.WriteString("\n")
	}
	// application
	switch {
	case c.Outcome == outbound.OutcomeInvalidToolResult:
		fmt.Fprintf(&b, "  application  invalid result: %s\n", c.Detail)
	case layer == outbound.LayerApplication || layer == outbound.LayerInteraction:
		rt := ""
		if c.ResultType != nil {
			rt = *c.ResultType
		}
		fmt.Fprintf(&b, "  application  resultType %s, isError %v", rt, c.IsError)
		if c.Text != "" {
			fmt.Fprintf(&b, ": %q", c.Text)
		}
		b.WriteString("\n")
	default:
		b.WriteString("  application  not reached\n")
	}
	fmt.Fprintf(&b, "  outcome      %s (%s layer); mcp-go returned %s\n", c.Outcome, c.Layer, c.SDK)
	if c.Outcome != outbound.OutcomeToolSuccess {
		verb := "no"
		if c.RetryAdvised {
			verb = "yes"
		}
		fmt.Fprintf(&b, "  retry        %s: %s\n", verb, c.Advice)
	}
	return b.String()
}

func print(w io.Writer, asJSON bool, rep reportJSON, texts []string) {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return
	}
	fmt.Fprintf(w, "server %s, protocol %s\n", rep.Server, orDash(rep.ProtocolVersion))
	if len(rep.Setup) > 0 {
		var s []string
		for _, p := range rep.Setup {
			s = append(s, fmt.Sprintf("%s→%d", p.Method, p.Status))
		}
		fmt.Fprintf(w, "setup POSTs: %s\n", strings.Join(s, ", "))
	}
	if rep.SetupError != "" {
		fmt.Fprintf(w, "setup failed: %s\nexit %d\n", clip(rep.SetupError, 300), rep.Exit)
		return
	}
	fmt.Fprintf(w, "%d tools: %s\n\n", len(rep.Tools), strings.Join(rep.Tools, ", "))
	for _, t := range texts {
		fmt.Fprintln(w, t)
	}
	fmt.Fprintf(w, "worst outcome %s, exit %d\n", orDash(rep.Worst), rep.Exit)
}

func idNote(id json.RawMessage) string {
	if id == nil {
		return ""
	}
	return " (id " + string(id) + ")"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

package outbound

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Caller is what Client wraps; *client.Client from mcp-go is one.
type Caller interface {
	CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error)
}

// Client wraps a Caller so every tools/call yields a Report, one log record
// and, when allowed, safe retries. It is safe for concurrent use if the
// Caller is.
type Client struct {
	next Caller
	cfg  config
}

// New wraps next. Of the options, WithLogger, WithRetry and WithIdempotent
// apply; none logs nothing and never retries.
func New(next Caller, opts ...Option) *Client {
	return &Client{next: next, cfg: configure(opts)}
}

// Report is what one tools/call came to, across its POSTs (multi round-trip
// rounds and retries included).
type Report struct {
	Tool string
	// Outcome is the final outcome: the verdict of the last tools/call POST.
	Outcome Outcome
	// Verdict is that POST's full classification.
	Verdict Verdict
	// ProtocolVersion is the negotiated MCP protocol version, from the
	// request header; "" over stdio or before negotiation.
	ProtocolVersion string
	// PostCount counts every POST the call made; HTTPStatuses lists their
	// statuses in order (0 where no response arrived).
	PostCount    int
	HTTPStatuses []int
	// ID is the JSON-RPC id of the last tools/call request, as JSON text
	// (see Verdict.ID); "" when the wire was not visible.
	ID string
	// Attempts counts calls to the wrapped CallTool (1 + retries).
	Attempts int
	// RetryOrigin says who repeated the call, as the log's retryOrigin
	// field: "none", "sdk" (this package's retries), "business" or "manual"
	// (the context came from BusinessRetry or ManualRetry).
	RetryOrigin string
	// Advice is the retry decision for the final outcome: what the caller
	// may do next.
	Advice   Advice
	Duration time.Duration
	// Result and Err are what the wrapped CallTool returned last.
	Result *mcp.CallToolResult
	Err    error
}

// CallError is returned by CallTool when the call's outcome is a
// transport or protocol failure that mcp-go did not report as an error.
type CallError struct{ Report Report }

// Error returns e.g. "tools/call get_forecast: HTTP_ERROR (HTTP 500)".
func (e *CallError) Error() string {
	s := "tools/call " + e.Report.Tool + ": " + string(e.Report.Outcome)
	if d := e.Report.Verdict.Detail; d != "" {
		s += " (" + d + ")"
	}
	return s
}

// Unwrap returns mcp-go's own error, if any.
func (e *CallError) Unwrap() error { return e.Report.Err }

// CallTool is a drop-in for mcp-go's CallTool: the same values, except that
// a call whose wire outcome is a transport or protocol failure always
// returns an error (a *CallError), even where mcp-go returned a result, and
// so does a call where mcp-go's result disagrees with the wire (it took a
// response to another request on the stream for this call's answer). A tool
// error still comes back as a result with isError true.
func (c *Client) CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	r := c.Call(ctx, req)
	switch r.Outcome {
	case OutcomeToolSuccess, OutcomeToolError:
		if r.Err != nil || (r.Result != nil && r.Result.IsError == (r.Outcome == OutcomeToolError)) {
			return r.Result, r.Err
		}
	}
	return nil, &CallError{Report: r}
}

// Call makes the call, retrying when allowed, and reports what it came to.
func (c *Client) Call(ctx context.Context, req mcp.CallToolRequest) Report {
	start := c.cfg.now()
	rep := Report{Tool: req.Params.Name, RetryOrigin: retryNone}
	if o, ok := ctx.Value(originKey{}).(string); ok {
		rep.RetryOrigin = o
	}
	idem := c.cfg.idempotent(req.Params.Name)
	for {
		rep.Attempts++
		actx, trace := WithTrace(ctx)
		res, err := c.next.CallTool(actx, req)
		rep.Result, rep.Err = res, err
		posts := trace()
		rep.Verdict = verdictOf(posts, res, err)
		rep.Outcome = rep.Verdict.Outcome
		rep.addPosts(posts)
		rep.Advice = Advise(rep.Verdict, idem, rep.Attempts-1, c.cfg.limits)
		if !c.cfg.retry || !rep.Advice.Retry || ctx.Err() != nil {
			break
		}
		if c.cfg.sleep(ctx, rep.Advice.After) != nil {
			break
		}
		rep.RetryOrigin = retrySDK
	}
	rep.Duration = c.cfg.now().Sub(start)
	c.log(ctx, rep)
	return rep
}

// addPosts counts an attempt's POSTs and their statuses, and takes the id
// and protocol version of its tools/call.
func (rep *Report) addPosts(posts []Post) {
	for _, p := range posts {
		rep.PostCount++
		rep.HTTPStatuses = append(rep.HTTPStatuses, p.Status)
		if p.Method != "tools/call" {
			continue
		}
		rep.ID = p.ID
		rep.ProtocolVersion = cmp.Or(p.ProtocolVersion, rep.ProtocolVersion)
	}
}

// verdictOf picks the verdict of the last tools/call POST; without one (no
// HTTP transport, or the call never left) it classifies what mcp-go returned.
func verdictOf(posts []Post, res *mcp.CallToolResult, err error) Verdict {
	for i := len(posts) - 1; i >= 0; i-- {
		if posts[i].Method == "tools/call" && posts[i].Verdict != nil {
			return *posts[i].Verdict
		}
	}
	return fromResult(res, err)
}

// fromResult classifies what an mcp-go CallTool returned, for transports
// where the wire is not visible (stdio, in-process). It is coarser than the
// wire: mcp-go has already decoded the result and turned JSON-RPC errors
// into Go errors (codes it does not know are lost).
func fromResult(res *mcp.CallToolResult, err error) Verdict {
	if err != nil {
		var te *transport.Error
		if errors.As(err, &te) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return transportError(err)
		}
		return Verdict{Outcome: OutcomeJSONRPCError, ErrorCode: jsonrpcCode(err), ErrorMessage: err.Error(), Detail: "JSON-RPC error (decoded by mcp-go)"}
	}
	if res == nil {
		return Verdict{Outcome: OutcomeInvalidToolResult, Detail: "no result"}
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		return Verdict{Outcome: OutcomeInvalidToolResult, Detail: "the result does not encode"}
	}
	env := append(append([]byte(`{"jsonrpc":"2.0","id":0,"result":`), b...), '}')
	c := newClassifier(http.StatusOK, nil, "0", defaultMaxMessageBytes)
	_, _ = c.Write(env)
	v := c.finish(nil)
	v.HTTPStatus, v.ID, v.Bytes = 0, "", 0
	return v
}

// jsonrpcCode is the JSON-RPC code of an error mcp-go decoded, when it is
// one of the codes mcp-go has a sentinel for; 0 otherwise.
func jsonrpcCode(err error) int64 {
	var code int64
	for c, sentinel := range map[int64]error{
		mcp.PARSE_ERROR: mcp.ErrParseError, mcp.INVALID_REQUEST: mcp.ErrInvalidRequest,
		mcp.METHOD_NOT_FOUND: mcp.ErrMethodNotFound, mcp.INVALID_PARAMS: mcp.ErrInvalidParams,
		mcp.INTERNAL_ERROR: mcp.ErrInternalError, mcp.RESOURCE_NOT_FOUND: mcp.ErrResourceNotFound,
	} {
		if errors.Is(err, sentinel) {
			code = c
		}
	}
	return code
}

// levelOf is the level a call's log line has: an error below the
// application layer, a warning for a tool error.
func levelOf(o Outcome) slog.Level {
	switch {
	case o.Layer() == LayerTransport || o.Layer() == LayerProtocol:
		return slog.LevelError
	case o == OutcomeToolError:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

func (c *Client) log(ctx context.Context, r Report) {
	l := c.cfg.logger
	level := levelOf(r.Outcome)
	if l == nil || !l.Enabled(ctx, level) {
		return
	}
	errorCode, resultType, id := wireValues(r)
	attrs := []slog.Attr{
		slog.String("protocolVersion", r.ProtocolVersion),
		slog.String("method", "tools/call"),
		slog.String("tool", r.Tool),
		slog.Int("postCount", r.PostCount),
		slog.Any("httpStatuses", r.HTTPStatuses),
		slog.Group("jsonrpc", slog.Any("id", id), slog.Any("errorCode", errorCode)),
		slog.Any("resultType", resultType),
		slog.String("outcome", string(r.Outcome)),
		slog.String("layer", string(r.Outcome.Layer())),
		slog.String("retryOrigin", r.RetryOrigin),
		slog.Int("attempts", r.Attempts),
		slog.Float64("durationMs", float64(r.Duration.Microseconds())/1000),
	}
	if r.Verdict.Detail != "" {
		attrs = append(attrs, slog.String("detail", r.Verdict.Detail))
	}
	if r.Outcome != OutcomeToolSuccess {
		attrs = append(attrs, slog.Bool("retryAdvised", r.Advice.Retry), slog.String("advice", r.Advice.Reason))
	}
	if r.Verdict.Cause != nil {
		attrs = append(attrs, slog.String("cause", r.Verdict.Cause.Error()))
	}
	l.LogAttrs(ctx, level, "tools/call", attrs...)
}

// wireValues are the report's JSON-RPC error code, result type and id, as
// the line holds them: null when there is none.
func wireValues(r Report) (errorCode, resultType, id any) {
	if r.Outcome == OutcomeJSONRPCError {
		errorCode = r.Verdict.ErrorCode
	}
	if r.Verdict.ResultType != "" {
		resultType = r.Verdict.ResultType
	}
	if r.ID != "" {
		id = wireID(r.ID)
	}
	return errorCode, resultType, id
}

// wireID logs a JSON-RPC id as it went on the wire: a JSON number or
// string in JSON records, its JSON text in text records.
type wireID string

func (id wireID) MarshalJSON() ([]byte, error) { return []byte(id), nil }

func (id wireID) String() string { return string(id) }

package outbound

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/jsonrpcid"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
)

// Verdict is the classification of one tools/call response: the outcome and
// what a log line needs to explain it. Fields that do not apply are zero.
type Verdict struct {
	Outcome Outcome
	// HTTPStatus is the response's status; 0 when none arrived.
	HTTPStatus int
	// ContentType is the response's media type, without parameters.
	ContentType string
	// RetryAfter is the server's Retry-After (seconds or HTTP date), if sent.
	RetryAfter    time.Duration
	HasRetryAfter bool
	// ID is the response's JSON-RPC id as JSON text (7, "abc"), when it
	// parsed; integers are normalised (1.0 is 1), and "" means none.
	ID string
	// ErrorCode, ErrorMessage and ErrorData are the JSON-RPC error member
	// (OutcomeJSONRPCError only). ErrorData is kept up to 1 KiB.
	ErrorCode    int64
	ErrorMessage string
	ErrorData    json.RawMessage
	// ResultType is the result's resultType, "complete" when it was absent
	// (the 2026-07-28 rule for older servers); "" when there was no result.
	ResultType string
	// IsError is the result's isError (absent means false).
	IsError bool
	// InputRequests counts the entries of an input_required result's
	// inputRequests. 0 with OutcomeInputRequired means the server sent only
	// a requestState: it sheds load, and the request is repeated unchanged
	// with that state. (Neither of the two is OutcomeInvalidToolResult.)
	InputRequests int
	// ServerError is the mcpwrap error a tool result carries in
	// structuredContent.error, when the server uses mcpwrap (or the same
	// shape): code, retryable, retryAfterSeconds.
	ServerError *errs.Info
	// Text is the start of the result's first text content (up to 200
	// bytes), for a log line or a console.
	Text string
	// Events counts the SSE events read; Bytes the body bytes read.
	Events int
	Bytes  int64
	// StrayResponses counts the responses to other request ids that an
	// event stream carried before the verdict; they are skipped, as the MCP
	// SDK clients skip them, and Detail says so. StrayID is the first one's id.
	StrayResponses int
	StrayID        string
	// Detail says in a few words why the outcome was chosen when the
	// outcome alone does not ("content is a string, not an array"), and
	// that stray responses were skipped.
	Detail string
	// Cause is the read or connection error behind OutcomeNetworkError or
	// OutcomeIncompleteStream; for the operator only.
	Cause error
}

// Classify classifies the response to the tools/call request whose
// JSON-RPC id is id, given as JSON text (7 or "abc", quotes included): the
// HTTP status first, then the JSON-RPC envelope, then the tool result. Pass
// it what http.Client.Do or RoundTrip returned; err != nil (or no response)
// is OutcomeNetworkError, with a safe sentence as Detail and err as Cause.
//
// It reads resp.Body as it streams until the verdict is known (for an SSE
// stream, the event that carries the response with the request's id;
// responses to other ids before it are skipped and counted in
// StrayResponses) or the body ends, and never more than the read limit per
// message (WithMaxMessageBytes). It does not close the body. A read that
// blocks (a server that hangs mid-stream) ends when the request's context
// does. A captured exchange is classified the same way, from an
// http.Response whose Body reads the captured bytes.
func Classify(resp *http.Response, err error, id string, opts ...Option) Verdict {
	if err != nil {
		return transportError(err)
	}
	if resp == nil {
		return Verdict{Outcome: OutcomeNetworkError, Detail: "no response"}
	}
	c := newClassifier(resp.StatusCode, resp.Header, jsonrpcid.Canonical(id), configure(opts).maxBytes)
	if c.decided || resp.Body == nil {
		return c.finish(nil)
	}
	return c.readAll(resp.Body)
}

// readAll classifies body, read until the verdict is decided or the body
// ends.
func (c *classifier) readAll(body io.Reader) Verdict {
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			_, _ = c.Write(buf[:n])
			if c.decided {
				return c.finish(nil)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return c.finish(err)
		}
	}
}

// transportError gives the verdict for a request that got no HTTP response
// at all (err from http.Client.Do or RoundTrip): OutcomeNetworkError, with a
// safe sentence as Detail and err as Cause.
func transportError(err error) Verdict {
	msg := errs.From(mcpgoerr.Mark(err)).Message()
	if msg == "" {
		msg = "the request failed before a response arrived"
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "the server closed the connection before responding"
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		msg = "no response arrived in time"
	}
	return Verdict{Outcome: OutcomeNetworkError, Detail: msg, Cause: err}
}

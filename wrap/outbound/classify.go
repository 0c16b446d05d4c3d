package outbound

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
)

// DefaultMaxMessageBytes is the classifier's default read limit for one
// JSON-RPC message: a whole application/json body, or one SSE event.
const DefaultMaxMessageBytes = 16 << 20

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
	// ID is the response's id as it came, when it parsed.
	ID ID
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
	StrayID        ID
	// Detail says in a few words why the outcome was chosen when the
	// outcome alone does not ("content is a string, not an array"), and
	// that stray responses were skipped.
	Detail string
	// Cause is the read or connection error behind OutcomeNetworkError or
	// OutcomeIncompleteStream; for the operator only.
	Cause error
}

// Layer returns the layer of the verdict's outcome.
func (v Verdict) Layer() Layer { return v.Outcome.Layer() }

// ClassifyOption configures a classifier.
type ClassifyOption func(*classifyConfig)

type classifyConfig struct{ max int64 }

// WithMaxMessageBytes sets the read limit for one JSON-RPC message (a JSON body
// or one SSE event). A message past it gives OutcomeBodyTooLarge and reading stops.
// n <= 0 keeps DefaultMaxMessageBytes.
func WithMaxMessageBytes(n int64) ClassifyOption {
	return func(c *classifyConfig) {
		if n > 0 {
			c.max = n
		}
	}
}

// Classify classifies a captured response to the tools/call request with
// the given id: status first, then the envelope, then the tool result.
// header may be nil; its Content-Type selects JSON or SSE and its
// Retry-After is kept.
func Classify(status int, header http.Header, body []byte, id ID, opts ...ClassifyOption) Verdict {
	c := NewClassifier(status, header, id, opts...)
	_, _ = c.Write(body)
	return c.Finish(nil)
}

// ClassifyResponse classifies a live response as it streams: it reads
// resp.Body until the verdict is known (for an SSE stream, the event that
// carries the response with the request's id; responses to other ids before
// it are skipped and counted in StrayResponses) or the body ends, and never
// more than the read limit per message. It does not close the body. A read
// that blocks (a server that hangs mid-stream) ends when the request's
// context does.
func ClassifyResponse(resp *http.Response, id ID, opts ...ClassifyOption) Verdict {
	c := NewClassifier(resp.StatusCode, resp.Header, id, opts...)
	if c.Decided() || resp.Body == nil {
		return c.Finish(nil)
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			_, _ = c.Write(buf[:n])
			if c.Decided() {
				return c.Finish(nil)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return c.Finish(err)
		}
	}
}

// ClassifyTransportError gives the verdict for a request that got no HTTP
// response at all (err from http.Client.Do or RoundTrip): OutcomeNetworkError, with
// a safe sentence as Detail and err as Cause.
func ClassifyTransportError(err error) Verdict {
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

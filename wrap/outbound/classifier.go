package outbound

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/errbase"
)

// classifier classifies one response incrementally: Write the body as it
// arrives, check decided to stop reading early, and call finish once. It is
// what Classify uses, and what Transport's tee on a response body uses to
// classify a stream mcp-go consumes. It is not safe for concurrent use.
type classifier struct {
	id      string // canonical JSON text; "" for none
	max     int64
	v       Verdict
	decided bool
	sse     bool
	body    []byte // JSON mode: the body so far
	line    []byte // SSE mode: the current, unfinished line
	data    []byte // SSE mode: the current event's data
	event   string
	skipLF  bool // SSE: the previous line ended in \r; skip a following \n
	scan    jsonScan
}

// jsonScan finds where a top-level JSON object or array ends, so a body is
// decided when its value is complete, without waiting for EOF.
type jsonScan struct {
	depth      int
	inStr, esc bool
	started    bool
	opaque     bool // the body does not start with { or [: wait for EOF
}

// feed scans p and returns the index just past the value's end, or -1.
func (s *jsonScan) feed(p []byte) int {
	if s.opaque {
		return -1
	}
	for i, b := range p {
		if !s.started {
			if !s.begin(b) {
				return -1
			}
			continue
		}
		if s.step(b) {
			return i + 1
		}
	}
	return -1
}

// begin reads a byte before the value: whitespace, or the { or [ that
// starts it. Anything else makes the body opaque, and begin reports false.
func (s *jsonScan) begin(b byte) bool {
	switch b {
	case ' ', '\t', '\r', '\n':
	case '{', '[':
		s.started = true
		s.depth = 1
	default:
		s.opaque = true
	}
	return !s.opaque
}

// step reads a byte of the value and reports whether it ends the value.
func (s *jsonScan) step(b byte) bool {
	if s.inStr {
		s.stepString(b)
		return false
	}
	switch b {
	case '"':
		s.inStr = true
	case '{', '[':
		s.depth++
	case '}', ']':
		s.depth--
		return s.depth == 0
	}
	return false
}

// stepString reads the byte b of a string: an escape, or its end.
func (s *jsonScan) stepString(b byte) {
	switch {
	case s.esc:
		s.esc = false
	case b == '\\':
		s.esc = true
	case b == '"':
		s.inStr = false
	}
}

// newClassifier starts classifying a response to the request with the
// given id (canonical text) and read limit. Status decides at once for
// anything but 2xx, 202 and 204; so does a content type that is neither
// JSON nor an event stream.
func newClassifier(status int, header http.Header, id string, max int64) *classifier {
	c := &classifier{id: id, max: max}
	c.v.HTTPStatus = status
	if header != nil {
		c.readHeader(header)
	}
	switch {
	case status == http.StatusAccepted || status == http.StatusNoContent:
		c.decide(OutcomeNotToolCallResponse, "HTTP "+strconv.Itoa(status)+" answers a notification, not a tools/call")
	case status < 200 || status > 299:
		c.decide(OutcomeHTTPError, "HTTP "+strconv.Itoa(status))
	case c.v.ContentType == "text/event-stream":
		c.sse = true
	case c.v.ContentType == "", c.v.ContentType == "application/json",
		strings.HasSuffix(c.v.ContentType, "+json"):
	default:
		c.decide(OutcomeMalformedJSON, "content type "+c.v.ContentType+" is neither application/json nor text/event-stream")
	}
	return c
}

// readHeader notes the answer's content type and Retry-After.
func (c *classifier) readHeader(header http.Header) {
	c.v.ContentType, _, _ = mime.ParseMediaType(header.Get("Content-Type"))
	if ra := header.Get("Retry-After"); ra != "" {
		c.v.RetryAfter, c.v.HasRetryAfter = errbase.ParseRetryAfter(ra, time.Now())
	}
}

// Write feeds the next bytes of the body; once decided is true, further
// input is ignored. It always consumes all of p and
// never fails, so it can sit behind an io.TeeReader.
func (c *classifier) Write(p []byte) (int, error) {
	if c.decided {
		return len(p), nil
	}
	c.v.Bytes += int64(len(p))
	if c.sse {
		c.feedSSE(p)
	} else {
		c.feedJSON(p)
	}
	return len(p), nil
}

// feedJSON reads the next bytes of a JSON body, up to the end of its value.
func (c *classifier) feedJSON(p []byte) {
	if int64(len(c.body))+int64(len(p)) > c.max {
		c.decide(OutcomeBodyTooLarge, "body larger than "+strconv.FormatInt(c.max, 10)+" bytes")
		c.body = nil
		return
	}
	if end := c.scan.feed(p); end >= 0 {
		c.message(append(c.body, p[:end]...))
		c.body = nil
		return
	}
	c.body = append(c.body, p...)
}

// finish returns the verdict. readErr is the error that ended the body, or
// nil when it ended cleanly (io.EOF) or reading stopped on purpose.
func (c *classifier) finish(readErr error) Verdict {
	if c.decided {
		return c.v
	}
	if readErr != nil {
		c.v.Cause = readErr
	}
	if c.sse {
		// An event still open at the end of the stream is discarded, as the
		// SSE specification requires: it was never terminated.
		detail := "the event stream ended before the response with id " + c.id
		if c.v.Events > 0 {
			detail += " (" + strconv.Itoa(c.v.Events) + " events read)"
		}
		if readErr != nil {
			detail += ": the connection broke"
		}
		c.decide(OutcomeIncompleteStream, detail)
		return c.v
	}
	if readErr != nil {
		c.decide(OutcomeIncompleteStream, "the body ended early: the connection broke after "+strconv.FormatInt(c.v.Bytes, 10)+" bytes")
		return c.v
	}
	c.message(c.body)
	c.body = nil
	return c.v
}

func (c *classifier) decide(o Outcome, detail string) {
	if n := c.v.StrayResponses; n > 0 {
		note := "skipped a response to another request (id " + c.v.StrayID + ")"
		if n > 1 {
			note = "skipped " + strconv.Itoa(n) + " responses to other requests (first id " + c.v.StrayID + ")"
		}
		if detail != "" {
			note = detail + "; " + note
		}
		detail = note
	}
	c.v.Outcome = o
	c.v.Detail = detail
	c.decided = true
	c.line, c.data = nil, nil
}

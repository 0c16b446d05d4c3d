package errs

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxMessageBytes is the classifier's default read limit for one
// JSON-RPC message: a whole application/json body, or one SSE event.
const DefaultMaxMessageBytes = 16 << 20

// ID is a JSON-RPC request id: a number or a string, never both. 1 and "1"
// are different ids. The zero value is "no id". IDs are comparable with ==.
type ID struct {
	str bool
	v   string // decimal text for a number, the decoded text for a string
}

// NumberID returns the numeric id n.
func NumberID(n int64) ID { return ID{v: strconv.FormatInt(n, 10)} }

// StringID returns the string id s.
func StringID(s string) ID { return ID{str: true, v: s} }

// ParseID reads an id from its JSON text: a string or a number. Numbers that
// are integers are normalised (1, 1.0 and 1e0 are the same id); null and
// anything else report false.
func ParseID(raw []byte) (ID, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ID{}, false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ID{}, false
		}
		return StringID(s), true
	}
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return ID{}, false
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return NumberID(n), true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return ID{}, false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return NumberID(int64(f)), true
	}
	return ID{v: string(raw)}, true
}

// IsZero reports whether id is "no id".
func (id ID) IsZero() bool { return id == ID{} }

// IsString reports whether id is a string id.
func (id ID) IsString() bool { return id.str }

// String returns the id as JSON text: 7 or "abc"; "" for no id.
func (id ID) String() string {
	if id.str {
		return strconv.Quote(id.v)
	}
	return id.v
}

// MarshalJSON writes the id as a JSON number or string (null for no id).
func (id ID) MarshalJSON() ([]byte, error) {
	if id.IsZero() {
		return []byte("null"), nil
	}
	if id.str {
		return json.Marshal(id.v)
	}
	return []byte(id.v), nil
}

// UnmarshalJSON reads an id written by MarshalJSON (null gives no id).
func (id *ID) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*id = ID{}
		return nil
	}
	v, ok := ParseID(b)
	if !ok {
		return errors.New("errs: a JSON-RPC id is a string or a number")
	}
	*id = v
	return nil
}

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
	// ServerError is the mcpwrap error a tool result carries in
	// structuredContent.error, when the server uses mcpwrap (or the same
	// shape): code, retryable, retryAfterSeconds.
	ServerError *Info
	// Text is the start of the result's first text content (up to 200
	// bytes), for a log line or a console.
	Text string
	// Events counts the SSE events read; Bytes the body bytes read.
	Events int
	Bytes  int64
	// Detail says in a few words why the outcome was chosen when the
	// outcome alone does not ("content is a string, not an array").
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

// MaxMessageBytes sets the read limit for one JSON-RPC message (a JSON body
// or one SSE event). A message past it gives OutcomeBodyTooLarge and reading stops.
// n <= 0 keeps DefaultMaxMessageBytes.
func MaxMessageBytes(n int64) ClassifyOption {
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
// carries the response with the request's id) or the body ends, and never
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
	_, msg := classify(err)
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

// Classifier classifies one response incrementally: Write the body as it
// arrives, check Decided to stop reading early, and call Finish once. It is
// what ClassifyResponse and Classify use, and what a tee on a response body
// (an http.RoundTripper) uses to classify a stream another reader consumes.
// A Classifier is not safe for concurrent use.
type Classifier struct {
	id      ID
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
			switch b {
			case ' ', '\t', '\r', '\n':
				continue
			case '{', '[':
				s.started = true
				s.depth = 1
				continue
			}
			s.opaque = true
			return -1
		}
		switch {
		case s.esc:
			s.esc = false
		case s.inStr:
			switch b {
			case '\\':
				s.esc = true
			case '"':
				s.inStr = false
			}
		case b == '"':
			s.inStr = true
		case b == '{' || b == '[':
			s.depth++
		case b == '}' || b == ']':
			s.depth--
			if s.depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// NewClassifier starts classifying a response to the request with the given
// id. Status decides at once for anything but 2xx, 202 and 204; so does a
// content type that is neither JSON nor an event stream.
func NewClassifier(status int, header http.Header, id ID, opts ...ClassifyOption) *Classifier {
	cfg := classifyConfig{max: DefaultMaxMessageBytes}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	c := &Classifier{id: id, max: cfg.max}
	c.v.HTTPStatus = status
	if header != nil {
		c.v.ContentType, _, _ = mime.ParseMediaType(header.Get("Content-Type"))
		if ra := header.Get("Retry-After"); ra != "" {
			c.v.RetryAfter, c.v.HasRetryAfter = ParseRetryAfter(ra, time.Now())
		}
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

// Streaming reports whether the response is an event stream, where a body
// abandoned before the verdict means the response never came.
func (c *Classifier) Streaming() bool { return c.sse }

// Decided reports whether the verdict is known; further input is ignored.
func (c *Classifier) Decided() bool { return c.decided }

// Write feeds the next bytes of the body. It always consumes all of p and
// never fails, so it can sit behind an io.TeeReader.
func (c *Classifier) Write(p []byte) (int, error) {
	if c.decided {
		return len(p), nil
	}
	c.v.Bytes += int64(len(p))
	if !c.sse {
		if int64(len(c.body))+int64(len(p)) > c.max {
			c.decide(OutcomeBodyTooLarge, "body larger than "+strconv.FormatInt(c.max, 10)+" bytes")
			c.body = nil
			return len(p), nil
		}
		if end := c.scan.feed(p); end >= 0 {
			c.message(append(c.body, p[:end]...))
			c.body = nil
			return len(p), nil
		}
		c.body = append(c.body, p...)
		return len(p), nil
	}
	c.feedSSE(p)
	return len(p), nil
}

// Finish returns the verdict. readErr is the error that ended the body, or
// nil when it ended cleanly (io.EOF) or reading stopped on purpose.
func (c *Classifier) Finish(readErr error) Verdict {
	if c.decided {
		return c.v
	}
	if readErr != nil {
		c.v.Cause = readErr
	}
	if c.sse {
		// An event still open at the end of the stream is discarded, as the
		// SSE specification requires: it was never terminated.
		detail := "the event stream ended before the response with id " + c.id.String()
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

func (c *Classifier) decide(o Outcome, detail string) {
	c.v.Outcome = o
	c.v.Detail = detail
	c.decided = true
	c.line, c.data = nil, nil
}

// feedSSE splits p into lines (\n, \r\n or \r) and dispatches events on
// blank lines.
func (c *Classifier) feedSSE(p []byte) {
	for len(p) > 0 && !c.decided {
		if c.skipLF {
			c.skipLF = false
			if p[0] == '\n' {
				p = p[1:]
				continue
			}
		}
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			if int64(len(c.line)+len(p)) > c.max {
				c.decide(OutcomeBodyTooLarge, "SSE line larger than "+strconv.FormatInt(c.max, 10)+" bytes")
				return
			}
			c.line = append(c.line, p...)
			return
		}
		if int64(len(c.line)+i) > c.max {
			c.decide(OutcomeBodyTooLarge, "SSE line larger than "+strconv.FormatInt(c.max, 10)+" bytes")
			return
		}
		c.line = append(c.line, p[:i]...)
		c.skipLF = p[i] == '\r'
		p = p[i+1:]
		c.sseLine(c.line)
		c.line = c.line[:0]
	}
}

func (c *Classifier) sseLine(line []byte) {
	if len(line) == 0 {
		c.dispatch()
		return
	}
	if line[0] == ':' {
		return
	}
	field, value, found := bytes.Cut(line, []byte(":"))
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(field) {
	case "data":
		if int64(len(c.data)+len(value)+1) > c.max {
			c.decide(OutcomeBodyTooLarge, "SSE event larger than "+strconv.FormatInt(c.max, 10)+" bytes")
			return
		}
		if c.data != nil {
			c.data = append(c.data, '\n')
		} else {
			c.data = make([]byte, 0, len(value))
		}
		c.data = append(c.data, value...)
	case "event":
		c.event = string(value)
	}
}

func (c *Classifier) dispatch() {
	data, event := c.data, c.event
	c.data, c.event = nil, ""
	if data == nil {
		return
	}
	c.v.Events++
	if event != "" && event != "message" {
		return
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return
	}
	if !json.Valid(data) {
		c.decide(OutcomeMalformedJSON, "SSE event "+strconv.Itoa(c.v.Events)+" is not JSON")
		return
	}
	var probe struct {
		Method json.RawMessage `json:"method"`
	}
	if t := firstByte(data); t == '{' && json.Unmarshal(data, &probe) == nil && len(probe.Method) > 0 {
		return // a request or notification from the server, not our response
	}
	c.message(data)
}

func firstByte(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// message classifies one complete JSON-RPC message, the response to c.id.
func (c *Classifier) message(data []byte) {
	if len(bytes.TrimSpace(data)) == 0 {
		c.decide(OutcomeMalformedJSON, "empty body")
		return
	}
	if !json.Valid(data) {
		c.decide(OutcomeMalformedJSON, "the body is not JSON")
		return
	}
	switch firstByte(data) {
	case '{':
	case '[':
		c.decide(OutcomeInvalidEnvelope, "a batch (JSON array), not one response")
		return
	default:
		c.decide(OutcomeInvalidEnvelope, "not a JSON object")
		return
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(data, &env); err != nil {
		c.decide(OutcomeMalformedJSON, "the body is not JSON")
		return
	}
	if v, ok := env["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		c.decide(OutcomeInvalidEnvelope, `jsonrpc is not "2.0"`)
		return
	}
	rawID, ok := env["id"]
	if !ok {
		c.decide(OutcomeInvalidEnvelope, "no id")
		return
	}
	got, ok := ParseID(rawID)
	if !ok {
		c.decide(OutcomeInvalidEnvelope, "id "+clip(string(bytes.TrimSpace(rawID)), 40)+" is neither a string nor a number")
		return
	}
	c.v.ID = got
	if got != c.id {
		c.decide(OutcomeInvalidEnvelope, "id "+got.String()+" does not match the request's id "+c.id.String())
		return
	}
	rawResult, hasResult := env["result"]
	rawErr, hasErr := env["error"]
	if hasResult == hasErr {
		if hasResult {
			c.decide(OutcomeInvalidEnvelope, "both result and error")
		} else {
			c.decide(OutcomeInvalidEnvelope, "neither result nor error")
		}
		return
	}
	if hasErr {
		c.rpcError(rawErr)
		return
	}
	c.result(rawResult)
}

func (c *Classifier) rpcError(raw json.RawMessage) {
	var e struct {
		Code    json.RawMessage `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if firstByte(raw) != '{' || json.Unmarshal(raw, &e) != nil {
		c.decide(OutcomeInvalidEnvelope, "error is not an object with an integer code and a string message")
		return
	}
	if e.Code == nil || e.Message == nil {
		c.decide(OutcomeInvalidEnvelope, "error lacks an integer code or a string message")
		return
	}
	code, ok := integer(e.Code)
	if !ok {
		c.decide(OutcomeInvalidEnvelope, "error code "+clip(string(e.Code), 40)+" is not an integer")
		return
	}
	c.v.ErrorCode = code
	c.v.ErrorMessage = clip(*e.Message, 1024)
	if len(e.Data) <= 1024 && string(e.Data) != "null" {
		c.v.ErrorData = append(json.RawMessage(nil), e.Data...)
	}
	c.decide(OutcomeJSONRPCError, "JSON-RPC error "+strconv.FormatInt(code, 10))
}

func integer(raw json.RawMessage) (int64, bool) {
	if b := firstByte(raw); b != '-' && (b < '0' || b > '9') {
		return 0, false
	}
	n := string(bytes.TrimSpace(raw))
	if i, err := strconv.ParseInt(n, 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

func (c *Classifier) result(raw json.RawMessage) {
	if firstByte(raw) != '{' {
		c.decide(OutcomeInvalidToolResult, "result is not an object")
		return
	}
	var r map[string]json.RawMessage
	if json.Unmarshal(raw, &r) != nil {
		c.decide(OutcomeInvalidToolResult, "result is not an object")
		return
	}
	c.v.ResultType = "complete"
	if rt, ok := r["resultType"]; ok {
		var s string
		if json.Unmarshal(rt, &s) != nil {
			c.v.ResultType = ""
			c.decide(OutcomeInvalidToolResult, "resultType is not a string")
			return
		}
		c.v.ResultType = clip(s, 64)
	}
	switch c.v.ResultType {
	case "input_required":
		c.decide(OutcomeInputRequired, "")
		return
	case "complete":
	default:
		c.decide(OutcomeInvalidToolResult, "unknown resultType "+strconv.Quote(c.v.ResultType))
		return
	}
	content, ok := r["content"]
	if !ok {
		c.decide(OutcomeInvalidToolResult, "content is missing")
		return
	}
	if firstByte(content) != '[' {
		c.decide(OutcomeInvalidToolResult, "content is "+jsonKind(content)+", not an array")
		return
	}
	if ie, ok := r["isError"]; ok {
		switch string(bytes.TrimSpace(ie)) {
		case "true":
			c.v.IsError = true
		case "false":
		default:
			c.decide(OutcomeInvalidToolResult, "isError is "+jsonKind(ie)+", not a boolean")
			return
		}
	}
	c.v.Text = firstText(content)
	if c.v.IsError {
		c.v.ServerError = serverError(r["structuredContent"])
		c.decide(OutcomeToolError, "")
		return
	}
	c.decide(OutcomeToolSuccess, "")
}

func jsonKind(raw json.RawMessage) string {
	switch firstByte(raw) {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func firstText(content json.RawMessage) string {
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &items) != nil {
		return ""
	}
	for _, it := range items {
		if it.Type == "text" {
			return clip(it.Text, 200)
		}
	}
	return ""
}

func serverError(raw json.RawMessage) *Info {
	if firstByte(raw) != '{' {
		return nil
	}
	var env struct {
		Error *Info `json:"error"`
	}
	if json.Unmarshal(raw, &env) != nil || env.Error == nil || env.Error.Code == "" {
		return nil
	}
	return env.Error
}

// clip cuts s to at most n bytes without splitting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

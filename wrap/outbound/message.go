package outbound

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/jsonrpcid"
)

// message classifies one complete JSON-RPC message, the response to c.id.
func (c *classifier) message(data []byte) {
	env, ok := c.envelope(data)
	if !ok || !c.answers(env["id"]) {
		return
	}
	rawResult, hasResult := env["result"]
	rawErr, hasErr := env["error"]
	switch {
	case hasResult && hasErr:
		c.decide(OutcomeInvalidEnvelope, "both result and error")
	case hasErr:
		c.rpcError(rawErr)
	case hasResult:
		c.result(rawResult)
	default:
		c.decide(OutcomeInvalidEnvelope, "neither result nor error")
	}
}

// envelope reads data as one JSON-RPC 2.0 object, its members unread; it
// decides and reports false when data is not one.
func (c *classifier) envelope(data []byte) (map[string]json.RawMessage, bool) {
	if len(bytes.TrimSpace(data)) == 0 {
		c.decide(OutcomeMalformedJSON, "empty body")
		return nil, false
	}
	if !json.Valid(data) {
		c.decide(OutcomeMalformedJSON, "the body is not JSON")
		return nil, false
	}
	switch firstByte(data) {
	case '{':
	case '[':
		c.decide(OutcomeInvalidEnvelope, "a batch (JSON array), not one response")
		return nil, false
	default:
		c.decide(OutcomeInvalidEnvelope, "not a JSON object")
		return nil, false
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(data, &env); err != nil {
		c.decide(OutcomeMalformedJSON, "the body is not JSON")
		return nil, false
	}
	if v, ok := env["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		c.decide(OutcomeInvalidEnvelope, `jsonrpc is not "2.0"`)
		return nil, false
	}
	return env, true
}

// answers reports whether rawID (nil when the message has none) is c.id.
// A response to another request on an event stream is skipped (stray);
// otherwise a missing, invalid or other id decides.
func (c *classifier) answers(rawID json.RawMessage) bool {
	if rawID == nil {
		c.decide(OutcomeInvalidEnvelope, "no id")
		return false
	}
	got, ok := jsonrpcid.Parse(rawID)
	if !ok {
		c.decide(OutcomeInvalidEnvelope, "id "+clip(string(bytes.TrimSpace(rawID)), 40)+" is neither a string nor a number")
		return false
	}
	if got != c.id && c.sse {
		c.stray(got)
		return false
	}
	c.v.ID = got
	if got != c.id {
		c.decide(OutcomeInvalidEnvelope, "id "+got+" does not match the request's id "+c.id)
		return false
	}
	return true
}

func (c *classifier) rpcError(raw json.RawMessage) {
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

func (c *classifier) result(raw json.RawMessage) {
	var r map[string]json.RawMessage
	if firstByte(raw) != '{' || json.Unmarshal(raw, &r) != nil {
		c.decide(OutcomeInvalidToolResult, "result is not an object")
		return
	}
	rt, ok := resultType(r)
	c.v.ResultType = rt
	switch {
	case !ok:
		c.decide(OutcomeInvalidToolResult, "resultType is not a string")
	case rt == "input_required":
		c.inputRequired(r)
	case rt == "complete":
		c.complete(r)
	default:
		c.decide(OutcomeInvalidToolResult, "unknown resultType "+strconv.Quote(rt))
	}
}

// resultType is a result's resultType, "complete" when it has none; ok is
// false when it is not a string.
func resultType(r map[string]json.RawMessage) (string, bool) {
	raw, present := r["resultType"]
	if !present {
		return "complete", true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return clip(s, 64), true
}

// complete checks a complete result: its content is an array, its isError
// (false when absent) a boolean.
func (c *classifier) complete(r map[string]json.RawMessage) {
	content, ok := r["content"]
	switch {
	case !ok:
		c.decide(OutcomeInvalidToolResult, "content is missing")
		return
	case firstByte(content) != '[':
		c.decide(OutcomeInvalidToolResult, "content is "+jsonKind(content)+", not an array")
		return
	}
	switch ie := r["isError"]; string(bytes.TrimSpace(ie)) {
	case "true":
		c.v.IsError = true
	case "false", "": // "": absent
	default:
		c.decide(OutcomeInvalidToolResult, "isError is "+jsonKind(ie)+", not a boolean")
		return
	}
	c.v.Text = firstText(content)
	if c.v.IsError {
		c.v.ServerError = serverError(r["structuredContent"])
		c.decide(OutcomeToolError, "")
		return
	}
	c.decide(OutcomeToolSuccess, "")
}

// stray skips a response to another request on an event stream: a client
// routes responses by id, so one for another request is not this call's
// answer (the MCP SDK clients drop it too).
func (c *classifier) stray(id string) {
	if c.v.StrayResponses == 0 {
		c.v.StrayID = id
	}
	c.v.StrayResponses++
}

// inputRequired checks what an input_required result must carry: at least
// one of inputRequests (an object) and requestState (a string).
func (c *classifier) inputRequired(r map[string]json.RawMessage) {
	if reqs, ok := r["inputRequests"]; ok && !c.countRequests(reqs) {
		return
	}
	if c.v.InputRequests > 0 {
		c.decide(OutcomeInputRequired, "")
		return
	}
	var state string
	if rs, ok := r["requestState"]; !ok || json.Unmarshal(rs, &state) != nil || state == "" {
		c.decide(OutcomeInvalidToolResult, "input_required without inputRequests or requestState")
		return
	}
	c.decide(OutcomeInputRequired, "no inputRequests, only a requestState: the server sheds load; repeat the request with it")
}

// countRequests counts the input requests of reqs; it is false, the
// verdict decided, when reqs is not an object.
func (c *classifier) countRequests(reqs json.RawMessage) bool {
	var m map[string]json.RawMessage
	if firstByte(reqs) != '{' || json.Unmarshal(reqs, &m) != nil {
		c.decide(OutcomeInvalidToolResult, "inputRequests is "+jsonKind(reqs)+", not an object")
		return false
	}
	c.v.InputRequests = len(m)
	return true
}

func jsonKind(raw json.RawMessage) string {
	if k, ok := jsonKinds[firstByte(raw)]; ok {
		return k
	}
	return "a number"
}

// jsonKinds name a JSON value's kind by its first byte; any other is a
// number's.
var jsonKinds = map[byte]string{
	'"': "a string", '{': "an object", '[': "an array", 't': "a boolean", 'f': "a boolean", 'n': "null",
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

func serverError(raw json.RawMessage) *errs.Info {
	if firstByte(raw) != '{' {
		return nil
	}
	var env struct {
		Error *errs.Info `json:"error"`
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

package outboundtest

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The scenario names.
const (
	baseline             = "baseline"
	httpStatusSequence   = "http_status_sequence"
	jsonrpcError         = "jsonrpc_error"
	toolError            = "tool_error"
	malformedPayload     = "malformed_payload"
	nonCompliantEnvelope = "non_compliant_envelope"
	connectionClose      = "connection_close"
	sseTruncated         = "sse_truncated"
	uncooperativeHang    = "uncooperative_hang"
	lateResponse         = "late_response"
	authToken            = "auth_token"
	inputRequired        = "input_required"
	sseStream            = "sse"
)

// names returns every scenario name.
func names() []string {
	return []string{baseline, httpStatusSequence, jsonrpcError, toolError, malformedPayload, nonCompliantEnvelope,
		connectionClose, sseTruncated, uncooperativeHang, lateResponse, authToken, inputRequired, sseStream}
}

// scenario is one fault and its parameters. Its text form is
// name?key=value&…, e.g. "http_status_sequence?statuses=503,200" or
// "jsonrpc_error?code=-32602&call=2"; the package doc lists them.
type scenario struct {
	Name string
	// Statuses (http_status_sequence) are replayed across successive POSTs
	// of the session, any method; 2xx lets the POST through.
	Statuses []int
	// RetryAfter is sent with injected 429 and 503 statuses.
	RetryAfter int
	// Code and Message make the JSON-RPC error (jsonrpc_error).
	Code    int64
	Message string
	// Call is the tools/call (1-based, per session) the fault hits; 0 means
	// every call. Not used by http_status_sequence and auth_token.
	Call int
	// Delay is how long late_response waits before answering.
	Delay time.Duration
	// Until (auth_token): tools/call POSTs answer 401 until call number
	// Until, which succeeds.
	Until int
	// Variant picks the flavour: malformed_payload truncated|html;
	// non_compliant_envelope both|wrong_id|string_id|no_version|batch|
	// content_string|null_result|is_error_string.
	Variant string
	// SSE sends the injected JSON-RPC answer as an event stream, after a
	// progress notification.
	SSE bool
	// Stray sends the injected answer as an event stream whose first
	// response answers another request id (one the client never used).
	Stray bool
}

// parseScenario reads a scenario's text form; "" is baseline.
func parseScenario(s string) (scenario, error) {
	name, query, _ := strings.Cut(strings.TrimSpace(s), "?")
	name = scenarioName(name)
	if !slices.Contains(names(), name) {
		return scenario{}, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(names(), ", "))
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return scenario{}, fmt.Errorf("scenario %s: %w", name, err)
	}
	sc := scenario{Name: name, Code: -32602, Message: "Invalid params (injected by the kitchen)", Delay: 2 * time.Second, Until: 2}
	if name == httpStatusSequence {
		sc.Statuses = []int{503, 200}
	}
	for k, vs := range q {
		if err := sc.set(k, vs[len(vs)-1]); err != nil {
			return scenario{}, fmt.Errorf("scenario %s: %w", name, err)
		}
	}
	return sc, nil
}

// scenarioName is the scenario a name in the text form stands for: ""
// is baseline, and the group prefixes and old names are accepted.
func scenarioName(name string) string {
	if name == "" {
		return baseline
	}
	name = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(name, "errors."), "timeout."), "auth.")
	if name == "token_lifecycle" {
		return authToken
	}
	return name
}

// set sets the scenario's parameter k to v.
func (sc *scenario) set(k, v string) error {
	var err error
	switch p := sc.param(k).(type) {
	case *[]int:
		*p, err = parseStatuses(v)
		return err
	case *string:
		*p = v
	case *int:
		*p, err = strconv.Atoi(v)
	case *int64:
		*p, err = strconv.ParseInt(v, 10, 64)
	case *bool:
		*p, err = strconv.ParseBool(v)
	case *time.Duration:
		*p, err = time.ParseDuration(v)
	default:
		return fmt.Errorf("unknown parameter %q", k)
	}
	if err != nil {
		return fmt.Errorf("parameter %s: %w", k, err)
	}
	return nil
}

// param points at the field parameter k sets; nil for an unknown one.
func (sc *scenario) param(k string) any {
	return map[string]any{
		"statuses": &sc.Statuses, "retry_after": &sc.RetryAfter, "code": &sc.Code,
		"message": &sc.Message, "call": &sc.Call, "delay": &sc.Delay, "until": &sc.Until,
		"variant": &sc.Variant, "sse": &sc.SSE, "stray": &sc.Stray,
	}[k]
}

// parseStatuses reads the statuses parameter: HTTP statuses, comma-separated.
func parseStatuses(v string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 100 || n > 599 {
			return nil, fmt.Errorf("bad status %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// String returns the scenario's text form.
func (s scenario) String() string {
	q := url.Values{}
	if len(s.Statuses) > 0 {
		var f []string
		for _, n := range s.Statuses {
			f = append(f, strconv.Itoa(n))
		}
		q.Set("statuses", strings.Join(f, ","))
	}
	if s.RetryAfter > 0 {
		q.Set("retry_after", strconv.Itoa(s.RetryAfter))
	}
	switch s.Name {
	case jsonrpcError:
		q.Set("code", strconv.FormatInt(s.Code, 10))
	case lateResponse:
		q.Set("delay", s.Delay.String())
	case authToken:
		q.Set("until", strconv.Itoa(s.Until))
	}
	if s.Call > 0 {
		q.Set("call", strconv.Itoa(s.Call))
	}
	if s.Variant != "" {
		q.Set("variant", s.Variant)
	}
	if s.SSE {
		q.Set("sse", "true")
	}
	if s.Stray {
		q.Set("stray", "true")
	}
	if len(q) == 0 {
		return s.Name
	}
	return s.Name + "?" + strings.ReplaceAll(q.Encode(), "%2C", ",")
}

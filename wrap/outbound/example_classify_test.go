package outbound_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

// An HTTP 200 is not a success: the classifier checks the status, then the
// JSON-RPC envelope, then the tool result. A captured exchange is
// classified from an http.Response whose Body reads the captured bytes.
func ExampleClassify() {
	answer := func(status int, body string) *http.Response {
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body))}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"failed"}],"isError":true}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`,
	} {
		v := outbound.Classify(answer(200, body), nil, "1")
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%-16s %-11s %s", v.Outcome, v.Outcome.Layer(), v.Detail)))
	}
	v := outbound.Classify(answer(503, `{}`), nil, "1")
	a := outbound.Advise(v, false, 0, outbound.RetryLimits{})
	fmt.Println(v.Outcome, "retry:", a.Retry, "-", a.Reason)
	// Output:
	// TOOL_SUCCESS     application
	// JSONRPC_ERROR    protocol    JSON-RPC error -32602
	// TOOL_ERROR       application
	// INVALID_ENVELOPE protocol    id 2 does not match the request's id 1
	// HTTP_ERROR retry: false - HTTP 503 is transient, but the call is not known to be idempotent: side effects are unclear, so no automatic retry
}

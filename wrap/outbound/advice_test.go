package outbound_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

func TestAdvise(t *testing.T) {
	half := outbound.RetryPolicy{Jitter: func() float64 { return 0.5 }} // no spread: exactly Initial·2ⁿ
	transient := outbound.Verdict{Outcome: outbound.OutcomeHTTPError, HTTPStatus: 503}
	retryAfter := outbound.Verdict{Outcome: outbound.OutcomeHTTPError, HTTPStatus: 429, RetryAfter: 3 * time.Second, HasRetryAfter: true}
	retryableTool := outbound.Verdict{Outcome: outbound.OutcomeToolError, ServerError: &errs.Info{Code: "unavailable", Retryable: true, RetryAfterSeconds: 1}}
	cases := []struct {
		name       string
		v          outbound.Verdict
		idempotent bool
		done       int
		p          outbound.RetryPolicy
		retry      bool
		after      time.Duration
		reason     string
	}{
		{"success", outbound.Verdict{Outcome: outbound.OutcomeToolSuccess}, true, 0, half, false, 0, "succeeded"},
		{"503 idempotent, first retry", transient, true, 0, half, true, 200 * time.Millisecond, "transient"},
		{"503 idempotent, second retry doubles", transient, true, 1, half, true, 400 * time.Millisecond, "transient"},
		{"503 idempotent, budget spent", transient, true, 2, half, false, 0, "budget"},
		{"503 not idempotent", transient, false, 0, half, false, 0, "not known to be idempotent"},
		{"429 Retry-After wins", retryAfter, true, 0, half, true, 3 * time.Second, "as the server asked"},
		{"Retry-After past MaxWait", retryAfter, true, 0, outbound.RetryPolicy{MaxWait: time.Second}, false, 0, "longer than"},
		{"500 never", outbound.Verdict{Outcome: outbound.OutcomeHTTPError, HTTPStatus: 500}, true, 0, half, false, 0, "will not change"},
		{"401 never", outbound.Verdict{Outcome: outbound.OutcomeHTTPError, HTTPStatus: 401}, true, 0, half, false, 0, "will not change"},
		{"-32602 never", outbound.Verdict{Outcome: outbound.OutcomeJSONRPCError, ErrorCode: -32602}, true, 0, half, false, 0, "-32602"},
		{"tool error never blind", outbound.Verdict{Outcome: outbound.OutcomeToolError}, true, 0, half, false, 0, "never blindly"},
		{"tool error marked retryable", retryableTool, true, 0, half, true, time.Second, "marks retryable"},
		{"malformed never", outbound.Verdict{Outcome: outbound.OutcomeMalformedJSON}, true, 0, half, false, 0, "diagnosis"},
		{"invalid envelope never", outbound.Verdict{Outcome: outbound.OutcomeInvalidEnvelope}, true, 0, half, false, 0, "diagnosis"},
		{"invalid result never", outbound.Verdict{Outcome: outbound.OutcomeInvalidToolResult}, true, 0, half, false, 0, "diagnosis"},
		{"input required is not a failure", outbound.Verdict{Outcome: outbound.OutcomeInputRequired}, true, 0, half, false, 0, "inputResponses"},
		{"network error idempotent", outbound.Verdict{Outcome: outbound.OutcomeNetworkError}, true, 0, half, true, 200 * time.Millisecond, "no response"},
		{"incomplete stream not idempotent", outbound.Verdict{Outcome: outbound.OutcomeIncompleteStream}, false, 0, half, false, 0, "side effects"},
		{"no retries allowed", transient, true, 0, outbound.RetryPolicy{MaxRetries: -1}, false, 0, "budget"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := outbound.Advise(tc.v, tc.idempotent, tc.done, tc.p)
			if a.Retry != tc.retry || (tc.retry && a.After != tc.after) {
				t.Errorf("Advise = %+v, want retry %v after %v", a, tc.retry, tc.after)
			}
			if !strings.Contains(a.Reason, tc.reason) {
				t.Errorf("reason %q lacks %q", a.Reason, tc.reason)
			}
		})
	}
}

func TestBackoffJitterBounds(t *testing.T) {
	for _, j := range []float64{0, 0.25, 0.999} {
		p := outbound.RetryPolicy{Jitter: func() float64 { return j }}
		for n := range 3 {
			d := p.Backoff(n)
			base := 200 * time.Millisecond << n
			if d < base/2 || d >= base*3/2 {
				t.Errorf("Backoff(%d) with jitter %v = %v, outside [%v, %v)", n, j, d, base/2, base*3/2)
			}
		}
	}
	if d := (outbound.RetryPolicy{MaxWait: time.Second}).Backoff(30); d > time.Second {
		t.Errorf("Backoff not capped: %v", d)
	}
}

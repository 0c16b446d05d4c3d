package outbound_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

func TestAdvise(t *testing.T) {
	half := outbound.WithRand(outbound.RetryLimits{}, func() float64 { return 0.5 }) // the middle of [d/2, d]: ¾·200ms·2ⁿ
	transient := outbound.Verdict{Outcome: outbound.OutcomeHTTPError, HTTPStatus: 503}
	retryAfter := outbound.Verdict{Outcome: outbound.OutcomeHTTPError, HTTPStatus: 429, RetryAfter: 3 * time.Second, HasRetryAfter: true}
	retryableTool := outbound.Verdict{Outcome: outbound.OutcomeToolError, ServerError: &errs.Info{Code: "unavailable", Retryable: true, RetryAfterSeconds: 1}}
	cases := []struct {
		name       string
		v          outbound.Verdict
		idempotent bool
		done       int
		p          outbound.RetryLimits
		retry      bool
		after      time.Duration
		reason     string
	}{
		{"success", outbound.Verdict{Outcome: outbound.OutcomeToolSuccess}, true, 0, half, false, 0, "succeeded"},
		{"503 idempotent, first retry", transient, true, 0, half, true, 150 * time.Millisecond, "transient"},
		{"503 idempotent, second retry doubles", transient, true, 1, half, true, 300 * time.Millisecond, "transient"},
		{"503 idempotent, limit reached", transient, true, 2, half, false, 0, "allowed retries are spent"},
		{"503 not idempotent", transient, false, 0, half, false, 0, "not known to be idempotent"},
		{"429 Retry-After wins", retryAfter, true, 0, half, true, 3 * time.Second, "as the server asked"},
		{"Retry-After past MaxWait", retryAfter, true, 0, outbound.RetryLimits{MaxWait: time.Second}, false, 0, "longer than"},
		{"500 never", outbound.Verdict{Outcome: outbound.OutcomeHTTPError, HTTPStatus: 500}, true, 0, half, false, 0, "will not change"},
		{"401 never", outbound.Verdict{Outcome: outbound.OutcomeHTTPError, HTTPStatus: 401}, true, 0, half, false, 0, "will not change"},
		{"-32602 never", outbound.Verdict{Outcome: outbound.OutcomeJSONRPCError, ErrorCode: -32602}, true, 0, half, false, 0, "-32602"},
		{"tool error never blind", outbound.Verdict{Outcome: outbound.OutcomeToolError}, true, 0, half, false, 0, "never blindly"},
		{"tool error marked retryable", retryableTool, true, 0, half, true, time.Second, "marks retryable"},
		{"a success too large to send is not repeated", outbound.Verdict{Outcome: outbound.OutcomeToolError, ServerError: &errs.Info{Code: "result_too_large", SideEffects: "happened"}}, true, 0, half, false, 0, "the call succeeded"},
		{"malformed never", outbound.Verdict{Outcome: outbound.OutcomeMalformedJSON}, true, 0, half, false, 0, "diagnosis"},
		{"invalid envelope never", outbound.Verdict{Outcome: outbound.OutcomeInvalidEnvelope}, true, 0, half, false, 0, "diagnosis"},
		{"invalid result never", outbound.Verdict{Outcome: outbound.OutcomeInvalidToolResult}, true, 0, half, false, 0, "diagnosis"},
		{"input required is not a failure", outbound.Verdict{Outcome: outbound.OutcomeInputRequired, InputRequests: 1}, true, 0, half, false, 0, "inputResponses"},
		{"input required with only a requestState", outbound.Verdict{Outcome: outbound.OutcomeInputRequired}, true, 0, half, false, 0, "repeat the request unchanged"},
		{"network error idempotent", outbound.Verdict{Outcome: outbound.OutcomeNetworkError}, true, 0, half, true, 150 * time.Millisecond, "no response"},
		{"incomplete stream not idempotent", outbound.Verdict{Outcome: outbound.OutcomeIncompleteStream}, false, 0, half, false, 0, "side effects"},
		{"no retries allowed", transient, true, 0, outbound.RetryLimits{MaxRetries: -1}, false, 0, "allowed retries are spent"},
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

// TestBackoffStaysInItsJitterRange: whatever the random draw, the advised
// wait for retry n lies in [d/2, d] with d = 200ms·2ⁿ, and never past MaxWait.
func TestBackoffStaysInItsJitterRange(t *testing.T) {
	transient := outbound.Verdict{Outcome: outbound.OutcomeHTTPError, HTTPStatus: 503}
	for _, r := range []float64{0, 0.25, 0.999999} {
		l := outbound.WithRand(outbound.RetryLimits{MaxRetries: 5}, func() float64 { return r })
		for done := range 3 {
			a := outbound.Advise(transient, true, done, l)
			d := 200 * time.Millisecond << done
			if !a.Retry || a.After < d/2 || a.After > d {
				t.Errorf("retry %d with draw %v: %+v, want a wait in [%v, %v]", done+1, r, a, d/2, d)
			}
		}
	}
	capped := outbound.WithRand(outbound.RetryLimits{MaxRetries: 40, MaxWait: time.Second}, func() float64 { return 0.999999 })
	if a := outbound.Advise(transient, true, 30, capped); !a.Retry || a.After > time.Second || a.After < time.Second/2 {
		t.Errorf("retry 31 under a 1s MaxWait: %+v", a)
	}
}

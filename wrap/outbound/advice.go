package outbound

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// RetryPolicy bounds automatic retries of a tools/call. The zero value is
// the seeds' starting point for proven side-effect-free calls: at most 2
// retries, 200 ms initial exponential backoff with jitter, a server's
// Retry-After honoured up to 30 s.
type RetryPolicy struct {
	// MaxRetries is how many retries (not attempts) are allowed; 0 means 2,
	// a negative value means none.
	MaxRetries int
	// Initial is the first backoff; it doubles per retry. 0 means 200 ms.
	Initial time.Duration
	// MaxWait is the longest wait the policy accepts, backoff or
	// Retry-After; a server asking for longer is not retried. 0 means 30 s.
	MaxWait time.Duration
	// Jitter returns a number in [0, 1) that spreads each backoff over
	// [d/2, 3d/2). nil means math/rand/v2. Tests pass a constant.
	Jitter func() float64
}

func (p RetryPolicy) maxRetries() int {
	switch {
	case p.MaxRetries < 0:
		return 0
	case p.MaxRetries == 0:
		return 2
	}
	return p.MaxRetries
}

func (p RetryPolicy) initial() time.Duration {
	if p.Initial > 0 {
		return p.Initial
	}
	return 200 * time.Millisecond
}

func (p RetryPolicy) maxWait() time.Duration {
	if p.MaxWait > 0 {
		return p.MaxWait
	}
	return 30 * time.Second
}

// Backoff returns the wait before retry number n (0 for the first retry):
// Initial·2ⁿ spread by jitter over [d/2, 3d/2), capped at MaxWait.
func (p RetryPolicy) Backoff(n int) time.Duration {
	d := p.initial() << min(max(n, 0), 20)
	j := p.Jitter
	if j == nil {
		j = rand.Float64
	}
	d = d/2 + time.Duration(j()*float64(d))
	return min(d, p.maxWait())
}

// Advice is the safe-retry decision for one outcome.
type Advice struct {
	// Retry says whether an automatic retry is safe and allowed.
	Retry bool
	// After is how long to wait first (Retry-After when the server sent one).
	After time.Duration
	// Reason says why, in a sentence for a log line.
	Reason string
}

// Advise returns the seeds' safe-retry decision for v, given whether the
// call is idempotent (or read-only) and how many retries were already made:
//
//   - a transient failure (HTTP 408, 429, 502, 503, 504; no response; a
//     stream cut short) is retried only when the call is idempotent, within
//     the policy's count, after Retry-After when the server sent one (if it
//     is within MaxWait), else after the backoff;
//   - a JSON-RPC error is not retried with the same arguments;
//   - a tool error is not retried blindly; only an idempotent call whose
//     result says retryable (mcpwrap's structuredContent.error) is;
//   - malformed, invalid or oversized answers are kept for diagnosis, not
//     retried;
//   - INPUT_REQUIRED is not a failure: answer it with inputResponses.
func Advise(v Verdict, idempotent bool, retriesDone int, p RetryPolicy) Advice {
	var why string
	var hint time.Duration
	switch v.Outcome {
	case OutcomeToolSuccess:
		return Advice{Reason: "the call succeeded"}
	case OutcomeInputRequired:
		return Advice{Reason: "not a failure: collect the requested input and send a follow-up call with inputResponses"}
	case OutcomeJSONRPCError:
		return Advice{Reason: "JSON-RPC error " + strconv.FormatInt(v.ErrorCode, 10) + ": do not repeat the same request; fix it and make a new call"}
	case OutcomeMalformedJSON, OutcomeInvalidEnvelope, OutcomeInvalidToolResult, OutcomeBodyTooLarge:
		return Advice{Reason: v.Outcome.String() + ": no blind retry; keep the sanitized response, request id and protocol version for diagnosis"}
	case OutcomeNotToolCallResponse:
		return Advice{Reason: "a 202/204 answers a notification; the transport is misrouting responses"}
	case OutcomeToolError:
		if v.ServerError == nil || !v.ServerError.Retryable {
			return Advice{Reason: "the tool failed; retrying depends on the tool, never blindly"}
		}
		why = "the tool failed with " + v.ServerError.Code + ", which it marks retryable"
		hint = time.Duration(v.ServerError.RetryAfterSeconds) * time.Second
	case OutcomeHTTPError:
		switch v.HTTPStatus {
		case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			why = "HTTP " + strconv.Itoa(v.HTTPStatus) + " is transient"
		default:
			return Advice{Reason: "HTTP " + strconv.Itoa(v.HTTPStatus) + " will not change on a retry"}
		}
	case OutcomeNetworkError:
		why = "no response arrived"
	case OutcomeIncompleteStream:
		why = "the response stream ended before the result"
	default:
		return Advice{Reason: "unknown outcome"}
	}
	if !idempotent {
		return Advice{Reason: why + ", but the call is not known to be idempotent: side effects are unclear, so no automatic retry"}
	}
	if retriesDone >= p.maxRetries() {
		return Advice{Reason: why + ", but the retry budget (" + strconv.Itoa(p.maxRetries()) + ") is spent"}
	}
	if v.HasRetryAfter {
		hint = v.RetryAfter
	}
	if hint > 0 || v.HasRetryAfter {
		if hint > p.maxWait() {
			return Advice{Reason: why + ", but the server asks to wait " + hint.String() + ", longer than the policy's " + p.maxWait().String()}
		}
		return Advice{Retry: true, After: hint, Reason: why + "; waiting " + hint.String() + " as the server asked"}
	}
	d := p.Backoff(retriesDone)
	return Advice{Retry: true, After: d, Reason: why + "; backing off " + d.Round(time.Millisecond).String()}
}

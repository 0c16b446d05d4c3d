package outbound

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/backoff"
)

// RetryLimits bounds the calling side's automatic retries of a tools/call:
// how many, how long to back off, how long a server may ask to wait. It is
// a plain value read by Advise; it keeps no state, so unlike wrap.RetryPolicy
// (the server side's retries of a tool handler, with a retry budget shared
// by a Wrapper's handlers) it has no budget and sleeps nowhere.
//
// The zero value is the default for calls known to be free of side effects:
// at most 2 retries, an exponential backoff from 200 ms with equal jitter,
// a server's Retry-After honoured up to 30 s.
type RetryLimits struct {
	// MaxRetries is how many retries (not attempts) are allowed; 0 means 2,
	// a negative value means none.
	MaxRetries int
	// Initial is the backoff before the first retry; it doubles per retry.
	// Each wait is drawn from [d/2, d] ("equal jitter"). 0 means 200 ms.
	Initial time.Duration
	// MaxWait is the longest wait accepted, backoff or Retry-After: the
	// backoff is capped at it, and a server asking for longer is not
	// retried. 0 means 30 s.
	MaxWait time.Duration

	// rand returns a number in [0, 1) that places each wait within its
	// jitter range; nil means math/rand/v2 (tests give a constant:
	// export_test.go).
	rand func() float64
}

func (l RetryLimits) maxWait() time.Duration {
	if l.MaxWait > 0 {
		return l.MaxWait
	}
	return 30 * time.Second
}

// backoff is the shared exponential backoff these limits describe.
func (l RetryLimits) backoff() backoff.Exponential {
	initial := l.Initial
	if initial <= 0 {
		initial = backoff.DefaultInitial
	}
	return backoff.Exponential{Initial: initial, Max: l.maxWait(), Jitter: backoff.Equal, Rand: l.rand}
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

// Advise returns the safe-retry decision for v, given whether the call is
// idempotent (or read-only) and how many retries were already made:
//
//   - a transient failure (HTTP 408, 429, 502, 503, 504; no response; a
//     stream cut short) is retried only when the call is idempotent, within
//     the limits' count, after Retry-After when the server sent one (if it
//     is within MaxWait), else after the backoff;
//   - a JSON-RPC error is not retried with the same arguments;
//   - a tool error is not retried blindly; only an idempotent call whose
//     result says retryable (mcpwrap's structuredContent.error) is;
//   - malformed, invalid or oversized answers are kept for diagnosis, not
//     retried;
//   - INPUT_REQUIRED is not a failure: answer it with inputResponses (or,
//     when the server sent only a requestState, repeat the request with it).
func Advise(v Verdict, idempotent bool, retriesDone int, l RetryLimits) Advice {
	why, hint, final := transient(v)
	if final {
		return Advice{Reason: why}
	}
	if !idempotent {
		return Advice{Reason: why + ", but the call is not known to be idempotent: side effects are unclear, so no automatic retry"}
	}
	if n := backoff.Retries(l.MaxRetries); retriesDone >= n {
		return Advice{Reason: why + ", but the " + strconv.Itoa(n) + " allowed retries are spent"}
	}
	if v.HasRetryAfter {
		return l.serverWait(why, v.RetryAfter)
	}
	if hint > 0 {
		return l.serverWait(why, hint)
	}
	d := l.backoff().Delay(retriesDone + 1)
	return Advice{Retry: true, After: d, Reason: why + "; backing off " + d.Round(time.Millisecond).String()}
}

// serverWait is the advice when the server asked to wait: retry after the
// wait, unless it is longer than the limit.
func (l RetryLimits) serverWait(why string, wait time.Duration) Advice {
	if wait > l.maxWait() {
		return Advice{Reason: why + ", but the server asks to wait " + wait.String() + ", longer than the limit of " + l.maxWait().String()}
	}
	return Advice{Retry: true, After: wait, Reason: why + "; waiting " + wait.String() + " as the server asked"}
}

// transient says why v may be worth retrying and the wait its tool result
// asks for; final is true when v is never retried, and why then is the
// whole reason.
func transient(v Verdict) (why string, hint time.Duration, final bool) {
	if w, ok := outcomeReasons[v.Outcome]; ok {
		return w.why, 0, w.final
	}
	switch v.Outcome {
	case OutcomeInputRequired:
		if v.InputRequests == 0 {
			return "not a failure: the server sent only a requestState (load shedding); repeat the request unchanged with it", 0, true
		}
		return "not a failure: collect the requested input and send a follow-up call with inputResponses", 0, true
	case OutcomeJSONRPCError:
		return "JSON-RPC error " + strconv.FormatInt(v.ErrorCode, 10) + ": do not repeat the same request; fix it and make a new call", 0, true
	case OutcomeMalformedJSON, OutcomeInvalidEnvelope, OutcomeInvalidToolResult, OutcomeBodyTooLarge:
		return string(v.Outcome) + ": no blind retry; keep the sanitized response, request id and protocol version for diagnosis", 0, true
	case OutcomeToolError:
		return transientTool(v.ServerError)
	case OutcomeHTTPError:
		return transientHTTP(v.HTTPStatus)
	}
	return "unknown outcome", 0, true
}

// outcomeReasons are transient's answers for the outcomes that say all.
var outcomeReasons = map[Outcome]struct {
	why   string
	final bool
}{
	OutcomeToolSuccess:         {"the call succeeded", true},
	OutcomeNotToolCallResponse: {"a 202/204 answers a notification; the transport is misrouting responses", true},
	OutcomeNetworkError:        {"no response arrived", false},
	OutcomeIncompleteStream:    {"the response stream ended before the result", false},
}

// transientTool is transient for a tool error, whose result's
// structuredContent.error (mcpwrap's, e) says whether it may be retried.
func transientTool(e *errs.Info) (why string, hint time.Duration, final bool) {
	switch {
	case e != nil && e.SideEffects == "happened":
		// mcpwrap's result_too_large: the call succeeded, its answer
		// did not fit; a repeat would do it again.
		return "the call succeeded but its result was not sent (" + e.Code +
			"); its side effects happened: do not repeat it, read what it did instead", 0, true
	case e == nil || !e.Retryable:
		return "the tool failed; retrying depends on the tool, never blindly", 0, true
	}
	return "the tool failed with " + e.Code + ", which it marks retryable",
		time.Duration(e.RetryAfterSeconds) * time.Second, false
}

// transientHTTP is transient for an HTTP error status.
func transientHTTP(status int) (why string, hint time.Duration, final bool) {
	switch status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return "HTTP " + strconv.Itoa(status) + " is transient", 0, false
	}
	return "HTTP " + strconv.Itoa(status) + " will not change on a retry", 0, true
}

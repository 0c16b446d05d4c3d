package errs

// Info is the machine-readable error in an error result's
// structuredContent, under the key "error": the same fields for every
// failure, so a client acts on Code, Retryable and RetryAfterSeconds without
// parsing the text. A client reads it with mcpgo.InfoOf or gosdk.InfoOf; a
// resource's or prompt's JSON-RPC error carries the same fields in its data.
type Info struct {
	// Code is the Code's name, e.g. "invalid_argument".
	Code string `json:"code"`
	// Message is the sentence the model reads (the result's text).
	Message string `json:"message"`
	// Retryable says whether repeating the call may succeed (not whether it
	// is safe: that depends on the tool). It is false when SideEffects is
	// "possible" (the operation may have happened, and the text tells the
	// model to check before calling again) or "happened".
	Retryable         bool   `json:"retryable"`
	RetryAfterSeconds int64  `json:"retryAfterSeconds,omitempty"`
	CallID            string `json:"callId,omitempty"`
	Tool              string `json:"tool,omitempty"`
	Attempts          int    `json:"attempts,omitempty"`
	// SideEffects is "none" or "possible" when the call was not retried
	// because the tool may change something: "none" when the request never
	// reached the upstream (see ErrNotSent). It is "happened" when the call
	// succeeded but its result could not be sent (ResultTooLarge): calling
	// again would do it again.
	SideEffects string      `json:"sideEffects,omitempty"`
	Violations  []Violation `json:"violations,omitempty"`
	// OmittedViolations is how many more violations were found than are
	// listed: the list stops at 20 entries or 16 KiB. Whoever collected them
	// may also have stopped checking early, so there may be more still.
	OmittedViolations int `json:"omittedViolations,omitempty"`
}

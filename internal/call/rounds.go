package call

import "context"

// Rounds is how an adapter lets the chain take part in multi round-trip
// calls (protocol 2026-07-28, "MRTR"): a round's requestState is read and
// replaced, the user's answer to the chain's own question read, and an
// input_required result made or given another requestState. The chain
// calls it only on rounds that carry a requestState, results that ask for
// input, and calls it must ask; the common call never does. An adapter's
// Rounds is one value shared by every request, safe for concurrent use.
type Rounds interface {
	// Modern reports whether the client takes input_required results
	// (2026-07-28 or later): the chain then asks through one; an older
	// client is asked through Request.Ask.
	Modern(ctx context.Context, r *Request) bool
	// State returns the round's requestState, "" on a first round.
	State(r *Request) string
	// Resume makes the handler see state as the round's requestState, and
	// the round's inputResponses without the one under key (the chain's
	// own); the SDK's request is copied, never changed.
	Resume(r *Request, state, key string)
	// Reply returns the user's answer under key in the round's
	// inputResponses, to the question Ask made (a form with one boolean
	// "confirm"); Unsupported when there is none.
	Reply(r *Request, key string) Reply
	// Ask returns an input_required result asking message, under key, as
	// a form elicitation with one boolean "confirm", and state as its
	// requestState.
	Ask(r *Request, key, message, state string) Result
	// ResultState returns the requestState of an input_required result.
	ResultState(res Result) string
	// Restate returns a copy of an input_required result with state as its
	// requestState.
	Restate(res Result, state string) Result
}

// progressKey is the context key of a call's progress signal.
type progressKey struct{}

// WithProgress returns ctx carrying f, which Progressed calls each time the
// handler reports progress (notifications/progress) with a context derived
// from ctx: how the chain's progress-aware timeout learns that a call is
// still working.
func WithProgress(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// Progressed tells the call ctx belongs to that its handler reported
// progress; nothing when no one listens (no progress-aware timeout). An
// adapter calls it where it sees the handler's progress notification.
func Progressed(ctx context.Context) {
	if f, ok := ctx.Value(progressKey{}).(func()); ok {
		f()
	}
}

// ConfirmSchema asks for one boolean: the chain's confirmation form, the
// same on every SDK.
var ConfirmSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"confirm": map[string]any{"type": "boolean", "title": "Allow", "description": "Allow this call to run"},
	},
	"required": []string{"confirm"},
}

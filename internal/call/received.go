package call

import (
	"context"
	"time"
)

// receivedKey is the context key of the time a call was read.
type receivedKey struct{}

// WithReceived tells the chain that the call was read at at, before the
// transport queued it (mcp-go's stdio server hands tool calls to a few
// workers through a queue): its timeout counts from then, and so do its
// log line's duration and its span, not from when a worker took it up.
func WithReceived(ctx context.Context, at time.Time) context.Context {
	return context.WithValue(ctx, receivedKey{}, at)
}

// Received returns the time WithReceived set.
func Received(ctx context.Context) (time.Time, bool) {
	at, ok := ctx.Value(receivedKey{}).(time.Time)
	return at, ok
}

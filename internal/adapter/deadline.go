package adapter

import (
	"context"
	"net/http"
	"time"
)

// WriteMargin is how long before a POST's write deadline its calls' context
// ends: a tenth of the write timeout, at most a second — time enough to
// write a timeout answer.
func WriteMargin(writeTimeout time.Duration) time.Duration {
	return min(writeTimeout/10, time.Second)
}

// answerDueKey is the context key of the AnswerDue of a POST; the timeout
// layer never waits past it.
type answerDueKey struct{}

// Due is when the answer to a call must be written, and the write timeout
// that sets it.
type Due struct {
	At           time.Time
	WriteTimeout time.Duration
}

// AnswerDue returns the time by which the call's answer must be written,
// if its transport has one: the one WithinWriteTimeout set, or else, for a
// call that net/http serves through another handler (an SDK's HTTP handler
// mounted directly), its http.Server's WriteTimeout counted from now, the
// call's start, which is a little after the server's own start of it.
func AnswerDue(ctx context.Context) (Due, bool) {
	if d, ok := ctx.Value(answerDueKey{}).(Due); ok {
		return d, true
	}
	if hs, ok := ctx.Value(http.ServerContextKey).(*http.Server); ok && hs.WriteTimeout > 0 {
		return Due{time.Now().Add(hs.WriteTimeout - WriteMargin(hs.WriteTimeout)), hs.WriteTimeout}, true
	}
	return Due{}, false
}

// WithinWriteTimeout tells the calls of a POST that their answer is due
// WriteMargin before its write deadline: own (set here on the connection;
// 0 for none), or else the serving http.Server's WriteTimeout. It is a
// value, not a context deadline: an SDK writes nothing for a request whose
// context has ended, so only the timeout layer acts on it. Wrap the SDK's
// HTTP handler with it (mcpgo.NewHTTPServer does).
func WithinWriteTimeout(next http.Handler, own time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		wt := own
		if wt == 0 {
			if hs, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok {
				wt = hs.WriteTimeout
			}
		}
		if wt <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		if own > 0 {
			// On the connection, so it is lifted after the answer: the
			// next request on it (a GET stream, say) has its own.
			rc := http.NewResponseController(w)
			_ = rc.SetWriteDeadline(start.Add(own))
			defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
		}
		ctx := context.WithValue(r.Context(), answerDueKey{}, Due{start.Add(wt - WriteMargin(wt)), wt})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

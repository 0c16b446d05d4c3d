package authz

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"
)

// Caller is who makes a request, as a verifier established it from a
// bearer token (or, over stdio, the owner of the server process). Its
// Claims are the policy's to read and never appear in a log line, a span
// or an answer.
type Caller struct {
	// Subject identifies the caller: the token's user id or client id
	// (the "sub" claim, go-sdk's TokenInfo.UserID); "" when unknown.
	Subject string
	// Scopes are the scopes the token grants.
	Scopes []string
	// Expires is when the token stops being valid; zero when it has no
	// expiry.
	Expires time.Time
	// Claims are the token's other claims (tenant, roles, …), for a
	// Policy's Check.
	Claims map[string]any
	// Local says the caller is the owner of the server process, over
	// stdio, not someone who presented a token: Policy.Local says what it
	// is granted.
	Local bool
}

// Has reports whether the caller was granted every one of scopes.
func (c Caller) Has(scopes ...string) bool {
	for _, s := range scopes {
		if !slices.Contains(c.Scopes, s) {
			return false
		}
	}
	return true
}

// Missing returns the scopes of want the caller was not granted, in want's
// order; nil when it has them all.
func (c Caller) Missing(want []string) []string {
	var out []string
	for _, s := range want {
		if !slices.Contains(c.Scopes, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

type callerKey struct{}

// NewContext returns ctx carrying c: what a verifier in front of the MCP
// handler (RequireBearer, or one of the server's own) does, so that the
// chain's policy sees who calls.
func NewContext(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, &c)
}

// FromContext returns the Caller ctx carries (NewContext), and whether it
// carries one.
func FromContext(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(*Caller)
	if !ok || c == nil {
		return Caller{}, false
	}
	return *c, true
}

// ErrInvalidToken is what a Verifier returns (wrapped, with the reason) for
// a token it does not accept: expired, not yet valid, signed by a key it
// does not know, for another audience or issuer, malformed. The HTTP
// answer is then 401 with error="invalid_token".
var ErrInvalidToken = errors.New("invalid token")

// Verifier checks a bearer token and says who presented it. An error that
// wraps ErrInvalidToken means the token is not accepted (401); any other
// error means the verifier could not decide (an authorization server that
// does not answer: 503), and the request is refused either way. r is the
// HTTP request the token came with. A Verifier must be safe for
// concurrent use. jwtauth.Verifier checks JWT access tokens; an opaque
// token's verifier (introspection, a database) is a func of this type.
type Verifier func(ctx context.Context, token string, r *http.Request) (Caller, error)

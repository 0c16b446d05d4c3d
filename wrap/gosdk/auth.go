package gosdk

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// RequireBearer is authz.RequireBearer for a go-sdk server, the middleware
// to put in front of its streamable HTTP handler: it answers every request
// as authz.RequireBearer does (401 with error="invalid_token" for a token
// refused, malformed or sent in two Authorization headers; 503 with
// Retry-After when v cannot decide; 403 insufficient_scope), and hands a
// caller it let through to go-sdk as go-sdk's own auth.RequireBearerToken
// would: an *auth.TokenInfo, converted as TokenVerifier converts it, which
// go-sdk binds a session to (its UserID) and gives handlers as
// req.Extra.TokenInfo. It is safe for concurrent use if v is.
func RequireBearer(v authz.Verifier, o authz.Bearer) func(http.Handler) http.Handler {
	outer := authz.RequireBearer(v, o)
	inner := auth.RequireBearerToken(verified, &auth.RequireBearerTokenOptions{
		// v has decided, expiry included, with its own skew: go-sdk's
		// second look must not refuse what it accepted.
		AllowMissingExpiration: true,
		ClockSkew:              verifiedSkew,
	})
	return func(next http.Handler) http.Handler { return outer(inner(next)) }
}

// verifiedSkew is the clock skew go-sdk's check is given behind
// RequireBearer, where the verifier has already checked expiry.
const verifiedSkew = 24 * time.Hour

// verified is the auth.TokenVerifier behind RequireBearer: the token was
// verified in front of it, and its caller is in the request's context.
func verified(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
	c, ok := authz.FromContext(r.Context())
	if !ok { // not behind authz.RequireBearer: never let through
		return nil, refused{authz.ErrInvalidToken}
	}
	return tokenInfo(c), nil
}

func tokenInfo(c authz.Caller) *auth.TokenInfo {
	return &auth.TokenInfo{
		UserID:     c.Subject,
		Scopes:     slices.Clone(c.Scopes),
		Expiration: c.Expires,
		Extra:      maps.Clone(c.Claims),
	}
}

// TokenVerifier returns v as go-sdk's auth.TokenVerifier, so that a go-sdk
// server checks bearer tokens with go-sdk's own auth.RequireBearerToken
// and mcpwrap's verifier (jwtauth.Verifier.Verify, or one of the
// server's). The Caller becomes an *auth.TokenInfo: Subject is UserID
// (which go-sdk also uses to keep one user's session from another),
// Scopes, Expires is Expiration, Claims is Extra. An error wrapping
// authz.ErrInvalidToken also wraps auth.ErrInvalidToken (go-sdk answers
// 401); any other is one go-sdk answers 500. go-sdk writes the error's
// text in its answer, so the text is only "invalid token" or "the token
// could not be verified": the verifier's reason stays in the chain of
// Unwrap. A request with more than one Authorization header is refused
// (go-sdk reads the first only). go-sdk's answers are its own: 500 without
// Retry-After when v cannot decide, a 401 challenge without
// error="invalid_token"; RequireBearer answers as the MCP specification
// and RFC 6750 say.
//
// RequireBearerToken refuses a token whose Expiration has passed, with
// its ClockSkew (zero by default): give it jwtauth's skew, or a token in
// its last seconds is refused by one and accepted by the other. It also
// refuses a TokenInfo without Expiration unless AllowMissingExpiration is
// set, which a verifier of opaque tokens may need.
func TokenVerifier(v authz.Verifier) auth.TokenVerifier {
	return func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		if r != nil {
			if n := len(r.Header.Values("Authorization")); n > 1 {
				return nil, refused{fmt.Errorf("%w: %d Authorization headers", authz.ErrInvalidToken, n)}
			}
		}
		c, err := v(ctx, token, r)
		if err != nil {
			if errors.Is(err, authz.ErrInvalidToken) {
				return nil, refused{err}
			}
			return nil, undecided{err}
		}
		return tokenInfo(c), nil
	}
}

// refused is a token the verifier did not accept, for go-sdk.
type refused struct{ cause error }

func (refused) Error() string     { return "invalid token" }
func (e refused) Unwrap() []error { return []error{auth.ErrInvalidToken, e.cause} }

// undecided is a verifier that could not decide, for go-sdk.
type undecided struct{ cause error }

func (undecided) Error() string   { return "the token could not be verified" }
func (e undecided) Unwrap() error { return e.cause }

package gosdk

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

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
// Unwrap.
//
// RequireBearerToken refuses a token whose Expiration has passed, with
// its ClockSkew (zero by default): give it jwtauth's skew, or a token in
// its last seconds is refused by one and accepted by the other. It also
// refuses a TokenInfo without Expiration unless AllowMissingExpiration is
// set, which a verifier of opaque tokens may need.
func TokenVerifier(v authz.Verifier) auth.TokenVerifier {
	return func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		c, err := v(ctx, token, r)
		if err != nil {
			if errors.Is(err, authz.ErrInvalidToken) {
				return nil, refused{err}
			}
			return nil, undecided{err}
		}
		return &auth.TokenInfo{
			UserID:     c.Subject,
			Scopes:     slices.Clone(c.Scopes),
			Expiration: c.Expires,
			Extra:      maps.Clone(c.Claims),
		}, nil
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

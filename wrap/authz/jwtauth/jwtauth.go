package jwtauth

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// The defaults of Config.
const (
	defaultSkew        = 30 * time.Second
	defaultMaxAge      = 5 * time.Minute
	defaultMinRefetch  = 10 * time.Second
	defaultHTTPTimeout = 10 * time.Second
	// maxTokenBytes caps a token: a JWT access token is a few hundred
	// bytes to a few KiB; a larger one is refused before it is decoded.
	maxTokenBytes = 16 << 10
)

// defaultAlgorithms are the asymmetric JWS algorithms accepted by default.
var defaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// Config says which tokens a Verifier accepts.
type Config struct {
	// Issuer is the authorization server's issuer identifier: a token's
	// "iss" must be exactly this. Required.
	Issuer string
	// Audience is this server's resource URI (e.g.
	// https://mcp.example.com/mcp): a token's "aud" (a string or an
	// array) must name it, as the MCP specification requires, so that a
	// token issued for another server is refused. Required.
	Audience string
	// JWKSURL is where the issuer publishes its signing keys. When it is
	// empty, New discovers it from the issuer's metadata:
	// Issuer + "/.well-known/openid-configuration", then
	// "/.well-known/oauth-authorization-server" (RFC 8414).
	JWKSURL string
	// Algorithms are the JWS algorithms accepted (default: RS256, RS384,
	// RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA). "none" and
	// the HMAC algorithms (HS256, …) are refused: a verifier holding
	// public keys must never accept a token MACed with one.
	Algorithms []string
	// Skew is the clock skew allowed on "exp", "nbf" and "iat" (default
	// 30 seconds; negative: none).
	Skew time.Duration
	// MaxAge is how long a fetched key set is used before it is fetched
	// again (default 5 minutes): a key the issuer removed stops verifying
	// within MaxAge.
	MaxAge time.Duration
	// MinRefetch is the least time between two fetches of the key set
	// caused by a token signed with a key the set does not hold (default 10
	// seconds): the issuer's new key is found at once, and tokens naming
	// made-up keys cost the issuer at most one fetch per MinRefetch.
	MinRefetch time.Duration
	// HTTPClient fetches the metadata and key set (default: a client with
	// a 10-second timeout).
	HTTPClient *http.Client
	// CacheTTL is how long a verified token's caller is remembered (by the
	// token's SHA-256, at most 10 000 tokens), so that a client sending the
	// same token with every request pays for one signature check per
	// CacheTTL (default 1 minute; negative: no cache). A remembered token
	// is still refused once it expires or the issuer stops publishing its
	// key.
	CacheTTL time.Duration
	// TypeAtJWT requires the header's "typ" to be "at+jwt", as RFC 9068
	// says of JWT access tokens. By default "JWT" and no "typ" (what many
	// authorization servers, Ory Hydra among them, issue) are accepted
	// too; any other type (an ID token's, a DPoP proof's) is refused
	// either way.
	TypeAtJWT bool
}

// Verifier verifies JWT access tokens (RFC 9068) signed by one issuer's
// keys. It is safe for concurrent use.
type Verifier struct {
	issuer   string
	audience jwt.Audience
	algs     []jose.SignatureAlgorithm
	skew     time.Duration
	strict   bool
	keys     *keySet
	verified *verifiedTokens // nil: no cache
}

// New returns a Verifier of c, after fetching the key set once (and the
// issuer's metadata when c.JWKSURL is empty): an issuer that cannot be
// reached, or metadata that names another issuer, is an error. ctx bounds
// those fetches only.
func New(ctx context.Context, c Config) (*Verifier, error) {
	if c.Issuer == "" {
		return nil, errors.New("jwtauth: Config.Issuer is required")
	}
	if c.Audience == "" {
		return nil, errors.New("jwtauth: Config.Audience (this server's resource URI) is required")
	}
	v := &Verifier{issuer: c.Issuer, audience: jwt.Audience{c.Audience}, skew: max(cmp.Or(c.Skew, defaultSkew), 0), strict: c.TypeAtJWT}
	var err error
	if v.algs, err = accepted(c.Algorithms); err != nil {
		return nil, err
	}
	if ttl := cmp.Or(c.CacheTTL, defaultCacheTTL); ttl > 0 {
		v.verified = &verifiedTokens{ttl: ttl, m: map[[32]byte]verifiedToken{}}
	}
	client := cmp.Or(c.HTTPClient, &http.Client{Timeout: defaultHTTPTimeout})
	jwks := c.JWKSURL
	if jwks == "" {
		if jwks, err = discover(ctx, client, c.Issuer); err != nil {
			return nil, err
		}
	}
	v.keys = &keySet{url: jwks, client: client, maxAge: positiveOr(c.MaxAge, defaultMaxAge), minRefetch: positiveOr(c.MinRefetch, defaultMinRefetch)}
	if _, err := v.keys.refresh(ctx); err != nil {
		return nil, err
	}
	return v, nil
}

// accepted returns the signature algorithms of algs (by default all the
// asymmetric ones), or an error naming one that is not asymmetric.
func accepted(algs []string) ([]jose.SignatureAlgorithm, error) {
	if len(algs) == 0 {
		algs = defaultAlgorithms
	}
	out := make([]jose.SignatureAlgorithm, 0, len(algs))
	for _, a := range algs {
		if !slices.Contains(defaultAlgorithms, a) {
			return nil, fmt.Errorf("jwtauth: algorithm %q is not accepted (only asymmetric signatures: %s)", a, strings.Join(defaultAlgorithms, ", "))
		}
		out = append(out, jose.SignatureAlgorithm(a))
	}
	return out, nil
}

// positiveOr is d, or def when d is not positive.
func positiveOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// claims are the claims a Caller is made of.
type claims struct {
	jwt.Claims
	Scope    json.RawMessage `json:"scope"`
	Scp      json.RawMessage `json:"scp"`
	ClientID string          `json:"client_id"`
}

// Verify checks token and returns its caller; its method value is an
// authz.Verifier (authz.RequireBearer(v.Verify, …)). An error wrapping
// authz.ErrInvalidToken refuses the token, with a reason that holds
// neither the token nor its claims; any other error says the key set
// could not be fetched.
func (v *Verifier) Verify(ctx context.Context, token string, _ *http.Request) (authz.Caller, error) {
	if len(token) > maxTokenBytes {
		return authz.Caller{}, invalid("longer than %d bytes", maxTokenBytes)
	}
	if strings.Count(token, ".") != 2 {
		return authz.Caller{}, invalid("not a signed JWT in compact form")
	}
	var sum [sha256.Size]byte
	now := time.Now()
	if v.verified != nil {
		sum = sha256.Sum256([]byte(token))
		if c, ok := v.verified.get(sum, now, v.keys.published); ok {
			return c, nil
		}
	}
	c, all, h, err := v.signed(ctx, token)
	if err != nil {
		return authz.Caller{}, err
	}
	caller, err := v.callerOf(c, all)
	if err != nil {
		return authz.Caller{}, err
	}
	if v.verified != nil {
		v.remember(sum, now, caller, h.KeyID, h.Algorithm)
	}
	return caller, nil
}

// remember keeps the caller of the token whose hash is sum, verified now
// with the key kid, until the cache's TTL or the token's expiry, whichever
// comes first.
func (v *Verifier) remember(sum [sha256.Size]byte, now time.Time, caller authz.Caller, kid, alg string) {
	until := now.Add(v.verified.ttl)
	if exp := caller.Expires.Add(v.skew); exp.Before(until) {
		until = exp
	}
	v.verified.put(sum, verifiedToken{caller: caller, kid: kid, alg: alg, until: until})
}

// signed checks token's one signature with the key set's key and returns
// its claims, known and all, and its header.
func (v *Verifier) signed(ctx context.Context, token string) (c claims, all map[string]any, h jose.Header, err error) {
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		return c, nil, h, invalid("%v", err)
	}
	if len(tok.Headers) != 1 {
		return c, nil, h, invalid("%d signatures", len(tok.Headers))
	}
	h = tok.Headers[0]
	if err := v.checkType(h); err != nil {
		return c, nil, h, err
	}
	key, err := v.keys.key(ctx, h.KeyID, h.Algorithm)
	if err != nil {
		return c, nil, h, err
	}
	if err := tok.Claims(key, &c, &all); err != nil {
		return c, nil, h, invalid("%v", err)
	}
	return c, all, h, nil
}

// callerOf checks the claims of a signed token (expiry, issuer, audience)
// and makes its caller.
func (v *Verifier) callerOf(c claims, all map[string]any) (authz.Caller, error) {
	if c.Expiry == nil {
		return authz.Caller{}, invalid("no exp claim")
	}
	if err := c.ValidateWithLeeway(jwt.Expected{Issuer: v.issuer, AnyAudience: v.audience, Time: time.Now()}, v.skew); err != nil {
		return authz.Caller{}, invalid("%v", err)
	}
	scopes, err := scopesOf(c)
	if err != nil {
		return authz.Caller{}, err
	}
	sub := c.Subject
	if sub == "" {
		sub = c.ClientID
	}
	return authz.Caller{Subject: sub, Scopes: scopes, Expires: c.Expiry.Time(), Claims: all}, nil
}

func (v *Verifier) checkType(h jose.Header) error {
	typ, _ := h.ExtraHeaders[jose.HeaderType].(string)
	switch strings.ToLower(typ) {
	case "at+jwt", "application/at+jwt":
		return nil
	case "jwt", "":
		if !v.strict {
			return nil
		}
	}
	return invalid("header typ %q is not an access token's", typ)
}

// scopesOf reads "scope" (space-separated) or else "scp" (an array, or a
// space-separated string).
func scopesOf(c claims) ([]string, error) {
	for _, raw := range []json.RawMessage{c.Scope, c.Scp} {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return strings.Fields(s), nil
		}
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, invalid("scope claim is neither a string nor an array of strings")
		}
		return list, nil
	}
	return nil, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", authz.ErrInvalidToken, fmt.Sprintf(format, args...))
}

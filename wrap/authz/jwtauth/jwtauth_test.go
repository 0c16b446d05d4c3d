package jwtauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/authz/jwtauth"
)

const audience = "https://mcp.example.com/mcp"

// issuer is an authorization server's metadata and key set, whose keys
// the test changes.
type issuer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	keys    map[string]any // kid → private key
	enc     *rsa.PrivateKey
	fetches atomic.Int32
	delay   time.Duration
	handler http.Handler
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	enc, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{keys: map[string]any{}, enc: enc}
	is.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_ = json.NewEncoder(w).Encode(map[string]string{"issuer": is.url(), "jwks_uri": is.url() + "/jwks"})
		case "/jwks":
			is.fetches.Add(1)
			time.Sleep(is.delay)
			is.mu.Lock()
			var set struct {
				Keys []any `json:"keys"`
			}
			for kid, k := range is.keys {
				set.Keys = append(set.Keys, jose.JSONWebKey{Key: public(k), KeyID: kid, Use: "sig"})
			}
			is.mu.Unlock()
			// Keys the verifier must skip: one of a type go-jose does not
			// know, an encryption key, and a symmetric one.
			set.Keys = append(set.Keys,
				map[string]string{"kty": "XYZ", "kid": "k1"},
				jose.JSONWebKey{Key: public(is.enc), KeyID: "enc", Use: "enc"},
				jose.JSONWebKey{Key: []byte("0123456789abcdef0123456789abcdef"), KeyID: "hmac", Algorithm: "HS256"})
			_ = json.NewEncoder(w).Encode(set)
		default:
			http.NotFound(w, r)
		}
	})
	is.srv = httptest.NewServer(is.handler)
	t.Cleanup(is.srv.Close)
	is.add(t, "k1")
	return is
}

func (is *issuer) url() string { return is.srv.URL }

func public(k any) any {
	switch k := k.(type) {
	case *rsa.PrivateKey:
		return &k.PublicKey
	case *ecdsa.PrivateKey:
		return &k.PublicKey
	}
	return k
}

func (is *issuer) add(t *testing.T, kid string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	is.keys[kid] = k
	is.mu.Unlock()
}

func (is *issuer) remove(kid string) {
	is.mu.Lock()
	delete(is.keys, kid)
	is.mu.Unlock()
}

// claims returns a valid access token's claims.
func (is *issuer) claims() map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": is.url(), "aud": []string{audience}, "sub": "alice", "client_id": "cli",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Unix(),
		"scope": "issues:read repo:admin", "tenant": "acme",
	}
}

// sign signs claims with kid's key (RS256, typ at+jwt).
func (is *issuer) sign(t testing.TB, kid string, claims map[string]any) string {
	t.Helper()
	is.mu.Lock()
	k := is.keys[kid]
	is.mu.Unlock()
	return signWith(t, jose.RS256, k, kid, "at+jwt", claims)
}

func signWith(t testing.TB, alg jose.SignatureAlgorithm, key any, kid, typ string, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType(jose.ContentType(typ))
	if typ == "" {
		opts = &jose.SignerOptions{}
	}
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func newVerifier(t *testing.T, is *issuer, c jwtauth.Config) *jwtauth.Verifier {
	t.Helper()
	c.Issuer, c.Audience = is.url(), audience
	v, err := jwtauth.New(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVerifyAcceptsAnAccessToken(t *testing.T) {
	is := newIssuer(t)
	v := newVerifier(t, is, jwtauth.Config{})
	c, err := v.Verify(context.Background(), is.sign(t, "k1", is.claims()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "alice" || !c.Has("issues:read", "repo:admin") || len(c.Scopes) != 2 ||
		c.Claims["tenant"] != "acme" || time.Until(c.Expires) < 59*time.Minute {
		t.Fatalf("%+v", c)
	}
}

func TestVerifyReadsTheClaimsForms(t *testing.T) {
	is := newIssuer(t)
	v := newVerifier(t, is, jwtauth.Config{})
	cases := []struct {
		name   string
		edit   func(map[string]any)
		sub    string
		scopes string
	}{
		{"aud as a string", func(c map[string]any) { c["aud"] = audience }, "alice", "issues:read repo:admin"},
		{"aud among others", func(c map[string]any) { c["aud"] = []string{"other", audience} }, "alice", "issues:read repo:admin"},
		{"scp array", func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"a", "b"} }, "alice", "a b"},
		{"no scope", func(c map[string]any) { delete(c, "scope") }, "alice", ""},
		{"client_id when no sub", func(c map[string]any) { delete(c, "sub") }, "cli", "issues:read repo:admin"},
		{"no nbf or iat", func(c map[string]any) { delete(c, "nbf"); delete(c, "iat") }, "alice", "issues:read repo:admin"},
		{"expired within the skew", func(c map[string]any) { c["exp"] = time.Now().Add(-10 * time.Second).Unix() }, "alice", "issues:read repo:admin"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cl := is.claims()
			tc.edit(cl)
			c, err := v.Verify(context.Background(), is.sign(t, "k1", cl), nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.Subject != tc.sub || strings.Join(c.Scopes, " ") != tc.scopes {
				t.Fatalf("%+v", c)
			}
		})
	}
}

func TestVerifyRefuses(t *testing.T) {
	is := newIssuer(t)
	v := newVerifier(t, is, jwtauth.Config{})
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	is.mu.Lock()
	pub := &is.keys["k1"].(*rsa.PrivateKey).PublicKey
	is.mu.Unlock()
	pubDER, _ := x509.MarshalPKIXPublicKey(pub)
	edit := func(f func(map[string]any)) map[string]any { c := is.claims(); f(c); return c }
	good := is.sign(t, "k1", is.claims())
	parts := strings.Split(good, ".")
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sig[len(sig)/2] ^= 1
	tampered := parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(sig)
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"k1"}`)) + "." + parts[1] + "."
	cases := []struct{ name, token string }{
		{"tampered signature", tampered},
		{"tampered payload", parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"mallory"}`)) + "." + parts[2]},
		{"alg none", none},
		{"HS256 keyed with the public key", signWith(t, jose.HS256, pubDER, "k1", "at+jwt", is.claims())},
		{"unknown key", signWith(t, jose.ES256, other, "k9", "at+jwt", is.claims())},
		{"right kid, another key", signWith(t, jose.ES256, other, "k1", "at+jwt", is.claims())},
		{"the encryption key", signWith(t, jose.RS256, is.enc, "enc", "at+jwt", is.claims())},
		{"HS256 with the set's symmetric key", signWith(t, jose.HS256, []byte("0123456789abcdef0123456789abcdef"), "hmac", "at+jwt", is.claims())},
		{"another audience", is.sign(t, "k1", edit(func(c map[string]any) { c["aud"] = "https://other.example.com/mcp" }))},
		{"no audience", is.sign(t, "k1", edit(func(c map[string]any) { delete(c, "aud") }))},
		{"another issuer", is.sign(t, "k1", edit(func(c map[string]any) { c["iss"] = "https://evil.example.com" }))},
		{"expired", is.sign(t, "k1", edit(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Minute).Unix() }))},
		{"no exp", is.sign(t, "k1", edit(func(c map[string]any) { delete(c, "exp") }))},
		{"not yet valid", is.sign(t, "k1", edit(func(c map[string]any) { c["nbf"] = time.Now().Add(time.Minute).Unix() }))},
		{"issued in the future", is.sign(t, "k1", edit(func(c map[string]any) { c["iat"] = time.Now().Add(time.Minute).Unix() }))},
		{"scope of another type", is.sign(t, "k1", edit(func(c map[string]any) { c["scope"] = 7 }))},
		{"an ID token's typ", signWith(t, jose.RS256, is.keys["k1"], "k1", "id_token+jwt", is.claims())},
		{"too long", is.sign(t, "k1", edit(func(c map[string]any) { c["pad"] = strings.Repeat("x", 16<<10) }))},
		{"deeply nested", is.sign(t, "k1", edit(func(c map[string]any) {
			var d any = 1
			for range 10000 {
				d = []any{d}
			}
			c["deep"] = d
		}))},
		{"JWE form", "a.b.c.d.e"},
		{"garbage", "not-a-jwt"},
		{"empty", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := v.Verify(context.Background(), tc.token, nil)
			if !errors.Is(err, authz.ErrInvalidToken) {
				t.Fatalf("%.200v, %v", c, err)
			}
			if tc.token != "" && strings.Contains(err.Error(), tc.token[:min(len(tc.token), 20)]) ||
				strings.Contains(err.Error(), "alice") || strings.Contains(err.Error(), "acme") {
				t.Errorf("the error holds the token or a claim: %v", err)
			}
		})
	}
}

func TestVerifyStrictTypeRefusesPlainJWT(t *testing.T) {
	is := newIssuer(t)
	loose := newVerifier(t, is, jwtauth.Config{})
	strict := newVerifier(t, is, jwtauth.Config{TypeAtJWT: true})
	tok := signWith(t, jose.RS256, is.keys["k1"], "k1", "JWT", is.claims())
	if _, err := loose.Verify(context.Background(), tok, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := strict.Verify(context.Background(), tok, nil); !errors.Is(err, authz.ErrInvalidToken) {
		t.Fatal(err)
	}
}

func TestNewRefusesUnsafeConfigs(t *testing.T) {
	is := newIssuer(t)
	for _, c := range []jwtauth.Config{
		{Audience: audience},
		{Issuer: is.url()},
		{Issuer: is.url(), Audience: audience, Algorithms: []string{"HS256"}},
		{Issuer: is.url(), Audience: audience, Algorithms: []string{"none"}},
		{Issuer: is.url() + "/other", Audience: audience}, // the metadata names another issuer
		{Issuer: is.url(), Audience: audience, JWKSURL: is.url() + "/missing"},
	} {
		if _, err := jwtauth.New(context.Background(), c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

func TestKeyRotation(t *testing.T) {
	is := newIssuer(t)
	v := newVerifier(t, is, jwtauth.Config{MinRefetch: 50 * time.Millisecond, MaxAge: time.Hour})
	old := is.sign(t, "k1", is.claims())
	if is.fetches.Load() != 1 {
		t.Fatalf("%d fetches at start", is.fetches.Load())
	}
	is.add(t, "k2")
	time.Sleep(60 * time.Millisecond)
	// Concurrent verifications of a token of the new key share one fetch.
	fresh := is.sign(t, "k2", is.claims())
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := v.Verify(context.Background(), fresh, nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := is.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches, want 2", n)
	}
	if _, err := v.Verify(context.Background(), old, nil); err != nil {
		t.Fatalf("the old key is still published: %v", err)
	}
	// Made-up keys cost at most one fetch per MinRefetch.
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for range 50 {
		_, _ = v.Verify(context.Background(), signWith(t, jose.ES256, other, "k-made-up", "at+jwt", is.claims()), nil)
	}
	if n := is.fetches.Load(); n > 3 {
		t.Fatalf("%d fetches after 50 made-up keys", n)
	}
	// A removed key stops verifying once the set is fetched again.
	is.remove("k1")
	time.Sleep(60 * time.Millisecond)
	is.add(t, "k3")
	if _, err := v.Verify(context.Background(), is.sign(t, "k3", is.claims()), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(context.Background(), old, nil); !errors.Is(err, authz.ErrInvalidToken) {
		t.Fatalf("removed key: %v", err)
	}
}

func TestMaxAgeDropsARemovedKey(t *testing.T) {
	is := newIssuer(t)
	is.add(t, "k2")
	v := newVerifier(t, is, jwtauth.Config{MaxAge: 500 * time.Millisecond, MinRefetch: time.Hour})
	old := is.sign(t, "k1", is.claims())
	is.remove("k1")
	if _, err := v.Verify(context.Background(), old, nil); err != nil {
		t.Fatalf("within MaxAge: %v", err)
	}
	time.Sleep(600 * time.Millisecond)
	if _, err := v.Verify(context.Background(), old, nil); !errors.Is(err, authz.ErrInvalidToken) {
		t.Fatalf("after MaxAge: %v", err)
	}
}

func TestUnreachableIssuerIsNotAnInvalidToken(t *testing.T) {
	is := newIssuer(t)
	v := newVerifier(t, is, jwtauth.Config{MinRefetch: time.Millisecond})
	is.add(t, "k2")
	tok := is.sign(t, "k2", is.claims())
	is.srv.Close()
	time.Sleep(5 * time.Millisecond)
	_, err := v.Verify(context.Background(), tok, nil)
	if err == nil || errors.Is(err, authz.ErrInvalidToken) {
		t.Fatalf("want a could-not-decide error, got %v", err)
	}
}

func TestWaitingVerificationHonoursItsContext(t *testing.T) {
	is := newIssuer(t)
	v := newVerifier(t, is, jwtauth.Config{MinRefetch: time.Millisecond})
	is.delay = 300 * time.Millisecond
	is.add(t, "k2")
	tok := is.sign(t, "k2", is.claims())
	time.Sleep(5 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := v.Verify(ctx, tok, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	// The fetch went on without it, for the next one.
	if _, err := v.Verify(context.Background(), tok, nil); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkVerify(b *testing.B) {
	is := &issuer{keys: map[string]any{}}
	is.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		defer is.mu.Unlock()
		var set jose.JSONWebKeySet
		for kid, k := range is.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: public(k), KeyID: kid, Use: "sig"})
		}
		_ = json.NewEncoder(w).Encode(set)
	}))
	defer is.srv.Close()
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	ek, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	is.keys["rsa"], is.keys["ec"] = rk, ek
	v, err := jwtauth.New(context.Background(), jwtauth.Config{Issuer: is.url(), Audience: audience, JWKSURL: is.url()})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		alg  jose.SignatureAlgorithm
		kid  string
	}{{"RS256", jose.RS256, "rsa"}, {"ES256", jose.ES256, "ec"}} {
		b.Run(bc.name, func(b *testing.B) {
			tok := signWith(b, bc.alg, is.keys[bc.kid], bc.kid, "at+jwt", is.claims())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(context.Background(), tok, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestVerifiedTokensAreRemembered: the same token a second time costs no
// signature check (two allocations at most, where a check costs a
// hundred), an expired one is refused though it was remembered, and with
// CacheTTL negative every verification checks the signature.
func TestVerifiedTokensAreRemembered(t *testing.T) {
	is := newIssuer(t)
	v := newVerifier(t, is, jwtauth.Config{Skew: -1})
	c := is.claims()
	c["exp"] = time.Now().Add(1500 * time.Millisecond).Unix()
	tok := is.sign(t, "k1", c)
	if _, err := v.Verify(context.Background(), tok, nil); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := v.Verify(context.Background(), tok, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Fatalf("a remembered token costs %.0f allocations", allocs)
	}
	time.Sleep(time.Until(time.Unix(c["exp"].(int64), 0)) + 100*time.Millisecond)
	if _, err := v.Verify(context.Background(), tok, nil); !errors.Is(err, authz.ErrInvalidToken) {
		t.Fatalf("an expired remembered token: %v", err)
	}
	uncached := newVerifier(t, is, jwtauth.Config{CacheTTL: -1})
	fresh := is.sign(t, "k1", is.claims())
	if _, err := uncached.Verify(context.Background(), fresh, nil); err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(20, func() { _, _ = uncached.Verify(context.Background(), fresh, nil) }); allocs < 20 {
		t.Fatalf("without the cache a verification costs %.0f allocations: it was not checked", allocs)
	}
}

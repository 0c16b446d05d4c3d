package jwtauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/authz/jwtauth"
)

// restart serves is's metadata and key set again at the address its server
// had before it was closed, as an issuer coming back from an outage does.
// (internal/loopback.Restartable does this for the SDK tests; this module
// keeps to its one dependency, and that package links mcp-go.)
func (is *issuer) restart(t *testing.T) {
	t.Helper()
	addr := is.srv.Listener.Addr().String()
	var ln net.Listener
	var err error
	for range 50 { // the closed listener's port may take a moment to free
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: is.handler, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
}

// TestIssuerOutageKeepsAnsweringCouldNotDecide: while the issuer's key set
// cannot be fetched, every token signed with a key the verifier has not
// seen (the issuer rotated, then went down) gets the could-not-decide
// answer, 503 with Retry-After, request after request and refetch window
// after refetch window, never 401 invalid_token, which tells a client to
// throw a good token away. A token of a key already held still verifies,
// and once the issuer is back the new key verifies too.
func TestIssuerOutageKeepsAnsweringCouldNotDecide(t *testing.T) {
	is := newIssuer(t)
	const minRefetch = 100 * time.Millisecond
	v := newVerifier(t, is, jwtauth.Config{MinRefetch: minRefetch, MaxAge: time.Hour})
	api := httptest.NewServer(authz.RequireBearer(v.Verify, authz.Bearer{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	})))
	t.Cleanup(api.Close)
	get := func(tok string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, api.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Retry-After")
	}
	held := is.sign(t, "k1", is.claims())
	is.add(t, "k2")
	is.srv.Close()         // the outage
	time.Sleep(minRefetch) // past the refetch window of the last good fetch
	deadline := time.Now().Add(3*minRefetch + minRefetch/2)
	n := 0
	for time.Now().Before(deadline) {
		c := is.claims()
		c["sub"] = fmt.Sprintf("user-%d", n) // a new token each time: none is remembered
		status, retry := get(is.sign(t, "k2", c))
		if status != http.StatusServiceUnavailable || retry == "" {
			t.Fatalf("token %d during the outage: %d, Retry-After %q; want 503 with Retry-After", n, status, retry)
		}
		if status, _ := get(held); status != http.StatusOK {
			t.Fatalf("a token of a key held, during the outage: %d", status)
		}
		n++
		time.Sleep(minRefetch / 4)
	}
	if n < 8 {
		t.Fatalf("only %d tokens tried during the outage", n)
	}
	is.restart(t)
	time.Sleep(minRefetch + minRefetch/2)
	if status, _ := get(is.sign(t, "k2", is.claims())); status != http.StatusOK {
		t.Fatalf("the new key once the issuer is back: %d", status)
	}
	// A key the issuer never published is refused again, now that it can
	// be decided.
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if status, _ := get(signWith(t, jose.ES256, other, "k-never", "at+jwt", is.claims())); status != http.StatusUnauthorized {
		t.Fatalf("an unpublished key once the issuer is back: %d", status)
	}
}

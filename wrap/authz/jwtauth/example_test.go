package jwtauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/authz/jwtauth"
)

// New discovers the issuer's key set from its metadata; Verify checks a
// token signed by one of its keys, for this server's resource URI.
func ExampleNew() {
	// A stand-in authorization server: its metadata and key set.
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	var issuer string
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_ = json.NewEncoder(w).Encode(map[string]string{"issuer": issuer, "jwks_uri": issuer + "/jwks.json"})
		case "/jwks.json":
			_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Use: "sig"}}})
		}
	}))
	defer as.Close()
	issuer = as.URL
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
	token := func(aud string) string {
		t, _ := jwt.Signed(signer).Claims(map[string]any{
			"iss": issuer, "aud": aud, "sub": "alice", "scope": "mcp issues:read",
			"exp": time.Now().Add(time.Hour).Unix(),
		}).Serialize()
		return t
	}

	v, err := jwtauth.New(context.Background(), jwtauth.Config{
		Issuer:   issuer,
		Audience: "https://mcp.example.com/mcp",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := v.Verify(context.Background(), token("https://mcp.example.com/mcp"), nil)
	fmt.Println(c.Subject, c.Scopes, err)
	_, err = v.Verify(context.Background(), token("https://other.example.com/mcp"), nil)
	fmt.Println(errors.Is(err, authz.ErrInvalidToken), err)
	// Output:
	// alice [mcp issues:read] <nil>
	// true invalid token: go-jose/go-jose/jwt: validation failed, invalid audience claim (aud)
}

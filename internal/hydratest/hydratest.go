// Package hydratest drives the real Ory Hydra that .ci/run starts, for the
// end-to-end tests of authorization: OAuth clients with the
// client-credentials grant, their access tokens (JWTs, Hydra's
// strategies.access_token=jwt), and the rotation of the key that signs
// them.
package hydratest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// Variables naming the Hydra of the end-to-end tests; .ci/run starts one
// on free loopback ports and sets them.
const (
	EnvPublicURL = "MCPWRAP_HYDRA_PUBLIC_URL" // the public API and issuer, e.g. http://127.0.0.1:4444
	EnvAdminURL  = "MCPWRAP_HYDRA_ADMIN_URL"  // the admin API, e.g. http://127.0.0.1:4445
)

// AccessTokenSet is the JWK set whose key signs Hydra's JWT access tokens.
const AccessTokenSet = "hydra.jwt.access-token"

// Hydra is a running Hydra.
type Hydra struct {
	Public, Admin string
	// Issuer is the issuer identifier, as the discovery document says it.
	Issuer string
}

// At returns the Hydra of the environment. Unset, the test is skipped on
// a developer's machine but fails when CI is set (as the Jaeger tests
// do), so a CI run never passes without having talked to Hydra.
func At(t testing.TB) Hydra {
	t.Helper()
	h := Hydra{Public: env(t, EnvPublicURL), Admin: env(t, EnvAdminURL)}
	var md struct {
		Issuer string `json:"issuer"`
	}
	h.do(t, http.MethodGet, h.Public+"/.well-known/openid-configuration", nil, http.StatusOK, &md)
	h.Issuer = md.Issuer
	return h
}

func env(t testing.TB, key string) string {
	t.Helper()
	if v := os.Getenv(key); v != "" {
		return strings.TrimSuffix(v, "/")
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set but %s is not: bash .ci/run starts Hydra and sets it", key)
	}
	t.Skipf("%s is not set; bash .ci/run starts Hydra and sets it", key)
	return ""
}

// Client is an OAuth client registered with Hydra.
type Client struct {
	ID, Secret string
	h          Hydra
}

// ClientOptions say what a client may ask for.
type ClientOptions struct {
	// Scopes the client may request.
	Scopes []string
	// Audiences the client may request.
	Audiences []string
	// Lifespan of its access tokens; zero: Hydra's default (an hour).
	Lifespan time.Duration
}

// NewClient registers a client-credentials client (POST /admin/clients),
// deleted when the test ends.
func (h Hydra) NewClient(t testing.TB, o ClientOptions) Client {
	t.Helper()
	secret := randomHex(t)
	var out struct {
		ID string `json:"client_id"`
	}
	h.do(t, http.MethodPost, h.Admin+"/admin/clients", map[string]any{
		"client_secret":              secret,
		"grant_types":                []string{"client_credentials"},
		"response_types":             []string{"token"},
		"scope":                      strings.Join(o.Scopes, " "),
		"audience":                   o.Audiences,
		"token_endpoint_auth_method": "client_secret_post",
		"access_token_strategy":      "jwt",
	}, http.StatusCreated, &out)
	t.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, h.Admin+"/admin/clients/"+url.PathEscape(out.ID), nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
		}
	})
	if o.Lifespan > 0 {
		h.do(t, http.MethodPut, h.Admin+"/admin/clients/"+url.PathEscape(out.ID)+"/lifespans", map[string]any{
			"client_credentials_grant_access_token_lifespan": o.Lifespan.String(),
		}, http.StatusOK, nil)
	}
	return Client{ID: out.ID, Secret: secret, h: h}
}

// Token fetches an access token (POST /oauth2/token) for scopes and
// audiences.
func (c Client) Token(t testing.TB, scopes, audiences []string) string {
	t.Helper()
	form := url.Values{
		"grant_type":    {"client_credentials"},
		"client_id":     {c.ID},
		"client_secret": {c.Secret},
		"scope":         {strings.Join(scopes, " ")},
	}
	for _, a := range audiences {
		form.Add("audience", a)
	}
	resp, err := http.PostForm(c.h.Public+"/oauth2/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	var out struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &out) != nil || out.AccessToken == "" {
		t.Fatalf("token for %v %v: %s %s", scopes, audiences, resp.Status, body)
	}
	return out.AccessToken
}

// NewSigningKey adds a key to the access-token set (POST
// /admin/keys/hydra.jwt.access-token) and returns its id; Hydra signs the
// access tokens issued after it with it.
func (h Hydra) NewSigningKey(t testing.TB) string {
	t.Helper()
	kid := "mcpwrap-" + randomHex(t)[:12]
	var out struct {
		Keys []struct {
			KID string `json:"kid"`
		} `json:"keys"`
	}
	h.do(t, http.MethodPost, h.Admin+"/admin/keys/"+AccessTokenSet,
		map[string]string{"alg": "RS256", "use": "sig", "kid": kid}, http.StatusCreated, &out)
	if len(out.Keys) == 0 {
		t.Fatal("Hydra created no key")
	}
	return out.Keys[0].KID
}

// DeleteSigningKey removes key kid of the access-token set.
func (h Hydra) DeleteSigningKey(t testing.TB, kid string) {
	t.Helper()
	h.do(t, http.MethodDelete, h.Admin+"/admin/keys/"+AccessTokenSet+"/"+url.PathEscape(kid), nil, http.StatusNoContent, nil)
}

// SigningKeys returns the ids of the access-token set's keys.
func (h Hydra) SigningKeys(t testing.TB) []string {
	t.Helper()
	var out struct {
		Keys []struct {
			KID string `json:"kid"`
		} `json:"keys"`
	}
	h.do(t, http.MethodGet, h.Admin+"/admin/keys/"+AccessTokenSet, nil, http.StatusOK, &out)
	var ids []string
	for _, k := range out.Keys {
		ids = append(ids, k.KID)
	}
	return ids
}

func (h Hydra) do(t testing.TB, method, u string, in any, want int, out any) {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %s (want %d): %s", method, u, resp.Status, want, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, u, err, data)
		}
	}
}

func randomHex(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

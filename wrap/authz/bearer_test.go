package authz_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

const (
	goodToken = "good.token.sig"
	metaURL   = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
)

// verifier accepts goodToken (scopes from the token "good.token.sig+<scope>"
// form are not needed: the scopes are fixed) and refuses the rest;
// "down" makes it fail to decide.
func verifier(scopes ...string) authz.Verifier {
	return func(_ context.Context, token string, _ *http.Request) (authz.Caller, error) {
		switch token {
		case goodToken:
			return authz.Caller{Subject: "alice", Scopes: scopes, Expires: time.Now().Add(time.Hour),
				Claims: map[string]any{"tenant": "secret-tenant"}}, nil
		case "down":
			return authz.Caller{}, errors.New("jwks fetch: connection refused")
		}
		return authz.Caller{}, fmt.Errorf("%w: signature does not verify (token %s)", authz.ErrInvalidToken, token)
	}
}

// echo answers the caller it sees and the body it was given.
func echo() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := authz.FromContext(r.Context())
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "caller=%s ok=%v body=%s", c.Subject, ok, body)
	})
}

func do(t *testing.T, h http.Handler, auth []string, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	for _, a := range auth {
		r.Header.Add("Authorization", a)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestRequireBearerAnswersPerRFC6750(t *testing.T) {
	var logs bytes.Buffer
	h := authz.RequireBearer(verifier("mcp"), authz.Bearer{
		ResourceMetadata: metaURL, Scopes: []string{"mcp"},
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})(echo())
	cases := []struct {
		name   string
		auth   []string
		status int
		header string
	}{
		{"no header", nil, 401, `Bearer scope="mcp", resource_metadata="` + metaURL + `"`},
		{"another scheme", []string{"Basic YWxpY2U6cHc="}, 401, `Bearer scope="mcp", resource_metadata="` + metaURL + `"`},
		{"bearer without token", []string{"Bearer "}, 401, `Bearer error="invalid_token", error_description="the access token is malformed, expired, or not accepted by this server", scope="mcp", resource_metadata="` + metaURL + `"`},
		{"token with a space", []string{"Bearer a b"}, 401, `error="invalid_token"`},
		{"token with a quote", []string{`Bearer a"b`}, 401, `error="invalid_token"`},
		{"two headers", []string{"Bearer " + goodToken, "Bearer " + goodToken}, 401, `error="invalid_token"`},
		{"refused", []string{"Bearer tampered.token.sig"}, 401, `error="invalid_token"`},
		{"lowercase scheme", []string{"bearer " + goodToken}, 200, ""},
		{"accepted", []string{"Bearer " + goodToken}, 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := do(t, h, tc.auth, `{}`)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			got := w.Header().Get("WWW-Authenticate")
			if !strings.Contains(got, tc.header) || (tc.header == "") != (got == "") {
				t.Errorf("WWW-Authenticate %q, want %q", got, tc.header)
			}
			if tc.status == 200 && w.Body.String() != "caller=alice ok=true body={}" {
				t.Errorf("handler saw %q", w.Body)
			}
			if tc.status != 200 && !json.Valid(w.Body.Bytes()) {
				t.Errorf("body not JSON: %q", w.Body)
			}
			for _, secret := range []string{"tampered", goodToken, "secret-tenant", "signature"} {
				if strings.Contains(w.Body.String()+got, secret) {
					t.Errorf("answer holds %q: %s %s", secret, got, w.Body)
				}
			}
		})
	}
	if strings.Contains(logs.String(), "tampered") && !strings.Contains(logs.String(), "signature does not verify") {
		t.Errorf("log: %s", logs.String())
	}
}

func TestRequireBearerWithoutScopesOrMetadata(t *testing.T) {
	h := authz.RequireBearer(verifier(), authz.Bearer{})(echo())
	w := do(t, h, nil, "")
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") != "Bearer " {
		t.Fatalf("%d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}
}

func TestRequireBearerTokenLackingServerScopes(t *testing.T) {
	h := authz.RequireBearer(verifier("read"), authz.Bearer{ResourceMetadata: metaURL, Scopes: []string{"mcp"}})(echo())
	w := do(t, h, []string{"Bearer " + goodToken}, "{}")
	if w.Code != 403 || !strings.Contains(w.Header().Get("WWW-Authenticate"), `error="insufficient_scope"`) ||
		!strings.Contains(w.Header().Get("WWW-Authenticate"), `scope="mcp"`) {
		t.Fatalf("%d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}
}

func TestRequireBearerVerifierDown(t *testing.T) {
	h := authz.RequireBearer(verifier(), authz.Bearer{ResourceMetadata: metaURL})(echo())
	w := do(t, h, []string{"Bearer down"}, "{}")
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("WWW-Authenticate") != "" ||
		strings.Contains(w.Body.String(), "refused") {
		t.Fatalf("%d %q %s", w.Code, w.Header().Get("WWW-Authenticate"), w.Body)
	}
}

func challenge(method, name string) []string {
	switch {
	case method == "tools/call" && name == "delete_repository":
		return []string{"repo:admin"}
	case method == "resources/read" && strings.HasPrefix(name, "secret://"):
		return []string{"secrets:read"}
	case method == "prompts/get" && name == "admin":
		return []string{"repo:admin", "mcp"}
	}
	return nil
}

func TestRequireBearerChallengesAMissingScope(t *testing.T) {
	h := authz.RequireBearer(verifier("mcp"), authz.Bearer{
		ResourceMetadata: metaURL, Scopes: []string{"mcp"}, Challenge: challenge,
	})(echo())
	cases := []struct {
		name, body string
		status     int
		scope      string // the header's scope parameter
		id         string
	}{
		{"tool", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"delete_repository","arguments":{"x":1}}}`, 403, "mcp repo:admin", "7"},
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"delete_repository"}}`, 403, "mcp repo:admin", `"a"`},
		{"resource", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"secret://k"}}`, 403, "mcp secrets:read", "1"},
		{"prompt", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"admin"}}`, 403, "mcp repo:admin", "1"},
		{"allowed tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_issues"}}`, 200, "", ""},
		{"other method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"delete_repository"}}`, 200, "", ""},
		{"malformed", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_repository"`, 200, "", ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_repository"}}]`, 200, "", ""},
		{"not 2.0", `{"id":1,"method":"tools/call","params":{"name":"delete_repository"}}`, 200, "", ""},
		{"deep", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_repository","arguments":` +
			strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`, 200, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := do(t, h, []string{"Bearer " + goodToken}, tc.body)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if tc.status == 200 {
				if w.Body.String() != "caller=alice ok=true body="+tc.body {
					t.Fatalf("the handler did not get the body whole: %.200s", w.Body)
				}
				return
			}
			want := `Bearer error="insufficient_scope", error_description=`
			got := w.Header().Get("WWW-Authenticate")
			if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, `scope="`+tc.scope+`", resource_metadata="`+metaURL+`"`) {
				t.Errorf("WWW-Authenticate %q", got)
			}
			var body struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || string(body.ID) != tc.id || body.JSONRPC != "2.0" ||
				!strings.Contains(body.Error.Message, strings.Fields(tc.scope)[1]) {
				t.Errorf("body %s (%v)", w.Body, err)
			}
		})
	}
}

func TestRequireBearerPassesAnOversizedBodyOnWhole(t *testing.T) {
	h := authz.RequireBearer(verifier("mcp"), authz.Bearer{Challenge: challenge, MaxBodyBytes: 64})(echo())
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"delete_repository","arguments":{"pad":"` +
		strings.Repeat("x", 200) + `"}}}`
	w := do(t, h, []string{"Bearer " + goodToken}, body)
	if w.Code != 200 || w.Body.String() != "caller=alice ok=true body="+body {
		t.Fatalf("%d %.100s", w.Code, w.Body)
	}
}

func TestRequireBearerReadsNoBodyWithoutChallenge(t *testing.T) {
	h := authz.RequireBearer(verifier(), authz.Bearer{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Body.(readCloser); !ok {
			t.Errorf("the body was replaced: %T", r.Body)
		}
	}))
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Body = readCloser{strings.NewReader("{}")}
	r.Header.Set("Authorization", "Bearer "+goodToken)
	h.ServeHTTP(httptest.NewRecorder(), r)
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

func BenchmarkRequireBearerChallenge(b *testing.B) {
	h := authz.RequireBearer(verifier("mcp"), authz.Bearer{Challenge: challenge})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_issues","arguments":{"repo":"a/b","state":"open"}}}`
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+goodToken)
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
}

func TestRequireBearerQuotesParametersAsHTTPDoes(t *testing.T) {
	h := authz.RequireBearer(verifier(), authz.Bearer{ResourceMetadata: `https://m.example/"x"\y` + "\n"})(echo())
	w := do(t, h, nil, "")
	if got, want := w.Header().Get("WWW-Authenticate"), `Bearer resource_metadata="https://m.example/\"x\"\\y"`; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// countingReader counts what was read of a body.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) Close() error { return nil }

func TestRequireBearerChallengeReadsAtMostItsCap(t *testing.T) {
	const limit = 1 << 10
	var inHandler int64
	body := &countingReader{r: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_repository","arguments":"` +
		strings.Repeat("x", 5<<20) + `"}}`)}
	h := authz.RequireBearer(verifier("mcp"), authz.Bearer{Challenge: challenge, MaxBodyBytes: limit})(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inHandler = body.n
			_, _ = io.Copy(io.Discard, r.Body)
		}))
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Body, r.ContentLength = body, -1 // chunked: no length announced
	r.Header.Set("Authorization", "Bearer "+goodToken)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 || inHandler > limit+1 || body.n < 5<<20 {
		t.Fatalf("status %d; read %d before the handler (cap %d), %d in all", w.Code, inHandler, limit, body.n)
	}
}

func TestRequireBearerLeavesAGetAlone(t *testing.T) {
	h := authz.RequireBearer(verifier("mcp"), authz.Bearer{Challenge: challenge})(echo())
	r := httptest.NewRequest(http.MethodGet, "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+goodToken)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 || w.Body.String() != "caller=alice ok=true body=" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

// FuzzRequireBearerChallenge: whatever the body, the handler gets it
// whole, or the answer is a 403 with a JSON-RPC error.
func FuzzRequireBearerChallenge(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"delete_repository"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"secret://a"}}`,
		`[{"jsonrpc":"2.0"}]`, `{`, ``, `null`, `{"jsonrpc":"2.0","method":"prompts/get","params":{"name":"admin"}}`,
	} {
		f.Add(s)
	}
	var got string
	h := authz.RequireBearer(verifier("mcp"), authz.Bearer{Challenge: challenge, MaxBodyBytes: 1 << 12})(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got = string(b)
		}))
	f.Fuzz(func(t *testing.T, body string) {
		got = ""
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+goodToken)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch w.Code {
		case 200:
			if got != body {
				t.Fatalf("the handler got %q of %q", got, body)
			}
		case 403:
			var e struct {
				JSONRPC string `json:"jsonrpc"`
				Error   struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if json.Unmarshal(w.Body.Bytes(), &e) != nil || e.JSONRPC != "2.0" || e.Error.Code != -32001 ||
				!strings.Contains(w.Header().Get("WWW-Authenticate"), `error="insufficient_scope"`) {
				t.Fatalf("403 %q %s", w.Header().Get("WWW-Authenticate"), w.Body)
			}
		default:
			t.Fatalf("status %d", w.Code)
		}
	})
}
